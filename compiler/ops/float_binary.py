"""float_binary: add, sub, mul, div, minimum, maximum of two float32 tensors with NumPy
broadcasting, then the output clamp (fallback). attrs["function"] names one of
reference.FLOAT_BINARY_FUNCTIONS (the schema's FloatBinaryFunction, in order)."""
from __future__ import annotations

import numpy as np
import torch
from torch.fx import Node

from compiler import reference
from compiler.aten_node import origin_of
from compiler.errors import UnsupportedOpError
from compiler.float_lowering import fused_clamp, kept
from compiler.ir import Graph, Op, Tensor
from compiler.ops.float_fully_connected import activation
from compiler.ops.spec import FLOAT_PATH, Import, OpSpec
from compiler.quantized_pattern import add_constant
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


def _nhwc_operand(graph: Graph, op: Op, name: str, out_rank: int) -> str:
    """A constant operand broadcast against a 4-D map, in the map's NHWC layout."""
    tensor = graph.tensors[name]
    if out_rank != 4 or tensor.data is None and len(tensor.shape) == 4:
        return name
    if tensor.data is None:
        raise UnsupportedOpError(f"float {op.attrs.get('function', op.kind)} of a rank-{len(tensor.shape)} tensor "
                                 "and a 4-D feature map", op.origin, "Give both operands 4 dimensions.")
    nchw = tensor.data.reshape((1,) * (4 - tensor.data.ndim) + tensor.data.shape)
    return add_constant(graph, f"{name}_nhwc", "float32", np.ascontiguousarray(nchw.transpose(0, 2, 3, 1)))


def _lower_float_binary(graph: Graph, op: Op) -> Op | list[Op]:
    function = {"aten.add": "add", "aten.mul": "mul", "aten.sub": "sub", "aten.minimum": "minimum",
                "aten.maximum": "maximum"}.get(op.kind) or op.attrs["function"]
    inputs = list(op.inputs)
    if "alpha" in op.attrs:  # a ± alpha·b: b scaled first
        b = graph.tensors[inputs[1]]
        scaled = graph.add_tensor(Tensor(graph.unique_name(f"{b.name}_alpha"), "float32", b.shape))
        alpha = Op("aten.binary", [b.name], [scaled.name], {"function": "mul", "scalar": op.attrs["alpha"],
                                                       "scalar_index": 1, "float_reason": op.attrs["float_reason"]},
                   op.origin)
        rest = Op(op.kind, [inputs[0], scaled.name], op.outputs,
                  {k: v for k, v in op.attrs.items() if k != "alpha"}, op.origin)
        return [_lower_float_binary(graph, alpha), _lower_float_binary(graph, rest)]
    if "scalar" in op.attrs:
        scalar = add_constant(graph, f"{op.outputs[0]}_scalar", "float32", np.array([op.attrs["scalar"]], np.float32))
        inputs.insert(op.attrs["scalar_index"], scalar)
    out_rank = len(graph.tensors[op.outputs[0]].shape)
    inputs = [_nhwc_operand(graph, op, name, out_rank) for name in inputs]
    return kept(op, "float_binary", inputs, {"function": function} | fused_clamp(op))


FLOAT_BINARY = OpSpec(
    kind="float_binary",
    opcode=fb.OpCode.FLOAT_BINARY,
    options_type=fb.OpOptions.FloatBinaryOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_float_binary",
    float_lowerings={kind: _lower_float_binary for kind in ("aten.add", "aten.mul", "aten.sub", "aten.minimum",
                                                                "aten.maximum", "aten.binary")},
    imports=(Import((aten.div.Tensor,), read_binary, float_only=True),),
    path=FLOAT_PATH,
)
