"""int8 softmax on rows chosen to break it: flat rows, extremes, one dominant value, values
below the radius, long rows — the host and Cortex-M55 runners against reference.softmax_s8."""
from __future__ import annotations

import numpy as np
import pytest

from compiler.ir import Graph, Op, Quant, Tensor
from compiler.planner import Region, plan_memory
from compiler.program import Program
from compiler.reference import softmax_parameters
from compiler.target import Target
from tests.integration.runners import DEVICES, output_of


def _rows(width: int) -> np.ndarray:
    rng = np.random.default_rng(width)
    rows = [np.full(width, 7), np.full(width, -128), np.full(width, 127), np.arange(width) % 256 - 128,
            np.where(np.arange(width) == width // 2, 127, -128), rng.integers(-128, 128, width),
            rng.integers(100, 128, width)]
    return np.stack(rows).astype(np.int8)


def _program(target: str, rows: np.ndarray, input_scale: float) -> Program:
    shape = rows.shape
    graph = Graph({"x": Tensor("x", "int8", shape, Quant.per_tensor(input_scale, 0)),
                   "y": Tensor("y", "int8", shape, Quant.per_tensor(1 / 256, -128))},
                  [Op("softmax", ["x"], ["y"], softmax_parameters(input_scale))], ["x"], ["y"])
    plan = plan_memory(graph, Region("sram", 1 << 20))
    return Program(graph, Target(target), "softmax", plan)


@pytest.mark.parametrize("board,target", DEVICES)
@pytest.mark.parametrize("width,input_scale", [(1, 0.1), (12, 0.05), (37, 0.5), (300, 0.02), (10, 4.0)])
def test_softmax_rows_equal_the_reference(tmp_path, board, target, width, input_scale):
    rows = _rows(width)
    program = _program(target, rows, input_scale)
    got = np.frombuffer(output_of(board, program, [rows], tmp_path), np.int8).reshape(rows.shape)
    np.testing.assert_array_equal(got, program.run_reference(rows)[0])
    assert np.all(got[0] == got[0][0])  # a flat row stays flat
