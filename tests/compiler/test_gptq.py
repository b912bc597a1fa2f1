"""compiler/gptq.py: GPTQ's codes reach the program exactly, and they move the layer's output less
than rounding to nearest does."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

import compiler
from compiler import gptq
from compiler.frontend import ExampleBatched, export_float
from compiler.passes.graph_module import attr_value
from compiler.quantizer import CortexMQuantizer
from compiler.reader import read_program


def test_gptq_keeps_the_scales_and_beats_nearest_on_its_own_inputs():
    torch.manual_seed(1)
    x = torch.randn(256, 40, dtype=torch.float64) @ torch.randn(40, 40, dtype=torch.float64)  # correlated inputs
    w = torch.randn(1, 24, 40, dtype=torch.float64)
    codes, scale = gptq.gptq(w, (x.T @ x)[None])
    assert torch.equal(scale, (w.abs().amax(dim=2) / 7).clamp(min=gptq.EPS))
    assert codes.abs().max() <= 7 and torch.equal(codes, codes.round())
    nearest = torch.clamp(torch.round(w / scale[:, :, None]), -7, 7)
    error = lambda c: float(((c * scale[:, :, None] - w)[0] @ x.T).pow(2).sum())  # noqa: E731
    assert error(codes) < 0.7 * error(nearest)


def test_grouped_weights_are_rounded_per_group():
    torch.manual_seed(2)
    w = torch.randn(3, 1, 9, dtype=torch.float64)  # a depthwise 3x3 of three channels
    x = torch.randn(3, 50, 9, dtype=torch.float64)
    codes, _ = gptq.gptq(w, torch.einsum("gnk,gnm->gkm", x, x))
    alone, _ = gptq.gptq(w[1:2], (x[1].T @ x[1])[None])
    assert torch.equal(codes[1:2], alone)


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(4, 8, 3, padding=1)
        self.depthwise = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.bn = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8 * 6 * 6, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.bn(self.depthwise(torch.relu(self.conv(x)))))
        return self.fc(x.flatten(1))


def _model() -> Model:
    torch.manual_seed(4)
    model = Model().eval()
    with torch.no_grad():
        model.bn.running_var.uniform_(0.5, 2.0)
        model.bn.weight.uniform_(-1.5, 1.5)  # some negative: the fold flips a channel's sign
    return model


EXAMPLE = (torch.randn(1, 4, 6, 6),)
CALIBRATION = [torch.randn(8, 4, 6, 6) for _ in range(3)]


@pytest.fixture(scope="module")
def lowered() -> dict:
    example, calibration = EXAMPLE, CALIBRATION
    return {rounding: compiler.lower(_model(), example, calibration, report_fallbacks=False,
                                     quantizer=CortexMQuantizer(precision="a8w4", int4_rounding=rounding))
            for rounding in ("gptq", "nearest")}


def test_the_program_holds_gptqs_codes(lowered):
    """The codes GPTQ chose survive PT2E's observer and quantization (GridObserver): they differ
    from rounding to nearest's and equal GPTQ's own on the folded weights."""
    graphs = {r: read_program(p.to_bytes())[0] for r, p in lowered.items()}
    weights = {r: [g.tensors[op.inputs[1]] for op in g.ops if op.kind in ("conv2d", "depthwise_conv2d",
                                                                           "fully_connected")]
               for r, g in graphs.items()}
    assert [w.dtype for w in weights["gptq"]] == ["int4"] * 3
    for ours, nearest in zip(weights["gptq"], weights["nearest"]):
        assert not np.array_equal(ours.data, nearest.data)
        assert np.abs(ours.data).max() <= 7 and np.abs(nearest.data).max() == 7
    traced = export_float(_model(), EXAMPLE)
    quantizer = CortexMQuantizer(precision="a8w4")
    nodes = quantizer.gptq_nodes(traced)
    assert len(nodes) == 3
    runner = ExampleBatched(traced, EXAMPLE, ExampleBatched.output_batches_of(traced))
    gptq.round_int4_weights(traced, nodes, lambda: [runner(b) for b in CALIBRATION])
    for k, layout in enumerate((lambda c: c.permute(0, 2, 3, 1), lambda c: c[:, 0].permute(1, 2, 0))):
        weight = nodes[k].args[1]  # the conv, then the depthwise with the batch norm folded in
        rounded = attr_value(traced, weight.target)
        scale = rounded.abs().flatten(1).amax(dim=1) / weight.meta[gptq.LEVELS]
        codes = torch.round(rounded / scale[:, None, None, None])
        assert np.array_equal(layout(codes).numpy(), weights["gptq"][k].data)  # as the program lays them out


def test_gptq_moves_the_outputs_less_than_nearest(lowered):
    torch.manual_seed(9)
    x = torch.randn(32, 4, 6, 6)
    with torch.no_grad():
        expected = _model()(x)
    errors = {r: float((p.quantized_model(x).detach() - expected).pow(2).mean()) for r, p in lowered.items()}
    assert errors["gptq"] < errors["nearest"]


def test_nearest_rounding_and_int8_layers_take_no_gptq():
    graph = torch.fx.symbolic_trace(nn.Linear(3, 2))
    assert CortexMQuantizer(precision="a8w4", int4_rounding="nearest").gptq_nodes(graph) == []
    with pytest.raises(ValueError, match="int4_rounding"):
        CortexMQuantizer(int4_rounding="stochastic")
