"""transpose_conv2d: transposed 2-D convolution, NHWC int8, weights [C_OUT, KH, KW, C_IN],
bias [C_OUT] int32 without the input zero point folded in (see reference.transpose_conv2d_s8)."""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.ir import Op
from compiler.ir import Graph
from compiler.ops.spec import OpSpec, tier_paths
from compiler.schema import program_generated as fb

SCALARS = ("input_offset", "output_offset", "activation_min", "activation_max")


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x, weights, bias = inputs
    a = op.attrs
    return [reference.transpose_conv2d_s8(x, weights, bias, a["multiplier"], a["shift"], stride=a["stride"],
                                          padding=a["padding"], **{k: a[k] for k in SCALARS})]


def _write(builder, op: Op) -> int:
    a = op.attrs
    multiplier = builder.CreateNumpyVector(np.ascontiguousarray(a["multiplier"], np.int32))
    shift = builder.CreateNumpyVector(np.ascontiguousarray(a["shift"], np.int32))
    top, bottom, left, right = a["padding"]
    fb.TransposeConv2DOptionsStart(builder)
    fb.TransposeConv2DOptionsAddStrideH(builder, a["stride"][0])
    fb.TransposeConv2DOptionsAddStrideW(builder, a["stride"][1])
    fb.TransposeConv2DOptionsAddPadTop(builder, top)
    fb.TransposeConv2DOptionsAddPadBottom(builder, bottom)
    fb.TransposeConv2DOptionsAddPadLeft(builder, left)
    fb.TransposeConv2DOptionsAddPadRight(builder, right)
    fb.TransposeConv2DOptionsAddInputOffset(builder, a["input_offset"])
    fb.TransposeConv2DOptionsAddOutputOffset(builder, a["output_offset"])
    fb.TransposeConv2DOptionsAddActivationMin(builder, a["activation_min"])
    fb.TransposeConv2DOptionsAddActivationMax(builder, a["activation_max"])
    fb.TransposeConv2DOptionsAddOutputMultiplier(builder, multiplier)
    fb.TransposeConv2DOptionsAddOutputShift(builder, shift)
    return fb.TransposeConv2DOptionsEnd(builder)


def _read(table) -> dict:
    o = fb.TransposeConv2DOptions()
    o.Init(table.Bytes, table.Pos)
    return {
        "stride": (o.StrideH(), o.StrideW()),
        "padding": (o.PadTop(), o.PadBottom(), o.PadLeft(), o.PadRight()),
        "input_offset": o.InputOffset(),
        "output_offset": o.OutputOffset(),
        "activation_min": o.ActivationMin(),
        "activation_max": o.ActivationMax(),
        "multiplier": o.OutputMultiplierAsNumpy().astype(np.int32),
        "shift": o.OutputShiftAsNumpy().astype(np.int32),
    }


def _macs(graph: Graph, op: Op) -> int:
    weight = graph.tensors[op.inputs[1]].shape  # [C_OUT, KH, KW, C_IN]: every input pixel scatters
    return int(np.prod(graph.tensors[op.inputs[0]].shape)) * int(np.prod(weight[:3]))


TRANSPOSE_CONV2D = OpSpec(
    kind="transpose_conv2d",
    opcode=fb.OpCode.TRANSPOSE_CONV_2D,
    options_type=fb.OpOptions.TransposeConv2DOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_transpose_conv2d",
    macs=_macs,
    path=tier_paths("MVE gather form (VMLADAVA.S16)", "DSP gather form (SMLAD)", "scalar gather form"),
    weighted=True,
)
