"""The arithmetic operators' checks at load (minimum, maximum, batched matmul, transposed conv2d):
malformed ones are refused with EM_ERR_BAD_OPERATOR. Every kernel against the reference on every
device is the conformance suite's (tests/kernels/cases/minimum.py, maximum.py, add.py: sub,
batch_matmul.py, transpose_conv2d.py)."""
from __future__ import annotations

import numpy as np

from compiler.ir import Graph, Op, Quant, Tensor
from compiler.planner import Region, plan_memory
from compiler.program import Program
from compiler.target import Target
from tests.integration.runners import run

QUANT = Quant.per_tensor(0.05, 0)


def _refused(tmp_path, kind: str, inputs: list[tuple[str, np.ndarray]], out_shape, attrs: dict) -> None:
    """A program of the one op `kind` over constants `inputs` -> int8 `out_shape` fails to load."""
    tensors = {f"c{k}": Tensor(f"c{k}", dtype, values.shape, QUANT, values) for k, (dtype, values) in enumerate(inputs)}
    tensors["y"] = Tensor("y", "int8", out_shape, QUANT)
    graph = Graph(tensors, [Op(kind, [f"c{k}" for k in range(len(inputs))], ["y"], attrs)], [], ["y"])
    program = Program(graph, Target("host"), "arith", plan_memory(graph, Region("sram", 1 << 20)))
    code, console, _ = run("host", program, [], tmp_path)
    assert code != 0 and "EM_ERR_BAD_OPERATOR" in console, console


def test_malformed_operators_are_refused_at_load(tmp_path):
    i8 = lambda *shape: ("int8", np.zeros(shape, np.int8))  # noqa: E731
    _refused(tmp_path, "maximum", [i8(2, 3, 5, 2), i8(1, 1, 1, 17)], (2, 3, 5, 17), {})  # does not broadcast
    _refused(tmp_path, "minimum", [i8(2, 3, 5, 1), i8(1, 1, 1, 17)], (2, 3, 5, 1), {})  # y is not the broadcast
    bmm = dict(a_offset=0, b_offset=0, output_offset=0, output_multiplier=1 << 30, output_shift=0,
               activation_min=-128, activation_max=127)
    _refused(tmp_path, "batch_matmul", [i8(2, 3, 4), i8(2, 5, 6)], (2, 3, 6), bmm)  # depths differ
    _refused(tmp_path, "batch_matmul", [i8(2, 3, 4), i8(2, 4, 6)], (2, 3, 6), bmm | {"b_offset": 129})
    tconv = dict(stride=(2, 2), padding=(0, 0, 0, 0), input_offset=0, output_offset=0, activation_min=-128,
                 activation_max=127, multiplier=np.full(2, 1 << 30, np.int32), shift=np.zeros(2, np.int32))
    weights = [i8(1, 4, 4, 3), i8(2, 3, 3, 3), ("int32", np.zeros(2, np.int32))]
    _refused(tmp_path, "transpose_conv2d", weights, (1, 10, 10, 2), tconv)  # 9 x 9, not 10 x 10
    _refused(tmp_path, "transpose_conv2d", weights, (1, 9, 9, 2), tconv | {"shift": np.full(2, 31, np.int32)})
