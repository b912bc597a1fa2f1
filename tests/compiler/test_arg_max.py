"""arg_max end to end: a model ending in torch.argmax lowers as written and gives PyTorch's
quantized model's indices exactly (ties included); what does not lower is named with a rewrite."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

import compiler
from compiler.errors import UnsupportedOpsError
from compiler.target import Target

TARGET = Target("cortex-m55")


class Head(nn.Module):
    def __init__(self, body: nn.Module, **argmax) -> None:
        super().__init__()
        self.body, self.argmax = body, argmax

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.argmax(torch.relu(self.body(x)), **self.argmax)


def _batches(shape: tuple[int, ...], n: int) -> list[tuple[torch.Tensor]]:
    return [(torch.randn(shape, generator=torch.Generator().manual_seed(seed)),) for seed in range(n)]


def _nhwc(x: torch.Tensor) -> np.ndarray:
    return (x.permute(0, 2, 3, 1) if x.dim() == 4 else x).contiguous().numpy()


CASES = {
    "classifier": (lambda: nn.Linear(12, 10), (4, 12), {"dim": -1}),
    "classifier_keepdim": (lambda: nn.Linear(12, 7), (3, 12), {"dim": 1, "keepdim": True}),
    "segmentation_map": (lambda: nn.Conv2d(3, 5, 3, padding=1), (1, 3, 6, 7), {"dim": 1}),
    "every_element": (lambda: nn.Linear(8, 6), (2, 8), {}),
    "tokens": (lambda: nn.Linear(5, 9), (2, 4, 5), {"dim": 1}),
}


@pytest.mark.parametrize("name", CASES)
def test_indices_equal_pytorchs_quantized_model(name):
    build, shape, argmax = CASES[name]
    torch.manual_seed(0)
    model = Head(build(), **argmax).eval()
    program = compiler.lower(model, _batches(shape, 1)[0], _batches(shape, 4), target=TARGET)
    assert [op.kind for op in program.graph.ops][-1] == "arg_max"
    for (x,) in _batches(shape, 6)[1:]:
        theirs = program.quantized_model(x)
        (ours,) = program.run_reference(_nhwc(x))
        assert ours.dtype == np.int32 and ours.shape == tuple(theirs.shape)
        np.testing.assert_array_equal(ours, theirs.numpy())


def test_ties_give_the_first_index_as_pytorch():
    model = Head(nn.Identity(), dim=-1).eval()  # relu of negatives: rows of equal zeros
    x = torch.tensor([[-1.0, -2.0, 0.5, 0.5], [-3.0, -1.0, -2.0, -0.5]])
    program = compiler.lower(model, (x,), [(x,), (x * 2,)], target=TARGET)
    (ours,) = program.run_reference(x.numpy())
    np.testing.assert_array_equal(ours, [2, 0])
    np.testing.assert_array_equal(ours, program.quantized_model(x).numpy())


@pytest.mark.parametrize("argmax, named", [({"dim": 2}, "dim 2 of a 4-D map"), ({}, "every dim of a 4-D map")])
def test_argmax_over_a_map_s_spatial_dims_is_named_with_a_rewrite(argmax, named):
    model = Head(nn.Conv2d(3, 4, 1), **argmax).eval()
    with pytest.raises(UnsupportedOpsError) as error:
        compiler.lower(model, _batches((1, 3, 4, 5), 1)[0], _batches((1, 3, 4, 5), 2), target=TARGET)
    assert named in str(error.value) and "dim=1" in str(error.value)
