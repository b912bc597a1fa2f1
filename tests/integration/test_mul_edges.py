"""int8 mul over the broadcast forms (same shape, channel row, scalar, and general NumPy
broadcasts: both operands broadcast, a middle axis, mixed ranks), edge values and offsets at both
ends, on the host and Cortex-M55 runners against reference.mul_s8; shapes that do not broadcast
are refused at load."""
from __future__ import annotations

import numpy as np
import pytest

from compiler.fixedpoint import quantize_multiplier
from compiler.ir import Graph, Op, Quant, Tensor
from compiler.planner import Region, plan_memory
from compiler.program import Program
from compiler.reference import mul_s8
from compiler.target import Target
from tests.integration.runners import DEVICES, output_of, run
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


@pytest.mark.parametrize("board,target", DEVICES)
@pytest.mark.parametrize("a_shape,b_shape", [(OUT, OUT), (OUT, (1, 1, 1, 17)), ((17,), OUT), (OUT, (1,)), ((1, 1, 1, 1), OUT),
                                             ((2, 3, 5, 1), (1, 1, 1, 17)), ((3, 1, 17), (2, 1, 5, 1)), (OUT, (2, 1, 5, 17))])
def test_mul_equals_reference(tmp_path, board, target, a_shape, b_shape):
    program = _program(target, a_shape, b_shape, a_zp=-128, b_zp=127, real=0.37)
    rng = np.random.default_rng(len(a_shape) * 10 + len(b_shape))
    a = rng.integers(-128, 128, a_shape).astype(np.int8)
    b = rng.integers(-128, 128, b_shape).astype(np.int8)
    a.reshape(-1)[0], b.reshape(-1)[-1] = -128, 127
    want = mul_s8(a, b, **program.graph.ops[0].attrs)
    np.testing.assert_array_equal(program.run_reference(a, b)[0], want)
    got = np.frombuffer(output_of(board, program, [a, b], tmp_path), np.int8).reshape(OUT)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("a_shape,b_shape", [((2, 3, 5, 2), (1, 1, 1, 17)), ((2, 3, 5, 17), (3, 3, 1, 1)),
                                             ((2, 3, 5, 1), (1, 1, 1, 1))])  # the last: y is not the broadcast
def test_shapes_that_do_not_broadcast_are_refused_at_load(tmp_path, a_shape, b_shape):
    program = _program("host", a_shape, b_shape, a_zp=0, b_zp=0, real=0.5)
    code, console, _ = run("host", program, [], tmp_path)
    assert code != 0 and "EM_ERR_BAD_OPERATOR" in console
