"""compiler.precision: the measured sensitivity of each layer and the choice it makes."""
from __future__ import annotations

import pytest
import torch
from torch import nn

import compiler
from compiler import precision
from compiler.precision import PrecisionError
from compiler.quantizer import CortexMQuantizer
from compiler.reader import read_program


class TwoBranches(nn.Module):
    """Two linear layers of one size; `rough`'s rows each hold one weight 40x the others, so 4
    bits leave its other weights on a code or two (the choice should keep it at int8)."""

    def __init__(self) -> None:
        super().__init__()
        self.smooth = nn.Linear(64, 48)
        self.rough = nn.Linear(64, 48)
        self.out = nn.Linear(96, 4)
        with torch.no_grad():
            self.rough.weight[:, 0] = 40 * self.rough.weight.abs().max()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(torch.relu(torch.cat([self.smooth(x), self.rough(x)], dim=1)))


@pytest.fixture(scope="module")
def setup():
    torch.manual_seed(0)
    model = TwoBranches().eval()
    return model, (torch.randn(1, 64),), [torch.randn(4, 64) for _ in range(4)]


def test_measure_sees_the_rough_layer_lose_more(setup):
    model, _, calibration = setup
    layers = {l.module: l for l in precision.measure(model, calibration)}
    assert set(layers) == {"smooth", "rough", "out"}
    assert layers["rough"].layer_sqnr_w4 < layers["smooth"].layer_sqnr_w4
    assert layers["rough"].output_noise_w4 > 20 * layers["smooth"].output_noise_w4
    assert all(l.layer_sqnr_w8 > l.layer_sqnr_w4 + 15 for l in layers.values())
    assert layers["smooth"].weights == 64 * 48


def test_a_flash_budget_puts_the_least_sensitive_layers_at_int4_and_is_met(setup, capsys):
    model, example, calibration = setup
    int8 = len(compiler.lower(model, example, calibration, report_fallbacks=False).to_bytes())
    budget = int8 - 64 * 48 // 2 + 200  # one of the two large layers at int4 is enough
    choice = precision.choose(model, example, calibration, flash_budget=budget)
    assert choice.chosen == {"smooth": "a8w4"}
    assert choice.int8_program_bytes == int8 and choice.program_bytes <= budget
    program = compiler.lower(model, example, calibration, quantizer=choice.quantizer(), report_fallbacks=False)
    assert len(program.to_bytes()) == choice.program_bytes
    graph, _, _ = read_program(program.to_bytes())
    dtypes = sorted(graph.tensors[op.inputs[1]].dtype for op in graph.ops if op.kind == "fully_connected")
    assert dtypes == ["int4", "int8", "int8"]
    printed = capsys.readouterr().err
    assert "| smooth | Linear | 3,072 |" in printed and "1 of 3 layers at a8w4" in printed


def test_an_output_sqnr_bound_takes_int4_layers_while_it_holds(setup):
    model, example, calibration = setup
    loose = precision.choose(model, example, calibration, min_output_sqnr_db=0.0, verbose=False)
    assert loose.chosen == {"smooth": "a8w4", "rough": "a8w4", "out": "a8w4"}
    layers = loose.layers
    bound = precision.predicted_sqnr(layers, {"smooth": "a8w4"}) - 0.01
    tight = precision.choose(model, example, calibration, min_output_sqnr_db=bound, verbose=False)
    assert "rough" not in tight.chosen and tight.predicted_output_sqnr_db >= bound
    assert set(tight.chosen.values()) == {"a8w4"}


def test_a_bound_above_int8_puts_the_noisiest_activations_at_int16(setup):
    model, example, calibration = setup
    layers = {l.module: l for l in precision.measure(model, calibration)}
    for layer in layers.values():  # int16 outputs: about 48 dB (2^8) less noise than int8 ones
        assert layer.layer_sqnr_a16 > layer.layer_sqnr_a8 + 40
        assert layer.output_noise_a16 < layer.output_noise_a8 / 1000 and layer.macs > 0
    int8 = precision.predicted_sqnr(list(layers.values()), {})
    choice = precision.choose(model, example, calibration, min_output_sqnr_db=int8 + 3.0, verbose=False)
    sixteen = [m for m, p in choice.chosen.items() if p == "a16w8"]
    assert sixteen and choice.predicted_output_sqnr_db >= int8 + 3.0
    # the first layer promoted removes the most noise per MAC
    best = max(layers.values(), key=lambda l: (l.output_noise_a8 - l.output_noise_a16) / l.macs)
    assert best.module in sixteen
    program = compiler.lower(model, example, calibration, quantizer=choice.quantizer(), report_fallbacks=False)
    sixteen_bit = [op for op in program.graph.ops
                   if op.kind == "fully_connected" and program.graph.tensors[op.outputs[0]].dtype == "int16"]
    assert len(sixteen_bit) == len(sixteen)
    with pytest.raises(PrecisionError, match="out of reach: with int16 activations in every layer"):
        precision.choose(model, example, calibration, min_output_sqnr_db=300.0, verbose=False)


def test_the_base_quantizers_own_precision_is_kept(setup):
    model, example, calibration = setup
    base = CortexMQuantizer(precision_modules={"rough": "a8w8"})
    choice = precision.choose(model, example, calibration, min_output_sqnr_db=0.0, quantizer=base, verbose=False)
    assert "rough" not in choice.chosen and choice.quantizer().precision_modules["rough"] == "a8w8"


def test_an_unreachable_budget_or_no_goal_is_named(setup):
    model, example, calibration = setup
    with pytest.raises(PrecisionError, match="out of reach: with every int4-capable layer at a8w4 it takes"):
        precision.choose(model, example, calibration, flash_budget=1000, verbose=False)
    with pytest.raises(PrecisionError, match="one of them"):
        precision.choose(model, example, calibration, verbose=False)
    with pytest.raises(PrecisionError, match="no calibration batches"):
        precision.measure(model, [])
