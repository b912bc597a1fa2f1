"""int8 mul: shapes that do not broadcast are refused at load. Every broadcast form on every
device, against the reference, is the conformance suite's (tests/kernels/cases/mul.py)."""
from __future__ import annotations

import pytest

from compiler.fixedpoint import quantize_multiplier
from compiler.ir import Graph, Op, Quant, Tensor
from compiler.planner import Region, plan_memory
from compiler.program import Program
from compiler.target import Target
from tests.integration.runners import run
OUT = (2, 3, 5, 17)


def _program(target: str, a_shape, b_shape, a_zp: int, b_zp: int, real: float) -> Program:
    multiplier, shift = quantize_multiplier(real)
    tensors = {"a": Tensor("a", "int8", a_shape, Quant.per_tensor(0.1, a_zp)),
               "b": Tensor("b", "int8", b_shape, Quant.per_tensor(0.1, b_zp)),
               "y": Tensor("y", "int8", OUT, Quant.per_tensor(0.1, 3))}
    attrs = {"a_offset": -a_zp, "b_offset": -b_zp, "output_offset": 3, "output_multiplier": multiplier,
             "output_shift": shift, "activation_min": -100, "activation_max": 120}
    graph = Graph(tensors, [Op("mul", ["a", "b"], ["y"], attrs)], ["a", "b"], ["y"])
    return Program(graph, Target(target), "mul", plan_memory(graph, Region("sram", 1 << 20)))


@pytest.mark.parametrize("a_shape,b_shape", [((2, 3, 5, 2), (1, 1, 1, 17)), ((2, 3, 5, 17), (3, 3, 1, 1)),
                                             ((2, 3, 5, 1), (1, 1, 1, 1))])  # the last: y is not the broadcast
def test_shapes_that_do_not_broadcast_are_refused_at_load(tmp_path, a_shape, b_shape):
    program = _program("host", a_shape, b_shape, a_zp=0, b_zp=0, real=0.5)
    code, console, _ = run("host", program, [], tmp_path)
    assert code != 0 and "EM_ERR_BAD_OPERATOR" in console
