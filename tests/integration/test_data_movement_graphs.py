"""PyTorch modules with pad, slice, nearest upsampling, permute, reshape / flatten / squeeze /
unsqueeze / select and a cat that needs requantization, through CortexMQuantizer and lowering:
the reference within 1 LSB of PyTorch's quantized model (NCHW in the model, NHWC in the
program), the devices equal to the reference, unsupported variants named at compile time."""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torchao.quantization.pt2e.quantizer import QuantizationAnnotation

import compiler
from compiler.errors import UnsupportedOpError
from compiler.quantizer import ACTIVATION_QSPEC, CortexMQuantizer
from tests.integration.agreement import nhwc
from tests.integration.runners import DEVICES, output_of

SHAPE = (1, 3, 6, 7)


class PadSliceUpsample(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(1)
        self.a, self.b = nn.Conv2d(3, 5, 3, padding=1), nn.Conv2d(4, 4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.pad(self.a(x), (1, 2, 0, 3), value=0.25)  # W: 1 left, 2 right; H: 3 below
        y = y[:, 1:, -7::2, 1:-1]  # channels, H with a negative start and a step, W
        y = F.interpolate(y, scale_factor=2, mode="nearest")
        return self.b(nn.Upsample(scale_factor=(1, 3))(y).narrow(3, 2, 9))


class PermuteFlatten(nn.Module):
    """TFLite-style permute to NHWC before a flatten (a no-op in Ember), a plain flatten, and a
    permute that really moves bytes, each feeding a linear."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(2)
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.fc1, self.fc2, self.fc3 = nn.Linear(4 * 6 * 7, 5), nn.Linear(4 * 6 * 7, 5), nn.Linear(4 * 6 * 7, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.conv(x))
        nhwc = self.fc1(y.permute(0, 2, 3, 1).flatten(1))
        nchw = self.fc2(torch.flatten(y, 1))
        moved = self.fc3(y.transpose(2, 3).reshape(1, -1))
        return torch.cat([nhwc, nchw, moved], dim=1)


class Reshapes(nn.Module):
    """Rank changes of a map with H·W > 1 (transposes needed), a 4-D result, squeeze, unsqueeze,
    select and a permute of a 3-D tensor."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(3)
        self.conv, self.tail = nn.Conv2d(3, 6, 3, padding=1), nn.Conv2d(6, 2, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        y = self.conv(x)
        tokens = y.view(1, 6, -1).transpose(1, 2)  # [1, H·W, C]
        grid = tokens.permute(0, 2, 1).reshape(1, 6, 6, 7)  # back to a map
        row = y.select(2, 3).unsqueeze(1).squeeze(0)  # [1, C, W]
        return self.tail(grid), tokens, row, y[:, :, :, -1].flatten(1)


class CatRequantize(nn.Module):
    """A cat of a softmax output (scale fixed at 1/256), the model input, a conv and a slice →
    pad → upsample → slice path: not every scale can be shared, so the program requantizes."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(4)
        self.a, self.b, self.c = nn.Conv2d(3, 4, 1), nn.Conv2d(3, 5, 3, padding=1), nn.Conv2d(3, 2, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        up = F.interpolate(F.pad(self.c(x)[:, :, ::2, 2:], (1, 0), value=0.5), scale_factor=2)[..., :7]
        return torch.cat([torch.softmax(self.a(x), dim=1), x, self.b(x), up], dim=1)


MODULES = {"pad_slice_upsample": PadSliceUpsample, "permute_flatten": PermuteFlatten, "reshapes": Reshapes,
           "cat_requantize": CatRequantize}


def _calibration() -> list[torch.Tensor]:
    return [torch.randn(SHAPE, generator=torch.Generator().manual_seed(i)) * 2 for i in range(3)]


@pytest.fixture(scope="module")
def programs() -> dict[str, compiler.Program]:
    return {name: compiler.lower(module().eval(), (torch.zeros(SHAPE),), _calibration(), target="cortex-m55")
            for name, module in MODULES.items()}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_reference_within_one_lsb_of_pytorch(programs, name):
    program = programs[name]
    lsbs = []
    for seed in range(4):
        x = torch.randn(SHAPE, generator=torch.Generator().manual_seed(100 + seed)) * 2
        ours = program.run_reference(nhwc(x.numpy()))
        theirs = program.quantized_model(x)
        theirs = theirs if isinstance(theirs, (tuple, list)) else (theirs,)
        for out, mine, torch_out in zip(program.graph.outputs, ours, theirs):
            scale = float(program.graph.tensors[program.graph.producer(out).inputs[0]].quant.scale[0])
            reference = nhwc(torch_out.detach().numpy())
            assert mine.shape == reference.shape
            lsbs.append(np.rint((mine - reference) / scale).reshape(-1))
    lsb = np.abs(np.concatenate(lsbs))
    assert lsb.max() <= 1 and (lsb == 0).mean() >= 0.99


def test_permute_to_nhwc_before_flatten_is_a_no_op(programs):
    kinds = [op.kind for op in programs["permute_flatten"].graph.ops]
    # fc1 (permute + flatten) and fc2 (flatten) read the conv's map directly; fc3's transpose
    # of H and W is a real move
    assert kinds.count("fully_connected") == 3 and kinds.count("transpose") == 1 and "reshape" not in kinds


def test_cat_requantizes_the_inputs_it_cannot_share(programs):
    graph = programs["cat_requantize"].graph
    kinds = [op.kind for op in graph.ops]
    assert kinds.count("requantize") >= 1 and kinds.count("concatenation") == 1
    cat = next(op for op in graph.ops if op.kind == "concatenation")
    out = graph.tensors[cat.outputs[0]].quant
    for name in cat.inputs:
        assert np.array_equal(graph.tensors[name].quant.scale, out.scale)


def test_reshapes_alias_their_input(programs):
    graph = programs["reshapes"].graph
    for op in graph.ops:
        if op.kind == "reshape":
            assert graph.tensors[op.inputs[0]].offset == graph.tensors[op.outputs[0]].offset


@pytest.mark.parametrize("board,target", DEVICES)
def test_device_equals_reference(tmp_path, board, target):
    program = compiler.lower(CatRequantize().eval(), (torch.zeros(SHAPE),), _calibration(), target=target)
    x = nhwc(np.random.default_rng(7).normal(size=SHAPE).astype(np.float32) * 2)
    got = np.frombuffer(output_of(board, program, [np.ascontiguousarray(x)], tmp_path), np.float32)
    np.testing.assert_array_equal(got, program.run_reference(x)[0].reshape(-1))


class IndependentQuantizer(CortexMQuantizer):
    """A user's config: every data-movement op and cat observes its own output (nothing shared)."""

    def _annotate_shared(self, node) -> None:
        if node.target in (torch.ops.aten.max_pool2d.default, torch.ops.aten.avg_pool2d.default):
            return super()._annotate_shared(node)
        node.meta["quantization_annotation"] = QuantizationAnnotation(
            input_qspec_map={node.args[0]: ACTIVATION_QSPEC}, output_qspec=ACTIVATION_QSPEC, _annotated=True)

    def _annotate_concatenation(self, node) -> None:
        node.meta["quantization_annotation"] = QuantizationAnnotation(
            input_qspec_map={a: ACTIVATION_QSPEC for a in node.args[0]}, output_qspec=ACTIVATION_QSPEC, _annotated=True)


def test_a_quantizer_that_shares_nothing_lowers_with_requantize():
    program = compiler.lower(CatRequantize().eval(), (torch.zeros(SHAPE),), _calibration(), target="host",
                             quantizer=IndependentQuantizer())
    kinds = [op.kind for op in program.graph.ops]
    assert kinds.count("requantize") >= 4  # cat inputs and the slice / pad / upsample chain
    x = torch.randn(SHAPE, generator=torch.Generator().manual_seed(5)) * 2
    ours = program.run_reference(nhwc(x.numpy()))[0]
    theirs = nhwc(program.quantized_model(x).detach().numpy())
    scale = float(program.graph.tensors[program.graph.producer(program.graph.outputs[0]).inputs[0]].quant.scale[0])
    lsb = np.abs(np.rint((ours - theirs) / scale))
    assert lsb.max() <= 1 and (lsb == 0).mean() >= 0.98


class Bicubic(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.interpolate(x, scale_factor=2, mode="bicubic")


def test_an_unsupported_variant_names_the_op_and_the_line():
    """Bicubic resizing has no kernel. (Nearest resizing by a factor that is no integer lowers:
    compiler/decompositions.py; tests/zoo/op_cases.py nearest_to_any_size runs it on the devices.)"""
    with pytest.raises(UnsupportedOpError) as error:
        compiler.lower(Bicubic(), (torch.zeros(SHAPE),), _calibration(), target="host")
    assert "upsample_bicubic2d" in str(error.value) and "test_data_movement_graphs.py:" in str(error.value)
