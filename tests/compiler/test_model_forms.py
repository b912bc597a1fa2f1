"""Forms of models the zoo's op cases do not show by their outputs alone: Python numbers as
forward arguments (folded at export), a weight several ops read (stored once), a value computed
twice (computed once), a division by a tensor (int8: a table of the divisor's reciprocal and
a product; float32 where the quantizer config skips it)."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

import compiler
from compiler.errors import CalibrationError
from compiler.quantizer import CortexMQuantizer


class Scaled(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.fc = nn.Linear(8, 4)

    def forward(self, x: torch.Tensor, gain: float, steps: int) -> torch.Tensor:
        return self.fc(x) * gain + steps


def test_python_numbers_as_arguments_are_folded_at_export():
    program = compiler.lower(Scaled(), (torch.randn(1, 8), 0.5, 3), [(torch.randn(2, 8), 0.5, 3)])
    assert program.graph.inputs == ["x"] and [op.kind for op in program.graph.ops] == [
        "quantize", "fully_connected", "lut", "dequantize"]
    x = np.random.default_rng(1).normal(size=(1, 8)).astype(np.float32)
    theirs = program.quantized_model(torch.from_numpy(x), 0.5, 3).numpy()
    scale = float(program.graph.producer(program.graph.outputs[0]).attrs["scale"])
    assert np.abs(np.rint((program.run_reference(x)[0] - theirs) / scale)).max() <= 1
    with pytest.raises(CalibrationError, match="exported with 0.5"):
        compiler.lower(Scaled(), (torch.randn(1, 8), 0.5, 3), [(torch.randn(2, 8), 0.25, 3)])


def _weights(program: compiler.Program) -> list[str]:
    return [op.inputs[1] for op in program.graph.ops if op.kind == "fully_connected"]


def test_a_weight_read_by_several_ops_is_stored_once():
    torch.manual_seed(0)
    shared = nn.Linear(8, 8)
    model = nn.Sequential(shared, nn.ReLU(), shared, nn.ReLU(), shared).eval()
    program = compiler.lower(model, (torch.zeros(1, 8),), [torch.randn(4, 8)])
    assert len(_weights(program)) == 3 and len(set(_weights(program))) == 1
    torch.manual_seed(0)
    gru = nn.GRU(6, 8, batch_first=True, bidirectional=True).eval()  # unrolls (a GRU op takes one direction)
    unrolled = compiler.lower(gru, (torch.zeros(1, 12, 6),), [torch.randn(2, 12, 6)])
    recurrent = [w for w in _weights(unrolled) if unrolled.graph.tensors[w].shape == (24, 8)]
    assert len(recurrent) >= 22 and len(set(recurrent)) == 2  # each direction's W_hh, one copy for every step


def test_a_value_computed_twice_is_computed_once():
    class Twice(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(8, 6)

        def forward(self, x):
            return torch.where(self.fc(x) > 0, self.fc(x), 0.1 * self.fc(x))  # a leaky ReLU

    program = compiler.lower(Twice().eval(), (torch.zeros(1, 8),), [torch.randn(4, 8)])
    assert [op.kind for op in program.graph.ops] == ["quantize", "fully_connected", "lut", "dequantize"]


class Normalize(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 6)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return self.fc(x) / (y.abs() + 0.5) + nn.functional.normalize(self.fc(x), dim=1)


def test_a_division_by_a_tensor_is_a_table_and_a_product_in_int8():
    torch.manual_seed(0)
    example = (torch.zeros(1, 8), torch.zeros(1, 6))
    calibration = [(torch.randn(8, 8), torch.randn(8, 6))]
    program = compiler.lower(Normalize().eval(), example, calibration, report_fallbacks=False)
    kinds = [op.kind for op in program.graph.ops]
    assert kinds.count("mul") == 2 and "float_binary" not in kinds, kinds
    rng = np.random.default_rng(2)
    x, y = (rng.normal(size=shape).astype(np.float32) for shape in ((1, 8), (1, 6)))
    theirs = program.quantized_model(torch.from_numpy(x), torch.from_numpy(y)).numpy()
    scale = float(program.graph.producer(program.graph.outputs[0]).attrs["scale"])
    assert np.abs(np.rint((program.run_reference(x, y)[0] - theirs) / scale)).max() <= 1
    skipped = compiler.lower(Normalize().eval(), example, calibration, report_fallbacks=False,
                             quantizer=CortexMQuantizer(skip_ops=("div",)))
    divisions = [op for op in skipped.graph.ops if op.kind == "float_binary" and op.attrs["function"] == "div"]
    assert len(divisions) == 2
