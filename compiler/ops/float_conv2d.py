"""float_conv2d: grouped 2-D convolution, NHWC float32 (depthwise: groups = C_IN), weights
[C_OUT, KH, KW, C_IN / groups] (fallback)."""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.float_lowering import bias_or_zeros, float_constant, fused_clamp, kept
from compiler.ir import Graph, Op
from compiler.ops.float_fully_connected import activation
from compiler.ops.spec import FLOAT_PATH, OpSpec
from compiler.quantized_pattern import add_constant
from compiler.schema import program_generated as fb


GEOMETRY = ("stride", "dilation", "padding", "groups")


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x, weights, bias = inputs
    return [reference.float_conv2d_f32(x, weights, bias, **{k: op.attrs[k] for k in GEOMETRY}, **activation(op))]


def _write(builder, op: Op) -> int:
    a, act = op.attrs, activation(op)
    top, bottom, left, right = a["padding"]
    fb.FloatConv2DOptionsStart(builder)
    fb.FloatConv2DOptionsAddStrideH(builder, a["stride"][0])
    fb.FloatConv2DOptionsAddStrideW(builder, a["stride"][1])
    fb.FloatConv2DOptionsAddDilationH(builder, a["dilation"][0])
    fb.FloatConv2DOptionsAddDilationW(builder, a["dilation"][1])
    fb.FloatConv2DOptionsAddPadTop(builder, top)
    fb.FloatConv2DOptionsAddPadBottom(builder, bottom)
    fb.FloatConv2DOptionsAddPadLeft(builder, left)
    fb.FloatConv2DOptionsAddPadRight(builder, right)
    fb.FloatConv2DOptionsAddGroups(builder, a["groups"])
    fb.FloatConv2DOptionsAddActivationMin(builder, act["activation_min"])
    fb.FloatConv2DOptionsAddActivationMax(builder, act["activation_max"])
    return fb.FloatConv2DOptionsEnd(builder)


def _read(table) -> dict:
    o = fb.FloatConv2DOptions()
    o.Init(table.Bytes, table.Pos)
    return {"stride": (o.StrideH(), o.StrideW()), "dilation": (o.DilationH(), o.DilationW()),
            "padding": (o.PadTop(), o.PadBottom(), o.PadLeft(), o.PadRight()), "groups": o.Groups(),
            "activation_min": o.ActivationMin(), "activation_max": o.ActivationMax()}


def _lower_float_conv2d(graph: Graph, op: Op) -> Op:
    weights = float_constant(graph, op.inputs[1], op, "weights")  # [O, I/g, KH, KW]
    laid_out = add_constant(graph, f"{op.outputs[0]}_weights", "float32",
                            np.ascontiguousarray(weights.transpose(0, 2, 3, 1)))
    attrs = {k: op.attrs[k] for k in ("stride", "dilation", "padding", "groups")}
    return kept(op, "float_conv2d", [op.inputs[0], laid_out, bias_or_zeros(graph, op, weights.shape[0])],
                 attrs | fused_clamp(op))


FLOAT_CONV2D = OpSpec(
    kind="float_conv2d",
    opcode=fb.OpCode.FLOAT_CONV_2D,
    options_type=fb.OpOptions.FloatConv2DOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_float_conv2d",
    float_lowerings={"aten.conv2d": _lower_float_conv2d},
    path=FLOAT_PATH,
    weighted=True,
)
