"""conv2d: grouped 2-D convolution, NHWC int8, weights [C_OUT, KH, KW, C_IN / groups].

Lowering: dequantize → conv2d (+ activation) → quantize becomes `conv2d`, or
`depthwise_conv2d` when every input channel is its own group.

Weights are laid out for the kernels ahead of time (PyTorch's [O, I/g, KH, KW] becomes
[O, KH, KW, I/g]; depthwise [C·M, 1, KH, KW] becomes [KH, KW, C·M]); the bias folds in the input
zero point and padding cells hold it (see reference.conv2d_s8), so the kernels never subtract it.
"""
from __future__ import annotations

import ctypes

import numpy as np
import torch
from torch.fx import Node

from compiler import reference, streaming
from compiler.aten_node import given_args, origin_of, pair
from compiler.errors import UnsupportedOpError
from compiler.ir import Graph, Op
from compiler.ops import conv_options, overlap
from compiler.ops.conv_options import CONV2D_STACK_SCRATCH, inside, planned_scratch, round_up
from compiler.ops.int16_path import is_int16
from compiler.ops.spec import Import, Lowering, OpSpec, each_op
from compiler.quantized_pattern import (ACTIVATION, activation_dtype, add_constant, clamp_range, match, replace,
                                       weighted_constants)
from compiler.schema import program_generated as fb

aten = torch.ops.aten


# em_nn_conv2d_mve.h: EM_NN_CONV_BLOCK (MVE pixels per block); DSP pairs pay from K = 32.
CONV_MVE_BLOCK = 4
CONV_DSP_PAIRS_MIN_K = 32


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x, weights, bias = inputs
    a = op.attrs
    kwargs = {k: a[k] for k in conv_options.COMMON}
    if x.dtype == np.int16:  # A16W8: zero points 0, no output offset
        kwargs = {k: v for k, v in kwargs.items() if k not in conv_options.INT8_ONLY}
        return [reference.conv2d_s16(x, weights, bias, a["multiplier"], a["shift"], groups=a["groups"], **kwargs)]
    return [reference.conv2d_s8(x, weights, bias, a["multiplier"], a["shift"], groups=a["groups"], **kwargs)]


def _macs(graph: Graph, op: Op) -> int:
    weight = graph.tensors[op.inputs[1]].shape  # [C_OUT, KH, KW, C_IN / groups]
    return int(np.prod(graph.tensors[op.outputs[0]].shape)) * int(np.prod(weight[1:]))


def _in_place(graph: Graph, op: Op, index: int) -> int | None:
    if index != 0 or not conv_options.well_formed(graph, op, 4) or graph.tensors[op.inputs[0]].dtype != "int8":
        return None  # the int16 kernels (A16W8) read and write in an order of their own
    return overlap.sliding_window(graph, op, (1, 2))


def _scratch(lib: ctypes.CDLL, graph: Graph, op: Op) -> int:
    if not conv_options.well_formed(graph, op, 4):
        return 0
    _, kh, kw, _ = graph.tensors[op.inputs[1]].shape
    sizing = "em_conv2d_s16_get_buffer_size" if is_int16(graph, op) else "em_conv2d_s8_get_buffer_size"
    return conv_options.buffer_size(lib, sizing, graph, op, (kh, kw))


def _path_s16(graph: Graph, op: Op, tier: str) -> str:
    """em_conv2d_s16.c: a pixel's column is the input itself (a 1x1, or a 1xKW row of groups 1,
    inside the input), else packed into the scratch (one column, em_conv2d_s16_get_buffer_size),
    else read tap by tap; em_nn_rows_s16.c computes the output channels from it."""
    _, kh, kw, _ = graph.tensors[op.inputs[1]].shape
    in_place, pixels = _in_place_columns(graph, op)
    packs = planned_scratch(graph, op, CONV2D_STACK_SCRATCH) >= round_up(2 * _column_bytes(graph, op), 16)
    sum32 = conv_options.s16_sum32(graph, op, _column_bytes(graph, op))
    if kh == kw == 1 and not any(op.attrs["padding"]):
        columns = "1x1 pointwise, in place" + (", each 4 channels over all pixels" if tier == "mve" and sum32 else "")
    elif in_place == pixels:
        columns = f"1x{kw} rows in place"
    else:
        columns = ("in place, im2col at the borders" if in_place else "im2col") if packs else "taps in place (no scratch)"
    return f"{columns}; {conv_options.rows_s16_loop(tier, sum32)}"


def _in_place_columns(graph: Graph, op: Op) -> tuple[int, int]:
    """em_nn_conv_in_place(): (pixels whose column is the input itself, all output pixels) — a
    column is in place for KH 1, KW 1 or dilation_w 1, groups 1, the window inside the input."""
    _, h, w, _ = graph.tensors[op.inputs[0]].shape
    _, kh, kw, _ = graph.tensors[op.inputs[1]].shape
    _, oh, ow, _ = graph.tensors[op.outputs[0]].shape
    a = op.attrs
    (sh, sw), (_, dw), (top, _, left, _) = a["stride"], a["dilation"], a["padding"]
    contiguous = kh == 1 and (kw == 1 or dw == 1) and a.get("groups", 1) == 1
    return (inside(oh, sh, top, 0, h) * inside(ow, sw, left, kw - 1, w) if contiguous else 0), oh * ow


def _column_bytes(graph: Graph, op: Op) -> int:
    _, kh, kw, cg = graph.tensors[op.inputs[1]].shape
    return kh * kw * cg


def _path(graph: Graph, op: Op, tier: str, chosen: frozenset[str]) -> str:
    """em_conv2d_s8_mve.c / em_conv2d_s8_scalar_dsp.c: a pixel's column is the input itself where em_nn_conv_in_place() holds,
    else packed into scratch (im2col) when a column fits, else read tap by tap. MVE, as the
    chosen variants say: em_nn_conv2d_mve, blocks of EM_NN_CONV_BLOCK pixels, min(4,
    scratch / col16) packed columns with CONV_MVE_PACK;
    DSP: em_nn_conv2d_cols with pairs when scratch >= 4·col4 and K >= 32; scalar: em_nn_dot_rows_s8."""
    if is_int16(graph, op):
        return _path_s16(graph, op, tier)
    _, kh, kw, _ = graph.tensors[op.inputs[1]].shape
    k = _column_bytes(graph, op)
    in_place, pixels = _in_place_columns(graph, op)
    scratch = planned_scratch(graph, op, CONV2D_STACK_SCRATCH)
    if tier == "mve":
        packable = min(CONV_MVE_BLOCK, scratch // round_up(k, 16)) if "CONV_MVE_PACK" in chosen else 0
        can_pack = packable > 0
    else:
        can_pack = scratch >= round_up(k, 4)
    packing = "im2col" if can_pack else "taps in place (no scratch for a column)"
    if in_place == pixels:
        columns = "1x1 pointwise, in place" if kh == kw == 1 else f"1x{kw} rows in place"
    elif in_place:
        columns = f"in place, {packing} at the borders"
    else:
        columns = f"{packing} general" if can_pack else packing
    if tier == "mve":
        block = CONV_MVE_BLOCK if in_place else packable  # in-place columns fill whole blocks
        loop = f"MVE {block}-pixel blocks" if block else "MVE pixel by pixel"
    elif tier == "dsp":
        pairs = can_pack and scratch >= 4 * round_up(k, 4) and k >= CONV_DSP_PAIRS_MIN_K
        loop = "DSP pixel pairs (SMLAD 2x2)" if pairs else "DSP one pixel, 4 rows (SMLAD)"
    else:
        loop = "scalar 6/4 rows per byte"
    return f"{columns}; {loop}"


def _op_variants(graph: Graph, op: Op) -> set[str]:
    """Nothing when every column is in place, else packing when a column fits the scratch, else
    taps (em_conv2d_s8_paths_ok() checks the choice covers the layer)."""
    in_place, pixels = _in_place_columns(graph, op)
    if in_place == pixels:
        return set()
    packs = planned_scratch(graph, op, CONV2D_STACK_SCRATCH) >= round_up(_column_bytes(graph, op), 16)
    return {"CONV_MVE_PACK" if packs else "CONV_MVE_TAPS"}


def _lower(graph: Graph, conv: Op) -> None:
    matched = match(graph, conv, (ACTIVATION, "int8", "int32"), "conv2d")
    dtype = activation_dtype(graph, matched, "conv2d")
    (x, x_quant) = matched.sources[0]
    constants = weighted_constants(matched, "conv2d")
    weights = constants.weights  # [O, I/g, KH, KW]
    channels_in = x.shape[3]
    groups = conv.attrs["groups"]
    depthwise = groups == channels_in and groups > 1 and weights.shape[1] == 1
    if depthwise:
        laid_out, kind = weights[:, 0].transpose(1, 2, 0), "depthwise_conv2d"  # [KH, KW, C·M]
    else:
        laid_out, kind = weights.transpose(0, 2, 3, 1), "conv2d"  # [O, KH, KW, I/g]
    stem = conv.outputs[0]
    weight_name = add_constant(graph, f"{stem}_weights", constants.weight_dtype, np.ascontiguousarray(laid_out),
                               constants.weight_quant)
    bias_name = add_constant(graph, f"{stem}_bias", "int32", constants.folded_bias.astype(np.int32))
    act_min, act_max = clamp_range(conv.attrs.get("activation"), matched.out_quant, dtype)
    lowered = Op(kind, [x.name, weight_name, bias_name], [matched.output], {
        "stride": conv.attrs["stride"],
        "dilation": conv.attrs["dilation"],
        "padding": conv.attrs["padding"],
        "groups": 1 if depthwise else groups,
        "depth_multiplier": weights.shape[0] // channels_in if depthwise else 1,
        "input_zero_point": int(x_quant.zero_point[0]),
        "output_offset": int(matched.out_quant.zero_point[0]),
        "activation_min": act_min,
        "activation_max": act_max,
        "multiplier": constants.multiplier,
        "shift": constants.shift,
    }, conv.origin)
    replace(graph, matched, lowered)


def _import_conv2d(node: Node, args: list) -> tuple[str, dict]:
    _, _, stride, padding, dilation, groups = given_args(node, (None, None, [1, 1], [0, 0], [1, 1], 1))
    if isinstance(padding, str):
        raise UnsupportedOpError(f"conv2d with padding={padding!r}", origin_of(node), "Give the padding in numbers.")
    (ph, pw) = pair(padding)
    return "aten.conv2d", {"stride": pair(stride), "padding": (ph, ph, pw, pw), "dilation": pair(dilation),
                           "groups": int(groups)}


CONV2D = OpSpec(
    kind="conv2d",
    opcode=fb.OpCode.CONV_2D,
    options_type=fb.OpOptions.Conv2DOptions,
    reference=_reference,
    write_options=conv_options.write,
    read_options=conv_options.read,
    registration="em_op_conv2d",
    shape_note=conv_options.window_note((1, 2)),
    imports=(Import((aten.conv2d.default,), _import_conv2d, "weighted", weight_axis=0, int16=True),),
    lowerings=(Lowering(("aten.conv2d",), _lower, fuses_activation=True),),
    macs=_macs,
    in_place=_in_place,
    scratch=_scratch,
    path=_path,
    variants=("CONV_MVE_PACK", "CONV_MVE_TAPS"),
    choose_variants=each_op(_op_variants),
    weighted=True,
    take_zero_pad=conv_options.take_zero_pad,
    stream=streaming.convolution_window((1, 2)),
    int16_kernel=True,
)
