"""Channel concatenation as in detectors' necks (and along H): one shared quantization, so the
device copies codes; reference within 1 LSB of PyTorch, host and M55 equal to the reference."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

import compiler
from compiler.ir import Graph, Op, Quant, Tensor
from compiler.planner import Region, plan_memory
from compiler.program import Program
from compiler.target import Target
from tests.integration.agreement import lsb_differences
from tests.integration.runners import DEVICES, output_of, run

SHAPE = (1, 5, 6, 7)


class Neck(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(4)
        self.a, self.b, self.c = nn.Conv2d(5, 8, 3, padding=1), nn.Conv2d(5, 3, 1), nn.Conv2d(11, 4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        joined = torch.cat([torch.relu(self.a(x)), self.b(x)], dim=1)  # channels: NHWC's last axis
        return torch.cat([self.c(joined), self.c(joined)], dim=2)  # along H


def _program(target: str) -> compiler.Program:
    calibration = [torch.randn(2, *SHAPE[1:], generator=torch.Generator().manual_seed(i)) for i in range(6)]
    return compiler.lower(Neck().eval(), (torch.zeros(SHAPE),), calibration, target=target)


def test_reference_agrees_with_pytorch():
    program = _program("cortex-m55")
    assert [op.kind for op in program.graph.ops].count("concatenation") == 2
    x = torch.randn(8, *SHAPE[1:], generator=torch.Generator().manual_seed(8))
    lsb = lsb_differences(program, x)
    assert np.abs(lsb).max() <= 1 and (lsb == 0).mean() >= 0.99


@pytest.mark.parametrize("board,target", DEVICES)
def test_device_equals_reference(tmp_path, board, target):
    program = _program(target)
    image = np.random.default_rng(5).normal(size=(1, SHAPE[2], SHAPE[3], SHAPE[1])).astype(np.float32)
    got = np.frombuffer(output_of(board, program, [image], tmp_path), np.float32)
    np.testing.assert_array_equal(got, program.run_reference(image)[0].reshape(-1))


def test_mismatched_shapes_are_refused_at_load(tmp_path):
    quant = Quant.per_tensor(0.1, 0)
    tensors = {"a": Tensor("a", "int8", (1, 2, 3, 4), quant), "b": Tensor("b", "int8", (1, 2, 4, 4), quant),
               "y": Tensor("y", "int8", (1, 2, 3, 8), quant)}
    graph = Graph(tensors, [Op("concatenation", ["a", "b"], ["y"], {"axis": 3})], ["a", "b"], ["y"])
    program = Program(graph, Target("host"), "bad", plan_memory(graph, Region("sram", 1 << 16)))
    code, console, _ = run("host", program, [], tmp_path)
    assert code != 0 and "EM_ERR_BAD_OPERATOR" in console
