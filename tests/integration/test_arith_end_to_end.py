"""PyTorch modules using sub, minimum, maximum, ConvTranspose2d, bmm / matmul (activation ×
activation, and activation × constant as a fully connected layer), per-tensor weights and general
broadcasts between activations (both operands broadcast, middle axes, outer products),
through CortexMQuantizer and lowering: the reference within 1 LSB of PyTorch's quantized model,
and host, M55 (MVE), M4 (DSP) and M3 (scalar) equal to the reference byte for byte. (Grouped and
dilated transposed convolutions and matmuls of any rank: tests/models/op_cases.py.)"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch
from torch import nn

import compiler
from compiler.quantizer import CortexMQuantizer
from compiler.target import Target
from tests.integration.agreement import nhwc
from tests.integration.runners import TIER_DEVICES, outputs_of

IMAGE = (1, 4, 6, 5)


class Decoder(nn.Module):
    """Two branches met by sub (+ ReLU), max, sub / min / mul against constant channel vectors
    (PyTorch's [1, C, 1, 1], laid out NHWC by lowering), then two transposed convolutions
    (stride 2 with output_padding; stride 3 with a non-square kernel)."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(5)
        self.a, self.b = nn.Conv2d(4, 6, 3, padding=1), nn.Conv2d(4, 6, 1)
        self.register_buffer("cap", torch.linspace(-0.5, 1.5, 6).reshape(1, 6, 1, 1))
        self.register_buffer("shift", torch.linspace(0.3, -0.3, 6).reshape(1, 6, 1, 1))
        self.register_buffer("gain", torch.linspace(0.5, 2.0, 6).reshape(1, 6, 1, 1))
        self.up1 = nn.ConvTranspose2d(6, 5, 3, stride=2, padding=1, output_padding=1)
        self.up2 = nn.ConvTranspose2d(5, 3, (2, 3), stride=(3, 2), padding=(0, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a, b = self.a(x), self.b(x)
        joined = torch.minimum(torch.maximum(torch.relu(a - b), b - self.shift), self.cap)
        return self.up2(torch.relu(self.up1(joined * self.gain)))


class Products(nn.Module):
    """bmm of two activations, and a 2-D activation times a constant weight matrix."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(6)
        self.w = nn.Parameter(torch.randn(9, 7) / 3)

    def forward(self, x: torch.Tensor, y: torch.Tensor, z: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return torch.bmm(x, y), torch.relu(z @ self.w)


PRODUCT_SHAPES = ((3, 5, 9), (3, 9, 4), (6, 9))


class Broadcasts(nn.Module):
    """Activations of different shapes met by add, sub, max, min and mul with NumPy broadcasting:
    a [1, C, H, 1] + b [1, 1, 1, W] (NHWC [1, H, 1, C] + [1, 1, W, 1]: both operands broadcast),
    min against b (a middle-axis broadcast in NHWC), and x.unsqueeze(1) · y.unsqueeze(2) (an
    outer product per batch row, [B, 1, N] · [B, M, 1]) less x.unsqueeze(1)."""

    def forward(self, a: torch.Tensor, b: torch.Tensor, x: torch.Tensor,
                y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        joined = torch.minimum(torch.maximum(a + b, a - b), b)
        return joined, torch.relu(x.unsqueeze(1) * y.unsqueeze(2) - x.unsqueeze(1))


BROADCAST_SHAPES = ((1, 6, 5, 1), (1, 1, 1, 7), (3, 9), (3, 4))
SHAPES = {"decoder": (IMAGE,), "products": PRODUCT_SHAPES, "classifier": (IMAGE,), "broadcasts": BROADCAST_SHAPES}


class Classifier(nn.Module):
    """conv, depthwise conv and linear: quantized with per-tensor weights."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(7)
        self.conv, self.dw = nn.Conv2d(4, 8, 3), nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.fc = nn.Linear(8 * 4 * 3, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.flatten(torch.relu(self.dw(torch.relu(self.conv(x)))), 1))


def _calibration(shapes, seed: int = 0) -> list[tuple[torch.Tensor, ...]]:
    g = torch.Generator().manual_seed(seed)
    return [tuple(torch.randn(shape, generator=g) for shape in shapes) for _ in range(8)]


@pytest.fixture(scope="module")
def programs() -> dict[str, compiler.Program]:
    """Each module lowered once (lowering does not depend on the tier: the target only stamps
    the program)."""
    def lower(model, shapes, **kwargs):
        return compiler.lower(model.eval(), tuple(torch.zeros(s) for s in shapes), _calibration(shapes), **kwargs)

    return {"decoder": lower(Decoder(), (IMAGE,)), "products": lower(Products(), PRODUCT_SHAPES),
            "classifier": lower(Classifier(), (IMAGE,), quantizer=CortexMQuantizer(per_tensor_weights=True)),
            "broadcasts": lower(Broadcasts(), BROADCAST_SHAPES)}


def _inputs(name: str, seed: int) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(shape, generator=g) * 1.5 for shape in SHAPES[name]]


def test_lowered_kinds(programs):
    kinds = {name: [op.kind for op in p.graph.ops] for name, p in programs.items()}
    assert {"add", "maximum", "minimum", "mul"} <= set(kinds["decoder"]) and kinds["decoder"].count("transpose_conv2d") == 2
    assert "batch_matmul" in kinds["products"] and "fully_connected" in kinds["products"]
    weights = [programs["classifier"].graph.tensors[op.inputs[1]] for op in programs["classifier"].graph.ops
               if op.kind in ("conv2d", "depthwise_conv2d", "fully_connected")]
    assert len(weights) == 3 and all(w.quant.scale.size == 1 for w in weights)  # per tensor
    graph = programs["broadcasts"].graph
    shapes = {(op.kind, *(graph.tensors[n].shape for n in op.inputs)) for op in graph.ops}
    assert {("add", (1, 5, 1, 6), (1, 1, 7, 1)), ("minimum", (1, 5, 7, 6), (1, 1, 7, 1)),
            ("mul", (3, 1, 9), (3, 4, 1)), ("add", (3, 4, 9), (3, 1, 9))} <= shapes  # general broadcasts
    assert "float_binary" not in kinds["broadcasts"]


@pytest.mark.parametrize("name", ["decoder", "products", "classifier", "broadcasts"])
def test_reference_agrees_with_pytorch(programs, name):
    program = programs[name]
    diffs = []
    for seed in range(6):
        inputs = _inputs(name, seed)
        theirs = program.quantized_model(*inputs)
        theirs = theirs if isinstance(theirs, tuple) else (theirs,)
        ours = program.run_reference(*(nhwc(x.numpy()) for x in inputs))
        for k, (mine, torch_out) in enumerate(zip(ours, theirs)):
            scale = float(program.graph.producer(program.graph.outputs[k]).attrs["scale"])
            diffs.append(np.rint((mine - nhwc(torch_out.detach().numpy())) / scale).reshape(-1))
    lsb = np.concatenate(diffs)
    assert np.abs(lsb).max() <= 1 and (lsb == 0).mean() >= 0.99


@pytest.mark.parametrize("board,target", TIER_DEVICES)
def test_devices_equal_reference(programs, tmp_path, board, target):
    for name, program in programs.items():
        program = dataclasses.replace(program, target=Target(target))
        inputs = [nhwc(x.numpy()) for x in _inputs(name, 40)]
        got = outputs_of(board, program, inputs, tmp_path)
        for data, want in zip(got, program.run_reference(*inputs)):
            np.testing.assert_array_equal(np.frombuffer(data, np.float32).reshape(want.shape), want, err_msg=name)
