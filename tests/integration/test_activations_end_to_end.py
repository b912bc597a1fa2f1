"""Elementwise activations as 256-entry tables, and softmax: the reference within 1 LSB of
PyTorch's quantized model, and the host and Cortex-M55 runners equal to the reference (odd
sizes exercise the MVE gather's predicated tail)."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn
from torch.nn import functional as F

import compiler
from tests.integration.agreement import lsb_differences
from tests.integration.runners import DEVICES, output_of, run


class Activations(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.a, self.b, self.c, self.d = nn.Linear(12, 37), nn.Linear(37, 37), nn.Linear(37, 19), nn.Linear(19, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.sigmoid(self.a(x))
        y = torch.tanh(self.b(y))
        y = F.gelu(F.hardswish(self.c(y)))  # two tables in a row: each has its own scales
        shared = self.d(y)
        y = F.leaky_relu(shared, 0.1) + torch.relu(shared)  # a ReLU that cannot fold: a table
        return torch.softmax(y, dim=-1)


def _program(target: str) -> compiler.Program:
    calibration = [torch.randn(8, 12, generator=torch.Generator().manual_seed(i)) for i in range(8)]
    return compiler.lower(Activations().eval(), (torch.zeros(1, 12),), calibration, target=target)


def test_tables_make_the_reference_equal_to_pytorch():
    program = _program("cortex-m55")
    # sigmoid, tanh, gelu∘hardswish and leaky_relu(s) + relu(s) (pointwise functions of one tensor: one table each)
    assert [op.kind for op in program.graph.ops].count("lut") == 4
    x = torch.randn(128, 12, generator=torch.Generator().manual_seed(5)) * 2
    lsb = lsb_differences(program, x)
    assert np.abs(lsb).max() <= 1 and (lsb == 0).mean() >= 0.99  # the add may differ by 1 LSB


@pytest.mark.parametrize("board,target", DEVICES)
def test_device_tables_equal_the_reference(tmp_path, board, target):
    program = _program(target)
    x = (np.random.default_rng(1).normal(size=(1, 12)) * 3).astype(np.float32)
    got = np.frombuffer(output_of(board, program, [x], tmp_path), np.float32)
    np.testing.assert_array_equal(got, program.run_reference(x)[0].reshape(-1))


def test_a_table_of_the_wrong_size_is_refused_at_load(tmp_path):
    program = _program("host")
    lut = next(op for op in program.graph.ops if op.kind == "lut")
    table = program.graph.tensors[lut.inputs[1]]
    table.data, table.shape = table.data[:255].copy(), (255,)
    code, console, _ = run("host", program, [], tmp_path)
    assert code != 0 and "EM_ERR_BAD_OPERATOR" in console
