"""float_binary: add, sub, mul, div, minimum, maximum of two float32 tensors with NumPy
broadcasting, then the output clamp (fallback). attrs["function"] names one of
reference.FLOAT_BINARY_FUNCTIONS (the schema's FloatBinaryFunction, in order)."""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.ir import Op
from compiler.ops.float_fully_connected import activation
from compiler.ops.spec import FLOAT_PATH, OpSpec
from compiler.schema import program_generated as fb


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [reference.float_binary_f32(inputs[0], inputs[1], function=op.attrs["function"], **activation(op))]


def _write(builder, op: Op) -> int:
    act = activation(op)
    fb.FloatBinaryOptionsStart(builder)
    fb.FloatBinaryOptionsAddFunction(builder, reference.FLOAT_BINARY_FUNCTIONS.index(op.attrs["function"]))
    fb.FloatBinaryOptionsAddActivationMin(builder, act["activation_min"])
    fb.FloatBinaryOptionsAddActivationMax(builder, act["activation_max"])
    return fb.FloatBinaryOptionsEnd(builder)


def _read(table) -> dict:
    o = fb.FloatBinaryOptions()
    o.Init(table.Bytes, table.Pos)
    return {"function": reference.FLOAT_BINARY_FUNCTIONS[o.Function()],
            "activation_min": o.ActivationMin(), "activation_max": o.ActivationMax()}


FLOAT_BINARY = OpSpec(
    kind="float_binary",
    opcode=fb.OpCode.FLOAT_BINARY,
    options_type=fb.OpOptions.FloatBinaryOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_float_binary",
    path=FLOAT_PATH,
)
