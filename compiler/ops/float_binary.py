"""float_binary: add, sub, mul, div, minimum, maximum of two float32 tensors with NumPy
broadcasting, then the output clamp (fallback). attrs["function"] names one of
reference.FLOAT_BINARY_FUNCTIONS (the schema's FloatBinaryFunction, in order)."""
from __future__ import annotations

import numpy as np

import torch
from torch.fx import Node

from compiler.aten_node import origin_of
from compiler.errors import UnsupportedOpError
from compiler import reference
from compiler.ir import Op
from compiler.ops.float_fully_connected import activation
from compiler.ops.spec import FLOAT_PATH, Import, OpSpec
from compiler.schema import program_generated as fb

aten = torch.ops.aten


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


# Float-only ops: no int8 lowering, float32 kernels (compiler/passes/lower_float_ops.py).
BINARY_FUNCTIONS = {aten.add.Tensor: "add", aten.sub.Tensor: "sub", aten.mul.Tensor: "mul", aten.div.Tensor: "div",
                    aten.minimum.default: "minimum", aten.maximum.default: "maximum"}


def read_binary(node: Node, args: list) -> tuple[str, dict]:
    """A float elementwise op of two tensors, or of a tensor and a Python number (kept in attrs
    as `scalar`, at operand position `scalar_index`)."""
    if node.kwargs.get("alpha", 1) != 1 or node.kwargs.get("rounding_mode") is not None:
        raise UnsupportedOpError(f"{node.target} with {dict(node.kwargs)}", origin_of(node),
                                 "Only the plain elementwise form has a float kernel.")
    attrs = {"function": BINARY_FUNCTIONS[node.target]}
    scalars = [(i, a) for i, a in enumerate(node.args[:2]) if not isinstance(a, Node)]
    if scalars:
        (index, value), = scalars
        attrs |= {"scalar": float(value), "scalar_index": index}
    return "aten.binary", attrs


FLOAT_BINARY = OpSpec(
    kind="float_binary",
    opcode=fb.OpCode.FLOAT_BINARY,
    options_type=fb.OpOptions.FloatBinaryOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_float_binary",
    imports=(Import((aten.div.Tensor,), read_binary, float_only=True),),
    path=FLOAT_PATH,
)
