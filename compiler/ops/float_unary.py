"""float_unary: an elementwise float32 function (clamp, sigmoid, tanh, exp, log, sqrt, rsqrt, abs,
neg, GELU, SiLU, hardswish, hardsigmoid, leaky ReLU) (fallback). attrs["function"] names one of
reference.FLOAT_UNARY_FUNCTIONS (the schema's FloatUnaryFunction, in order); alpha, min, max."""
from __future__ import annotations

import numpy as np
import torch
from torch.fx import Node

from compiler import reference
from compiler.float_lowering import kept
from compiler.ir import Graph, Op
from compiler.ops.spec import FLOAT_PATH, Import, OpSpec
from compiler.schema import program_generated as fb

aten = torch.ops.aten


def _params(op: Op) -> dict:
    a = op.attrs
    return {"alpha": float(a.get("alpha", 0.0)), "min": float(a.get("min", -np.inf)), "max": float(a.get("max", np.inf))}


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [reference.float_unary_f32(inputs[0], function=op.attrs["function"], **_params(op))]


def _write(builder, op: Op) -> int:
    p = _params(op)
    fb.FloatUnaryOptionsStart(builder)
    fb.FloatUnaryOptionsAddFunction(builder, reference.FLOAT_UNARY_FUNCTIONS.index(op.attrs["function"]))
    fb.FloatUnaryOptionsAddAlpha(builder, p["alpha"])
    fb.FloatUnaryOptionsAddMin(builder, p["min"])
    fb.FloatUnaryOptionsAddMax(builder, p["max"])
    return fb.FloatUnaryOptionsEnd(builder)


def _read(table) -> dict:
    o = fb.FloatUnaryOptions()
    o.Init(table.Bytes, table.Pos)
    return {"function": reference.FLOAT_UNARY_FUNCTIONS[o.Function()], "alpha": o.Alpha(), "min": o.Min(),
            "max": o.Max()}


UNARY_FUNCTIONS = {aten.exp.default: "exp", aten.log.default: "log", aten.sqrt.default: "sqrt",
                   aten.rsqrt.default: "rsqrt", aten.abs.default: "abs", aten.neg.default: "neg"}


def _import_unary(node: Node, args: list) -> tuple[str, dict]:
    return "aten.unary", {"function": UNARY_FUNCTIONS[node.target]}


# aten.elementwise ops by name → float_unary function
ELEMENTWISE_FUNCTIONS = {"aten.sigmoid.default": "sigmoid", "aten.tanh.default": "tanh",
                         "aten.hardswish.default": "hardswish", "aten.hardsigmoid.default": "hardsigmoid",
                         "aten.leaky_relu.default": "leaky_relu", "aten.gelu.default": "gelu",
                         "aten.silu.default": "silu"}


LEAKY_RELU_DEFAULT_SLOPE = 0.01


def _lower_float_clamp(graph: Graph, op: Op) -> Op:
    return kept(op, "float_unary", op.inputs, {"function": "clamp", "min": op.attrs["min"], "max": op.attrs["max"]})


def _lower_float_elementwise(graph: Graph, op: Op) -> Op:
    name = op.attrs["name"]
    function = ELEMENTWISE_FUNCTIONS[name]
    args, kwargs = op.attrs.get("args", ()), op.attrs.get("kwargs", {})
    attrs = {"function": function}
    if function == "leaky_relu":
        attrs["alpha"] = float(args[0] if args else kwargs.get("negative_slope", LEAKY_RELU_DEFAULT_SLOPE))
    if function == "gelu" and (args[0] if args else kwargs.get("approximate", "none")) == "tanh":
        attrs["function"] = "gelu_tanh"
    return kept(op, "float_unary", op.inputs, attrs)


def _lower_float_unary(graph: Graph, op: Op) -> Op:
    return kept(op, "float_unary", op.inputs, {"function": op.attrs["function"]})


FLOAT_UNARY = OpSpec(
    kind="float_unary",
    opcode=fb.OpCode.FLOAT_UNARY,
    options_type=fb.OpOptions.FloatUnaryOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_float_unary",
    float_lowerings={"aten.clamp": _lower_float_clamp, "aten.elementwise": _lower_float_elementwise,
                     "aten.unary": _lower_float_unary},
    imports=(Import(tuple(UNARY_FUNCTIONS), _import_unary, float_only=True),),
    path=FLOAT_PATH,
)
