"""float_max_pool2d and float_avg_pool2d: NHWC float32 pooling (fallback)."""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.float_lowering import kept
from compiler.ir import Graph, Op
from compiler.ops.float_fully_connected import activation
from compiler.ops.spec import FLOAT_PATH, OpSpec
from compiler.schema import program_generated as fb


WINDOW = ("kernel", "stride", "padding")


def _max_reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [reference.float_max_pool_f32(inputs[0], **{k: op.attrs[k] for k in WINDOW}, **activation(op))]


def _avg_reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [reference.float_avg_pool_f32(inputs[0], count_include_pad=op.attrs["count_include_pad"],
                                         **{k: op.attrs[k] for k in WINDOW}, **activation(op))]


def _write(builder, op: Op) -> int:
    a, act = op.attrs, activation(op)
    top, bottom, left, right = a["padding"]
    fb.FloatPool2DOptionsStart(builder)
    fb.FloatPool2DOptionsAddKernelH(builder, a["kernel"][0])
    fb.FloatPool2DOptionsAddKernelW(builder, a["kernel"][1])
    fb.FloatPool2DOptionsAddStrideH(builder, a["stride"][0])
    fb.FloatPool2DOptionsAddStrideW(builder, a["stride"][1])
    fb.FloatPool2DOptionsAddPadTop(builder, top)
    fb.FloatPool2DOptionsAddPadBottom(builder, bottom)
    fb.FloatPool2DOptionsAddPadLeft(builder, left)
    fb.FloatPool2DOptionsAddPadRight(builder, right)
    fb.FloatPool2DOptionsAddCountIncludePad(builder, a.get("count_include_pad", True))
    fb.FloatPool2DOptionsAddActivationMin(builder, act["activation_min"])
    fb.FloatPool2DOptionsAddActivationMax(builder, act["activation_max"])
    return fb.FloatPool2DOptionsEnd(builder)


def _read(table) -> dict:
    o = fb.FloatPool2DOptions()
    o.Init(table.Bytes, table.Pos)
    return {"kernel": (o.KernelH(), o.KernelW()), "stride": (o.StrideH(), o.StrideW()),
            "padding": (o.PadTop(), o.PadBottom(), o.PadLeft(), o.PadRight()),
            "count_include_pad": bool(o.CountIncludePad()), "activation_min": o.ActivationMin(),
            "activation_max": o.ActivationMax()}


def _lower_float_pool(graph: Graph, op: Op) -> Op:
    attrs = {k: op.attrs[k] for k in ("kernel", "stride", "padding")}
    if op.kind == "aten.avg_pool2d":
        return kept(op, "float_avg_pool2d", op.inputs, attrs | {"count_include_pad": op.attrs["count_include_pad"]})
    return kept(op, "float_max_pool2d", op.inputs, attrs)


FLOAT_MAX_POOL2D = OpSpec(
    kind="float_max_pool2d",
    opcode=fb.OpCode.FLOAT_MAX_POOL_2D,
    options_type=fb.OpOptions.FloatPool2DOptions,
    reference=_max_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_float_max_pool2d",
    float_lowerings={"aten.max_pool2d": _lower_float_pool, "aten.avg_pool2d": _lower_float_pool},
    path=FLOAT_PATH,
)

FLOAT_AVG_POOL2D = OpSpec(
    kind="float_avg_pool2d",
    opcode=fb.OpCode.FLOAT_AVG_POOL_2D,
    options_type=fb.OpOptions.FloatPool2DOptions,
    reference=_avg_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_float_avg_pool2d",
    path=FLOAT_PATH,
)
