"""Conv2DOptions, shared by conv2d and depthwise_conv2d: op attrs <-> the schema table.

Attrs use the reference's keyword names: stride, dilation, padding (top, bottom, left, right),
groups, depth_multiplier, input_zero_point, output_offset, activation_min/max, multiplier, shift.
"""
from __future__ import annotations

import numpy as np

from compiler.ir import Op
from compiler.schema import program_generated as fb


def write(builder, op: Op) -> int:
    a = op.attrs
    multiplier = builder.CreateNumpyVector(np.ascontiguousarray(a["multiplier"], np.int32))
    shift = builder.CreateNumpyVector(np.ascontiguousarray(a["shift"], np.int32))
    top, bottom, left, right = a["padding"]
    fb.Conv2DOptionsStart(builder)
    fb.Conv2DOptionsAddStrideH(builder, a["stride"][0])
    fb.Conv2DOptionsAddStrideW(builder, a["stride"][1])
    fb.Conv2DOptionsAddDilationH(builder, a["dilation"][0])
    fb.Conv2DOptionsAddDilationW(builder, a["dilation"][1])
    fb.Conv2DOptionsAddPadTop(builder, top)
    fb.Conv2DOptionsAddPadBottom(builder, bottom)
    fb.Conv2DOptionsAddPadLeft(builder, left)
    fb.Conv2DOptionsAddPadRight(builder, right)
    fb.Conv2DOptionsAddGroups(builder, a.get("groups", 1))
    fb.Conv2DOptionsAddDepthMultiplier(builder, a.get("depth_multiplier", 1))
    fb.Conv2DOptionsAddInputZeroPoint(builder, a["input_zero_point"])
    fb.Conv2DOptionsAddOutputOffset(builder, a["output_offset"])
    fb.Conv2DOptionsAddActivationMin(builder, a["activation_min"])
    fb.Conv2DOptionsAddActivationMax(builder, a["activation_max"])
    fb.Conv2DOptionsAddOutputMultiplier(builder, multiplier)
    fb.Conv2DOptionsAddOutputShift(builder, shift)
    return fb.Conv2DOptionsEnd(builder)


def read(table) -> dict:
    o = fb.Conv2DOptions()
    o.Init(table.Bytes, table.Pos)
    return {
        "stride": (o.StrideH(), o.StrideW()),
        "dilation": (o.DilationH(), o.DilationW()),
        "padding": (o.PadTop(), o.PadBottom(), o.PadLeft(), o.PadRight()),
        "groups": o.Groups(),
        "depth_multiplier": o.DepthMultiplier(),
        "input_zero_point": o.InputZeroPoint(),
        "output_offset": o.OutputOffset(),
        "activation_min": o.ActivationMin(),
        "activation_max": o.ActivationMax(),
        "multiplier": o.OutputMultiplierAsNumpy().astype(np.int32),
        "shift": o.OutputShiftAsNumpy().astype(np.int32),
    }


COMMON = ("stride", "dilation", "padding", "input_zero_point", "output_offset", "activation_min", "activation_max")
