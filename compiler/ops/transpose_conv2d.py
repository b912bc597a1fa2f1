"""transpose_conv2d: transposed 2-D convolution, NHWC int8, weights [C_OUT, KH, KW, C_IN],
bias [C_OUT] int32 without the input zero point folded in (see reference.transpose_conv2d_s8).

Lowering: dequantize → conv_transpose2d (+ activation) → quantize
becomes `transpose_conv2d`.

PyTorch's weights [C_IN, C_OUT, KH, KW] (output channels on axis 1) are laid out
[C_OUT, KH, KW, C_IN] for the kernel; the requantization is per output channel (per-tensor
weight scales are expanded to one entry per channel). The input zero point is NOT folded into the
bias: near the borders an output receives fewer taps than inside, so the kernel centres the input
(reference.transpose_conv2d_s8).
"""
from __future__ import annotations

import numpy as np
import torch
from torch.fx import Node

from compiler import reference
from compiler.aten_node import given_args, origin_of, pair
from compiler.errors import UnsupportedOpError
from compiler.ir import Graph, Op, Quant, Tensor
from compiler.ops.spec import Import, Lowering, OpSpec, tier_paths
from compiler.quantized_pattern import (QuantizedOp, add_constant, clamp_range, match, replace, weighted_constants)
from compiler.schema import program_generated as fb

aten = torch.ops.aten


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


def _output_channels_first(matched: QuantizedOp) -> QuantizedOp:
    """The same pattern with the weights as [C_OUT, C_IN, KH, KW] and their quantization on axis 0,
    the form weighted_constants reads."""
    x, (w, w_quant), *rest = matched.sources
    swapped = Tensor(w.name, w.dtype, (w.shape[1], w.shape[0], *w.shape[2:]), data=w.data.swapaxes(0, 1))
    # per tensor stays so; per output channel (axis 1) becomes axis 0; any other axis becomes one
    # weighted_constants refuses by name
    quant = Quant(w_quant.scale, w_quant.zero_point, {None: None, 1: 0}.get(w_quant.axis, -1), w_quant.quant_range)
    return QuantizedOp(matched.op, [x, (swapped, quant), *rest], matched.quantize, matched.out_quant)


def _lower(graph: Graph, conv: Op) -> None:
    matched = match(graph, conv, ("int8", "int8", "int32"), "conv_transpose2d")
    (x, x_quant) = matched.sources[0]
    constants = weighted_constants(_output_channels_first(matched), "conv_transpose2d")
    weights = constants.weights  # [C_OUT, C_IN, KH, KW]
    zp_in = int(x_quant.zero_point[0])
    bias = constants.folded_bias + zp_in * weights.reshape(weights.shape[0], -1).sum(axis=1, dtype=np.int64)
    stem = conv.outputs[0]
    weight_name = add_constant(graph, f"{stem}_weights", constants.weight_dtype, np.ascontiguousarray(weights.transpose(0, 2, 3, 1)),
                               constants.weight_quant)
    bias_name = add_constant(graph, f"{stem}_bias", "int32", bias.astype(np.int32))
    act_min, act_max = clamp_range(conv.attrs.get("activation"), matched.out_quant)
    replace(graph, matched, Op("transpose_conv2d", [x.name, weight_name, bias_name], [matched.output], {
        "stride": conv.attrs["stride"],
        "padding": conv.attrs["padding"],
        "input_offset": -zp_in,
        "output_offset": int(matched.out_quant.zero_point[0]),
        "activation_min": act_min,
        "activation_max": act_max,
        "multiplier": constants.multiplier,
        "shift": constants.shift,
    }, conv.origin))


def _import_conv_transpose2d(node: Node, args: list) -> tuple[str, dict]:
    _, _, stride, padding, output_padding, groups, dilation = given_args(
        node, (None, None, [1, 1], [0, 0], [0, 0], 1, [1, 1]))
    if int(groups) != 1 or pair(dilation) != (1, 1):
        raise UnsupportedOpError(f"conv_transpose2d with groups={groups}, dilation={list(pair(dilation))}",
                                 origin_of(node), "Ember's transposed convolution takes groups=1 and dilation=1.")
    (ph, pw), (oh, ow) = pair(padding), pair(output_padding)
    # PyTorch crops `padding` from both ends of the full output and adds `output_padding` at the
    # end: Ember's (top, bottom, left, right) crops, negative where rows are added.
    return "aten.conv_transpose2d", {"stride": pair(stride), "padding": (ph, ph - oh, pw, pw - ow)}


TRANSPOSE_CONV2D = OpSpec(
    kind="transpose_conv2d",
    opcode=fb.OpCode.TRANSPOSE_CONV_2D,
    options_type=fb.OpOptions.TransposeConv2DOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_transpose_conv2d",
    imports=(Import((aten.conv_transpose2d.input,), _import_conv_transpose2d, "weighted", weight_axis=1),),
    lowerings=(Lowering(("aten.conv_transpose2d",), _lower, after_folds=True, fuses_activation=True),),
    macs=_macs,
    path=tier_paths("MVE gather form (VMLADAVA.S16)", "DSP gather form (SMLAD)", "scalar gather form"),
    weighted=True,
)
