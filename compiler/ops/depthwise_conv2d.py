"""depthwise_conv2d: NHWC int8, weights [KH, KW, C_IN · depth_multiplier]."""
from __future__ import annotations

import ctypes

import numpy as np

from compiler import reference, streaming
from compiler.ir import Graph, Op
from compiler.ops import conv_options, overlap
from compiler.ops.conv_options import DEPTHWISE_ROWS_STACK, planned_scratch
from compiler.ops.int16_path import is_int16
from compiler.ops.spec import OpSpec
from compiler.schema import program_generated as fb


# em_depthwise_conv2d_m1_s8.c: EM_NN_DWF_MAX_TAPS, EM_NN_DWF_MAX_CHANNELS; MVE's 16-lane path pays
# from 16 channels (below, the general path).
DW_FAST_MAX_TAPS = 49
DW_FAST_MAX_CHANNELS = 512
DW_FAST_MVE_MIN_CHANNELS = 16
# Helium's variants (em_nn_variants.h): the general path's blocks, the M = 1 fast path's forms
GENERAL_VARIANTS = ("DW_MVE_FULL_KW3", "DW_MVE_FULL", "DW_MVE_TAIL", "DW_MVE_STRIDED")
FAST_VARIANTS = ("DWF_MVE_PIXEL", "DWF_MVE_PIXEL_LEFT", "DWF_MVE_BLOCK4", "DWF_MVE_ROWS", "DWF_MVE_TAPS")


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x, weights, bias = inputs
    a = op.attrs
    kwargs = {k: a[k] for k in conv_options.COMMON}
    if x.dtype == np.int16:  # A16W8: zero points 0, no output offset
        kwargs = {k: v for k, v in kwargs.items() if k not in conv_options.INT8_ONLY}
        return [reference.depthwise_conv2d_s16(x, weights, bias, a["multiplier"], a["shift"],
                                               depth_multiplier=a["depth_multiplier"], **kwargs)]
    return [reference.depthwise_conv2d_s8(x, weights, bias, a["multiplier"], a["shift"],
                                          depth_multiplier=a["depth_multiplier"], **kwargs)]


def _macs(graph: Graph, op: Op) -> int:
    weight = graph.tensors[op.inputs[1]].shape  # [KH, KW, C_OUT]
    return int(np.prod(graph.tensors[op.outputs[0]].shape)) * weight[0] * weight[1]


def pixel_order(graph: Graph, op: Op) -> bool:
    """True when em_nn_depthwise_m1_s8() takes the layer on every tier (it returns true): the
    conditions it tests before it computes anything, Helium's included. Helium's general path goes
    channel block by channel block over the whole image, so only then may the output overlap the
    input, whatever the tier: one plan is valid on every tier (conformance programs run on all)."""
    weights = graph.tensors[op.inputs[1]]  # [KH, KW, C]
    kh, kw, c = weights.shape
    a = op.attrs
    if a["depth_multiplier"] != 1 or kh * kw > DW_FAST_MAX_TAPS or c > DW_FAST_MAX_CHANNELS or weights.data is None:
        return False
    if int(weights.data.min()) == -128:  # Helium's int16 pair sums need weights >= -127
        return False
    left = any(int(s) > -2 for s in np.atleast_1d(a["shift"]))
    return c >= 32 or (_blocks(graph, op) and not left)


def _in_place(graph: Graph, op: Op, index: int) -> int | None:
    if (index != 0 or not conv_options.well_formed(graph, op, 3) or not pixel_order(graph, op)
            or graph.tensors[op.inputs[0]].dtype != "int8"):
        return None  # the int16 kernels (A16W8) read and write in an order of their own
    return overlap.sliding_window(graph, op, (0, 1))


def _scratch(lib: ctypes.CDLL, graph: Graph, op: Op) -> int:
    if not conv_options.well_formed(graph, op, 3) or is_int16(graph, op):
        return 0  # the int16 kernel (A16W8) takes no scratch
    kh, kw, _ = graph.tensors[op.inputs[1]].shape
    return conv_options.buffer_size(lib, "em_depthwise_conv2d_s8_get_buffer_size", graph, op, (kh, kw))


def _blocks(graph: Graph, op: Op) -> bool:
    """Helium's 3x3 4-pixel blocks fit the shape: C % 4 == 0, 3x3, stride_w 1, dilation_w 1."""
    c = graph.tensors[op.inputs[0]].shape[3]
    kh, kw, _ = graph.tensors[op.inputs[1]].shape
    return c % 4 == 0 and kh == kw == 3 and op.attrs["stride"][1] == 1 and op.attrs["dilation"][1] == 1


def _generic_path(op: Op, tier: str, why: str) -> str:
    """em_depthwise_conv2d_s8_{mve,scalar_dsp}.c after the fast path declined."""
    m = op.attrs.get("depth_multiplier", 1)
    if tier == "mve":
        path = "MVE 4-channel lanes" if m == 1 else f"MVE 4-channel lanes, gathers with stride M={m}"
    elif tier == "dsp" and m == 1:
        path = "DSP 4 channels per word (SXTB16)"
    else:
        path = "scalar"
    return f"generic path ({why}); {path}"


def _declined(graph: Graph, op: Op, tier: str) -> str | None:
    """Why the layer takes the general path on `tier`, or None when it takes the M = 1 fast path:
    M 1, KH·KW <= 49, C <= 512 (below Helium em_nn_depthwise_m1_s8() tests these); on Helium,
    the compiler's choice, also constant weights with none −128 (what the check at load needs)
    and C >= 16 or its 3x3 4-pixel blocks (every shift <= −2)."""
    c = graph.tensors[op.inputs[0]].shape[3]
    kh, kw, _ = graph.tensors[op.inputs[1]].shape
    m = op.attrs.get("depth_multiplier", 1)
    if m != 1:
        return f"M={m}"
    if kh * kw > DW_FAST_MAX_TAPS:
        return f"{kh}x{kw} taps > {DW_FAST_MAX_TAPS}"
    if c > DW_FAST_MAX_CHANNELS:
        return f"C {c} > {DW_FAST_MAX_CHANNELS}"
    if tier != "mve":
        return None
    if c < DW_FAST_MVE_MIN_CHANNELS and not _blocks(graph, op):
        return f"C {c} < {DW_FAST_MVE_MIN_CHANNELS}, not 3x3 stride 1 with C % 4 == 0"
    weights = graph.tensors[op.inputs[1]].data
    if weights is None:
        return "weights are not constants"
    if bool(np.any(weights == -128)):
        return "a weight is -128"
    if c < DW_FAST_MVE_MIN_CHANNELS and not _block4(graph, op):
        return f"C {c} < {DW_FAST_MVE_MIN_CHANNELS}, a shift > -2"
    return None


def _block4(graph: Graph, op: Op) -> bool:
    return _blocks(graph, op) and not bool(np.any(np.asarray(op.attrs["shift"]) > -2))


def _path(graph: Graph, op: Op, tier: str, chosen: frozenset[str]) -> str:
    """em_depthwise_conv2d_s8(): on Helium the variants chosen for it (_op_variants); below, it
    first tries em_nn_depthwise_m1_s8() (em_depthwise_conv2d_m1_s8.c), else the generic path."""
    if is_int16(graph, op):
        return _path_s16(graph, op, tier)
    if tier == "mve":
        if chosen.isdisjoint(FAST_VARIANTS):
            return _generic_path(op, tier, _declined(graph, op, tier) or "as chosen")
        blocks = "3x3 4-pixel blocks" if "DWF_MVE_BLOCK4" in chosen else "16 channels per step"
        walk = "padded rows staged" if "DWF_MVE_ROWS" in chosen else (
            "tap tables at the borders" if "DWF_MVE_BLOCK4" in chosen else "tap tables")
        return f"M=1 fast path; MVE {blocks}, {walk}"
    why = _declined(graph, op, tier)
    if why is not None:
        return _generic_path(op, tier, why)
    return f"M=1 fast path; tap tables, {'DSP' if tier == 'dsp' else 'scalar'} pixel by pixel"


def _path_s16(graph: Graph, op: Op, tier: str) -> str:
    """em_depthwise_conv2d_s16.c: on Helium, M = 1 with at most 511 taps takes 32-bit lanes: 8
    channels a step where the layer's sums and bias are exact in int32 (conv_options.s16_sum32),
    the rest 4 a vector; every other layer and tier one channel at a time."""
    kh, kw, _ = graph.tensors[op.inputs[1]].shape
    m = op.attrs.get("depth_multiplier", 1)
    if tier == "mve" and m == 1 and kh * kw <= conv_options.S16_SUM32_MAX_TERMS:
        if conv_options.s16_sum32(graph, op, kh * kw):
            return "MVE s16 8 channels a step (VMULLB/VMULLT.S16), 4-lane tail, vector requantization"
        return "MVE s16 4-channel lanes (VMUL.I32 + VADD), 64-bit requantization"
    return f"s16 channel by channel{f' (M={m})' if m != 1 else ''}, {'DSP' if tier == 'dsp' else 'scalar'}"


def rows_bytes(graph: Graph, op: Op) -> int:
    """em_nn_dwf_rows_bytes() before its EM_NN_DWF_ROWS_MAX cap, for a layer the Helium fast path
    takes (its callers check that first; the C also answers 0 for the others): the KH padded rows,
    pad_left + W + the columns past the input that the last window reaches, times C."""
    a = op.attrs
    _, _, w, c = graph.tensors[op.inputs[0]].shape
    kh, kw, _ = graph.tensors[op.inputs[1]].shape
    ow = graph.tensors[op.outputs[0]].shape[2]
    left = a["padding"][2]
    right = (ow - 1) * a["stride"][1] + (kw - 1) * a["dilation"][1] + 1 - left - w
    return kh * (left + w + max(right, 0)) * c


def _rows_staged(graph: Graph, op: Op) -> bool:
    """The padded rows fit the op's scratch (planned from em_nn_dwf_rows_bytes)."""
    return 0 < rows_bytes(graph, op) <= planned_scratch(graph, op, DEPTHWISE_ROWS_STACK)


def _generic_variants(op: Op, c: int, kw: int) -> set[str]:
    """The general path's blocks that cover the layer (em_depthwise_conv2d_s8_paths_ok())."""
    if op.attrs.get("depth_multiplier", 1) != 1:
        return {"DW_MVE_STRIDED"}
    full = set() if c < 4 else {"DW_MVE_FULL_KW3" if kw == 3 else "DW_MVE_FULL"}
    return full | ({"DW_MVE_TAIL"} if c % 4 else set())


def _op_variants(graph: Graph, op: Op) -> set[str]:
    """The fast path's pixel form, its 4-pixel blocks and its staged rows or tap tables where it
    takes the layer (constant weights only: the check at load reads them), else the general
    path's blocks."""
    c = graph.tensors[op.inputs[0]].shape[3]
    kw = graph.tensors[op.inputs[1]].shape[1]
    if _declined(graph, op, "mve") is not None:
        return _generic_variants(op, c, kw)
    left = bool(np.any(np.asarray(op.attrs["shift"]) > -2))
    fast = {"DWF_MVE_PIXEL_LEFT" if left else "DWF_MVE_PIXEL"}
    if _block4(graph, op):
        fast.add("DWF_MVE_BLOCK4")
    # the padded rows staged in the scratch, else the walk over the input with tap tables
    fast.add("DWF_MVE_ROWS" if _rows_staged(graph, op) else "DWF_MVE_TAPS")
    return fast


def _choose_variants(graph: Graph, ops: list[Op], total_macs: int, compact: bool) -> list[set[str]]:
    """_op_variants per layer; compact, the 4-pixel blocks left out of every layer, where each
    that takes them has C >= 16 (the pixel form then takes it alone; below, the blocks are what
    lets the fast path take it, and pixel_order plans on that): else a firmware links them
    anyway, and leaving them out elsewhere would cost instructions for no code."""
    chosen = [_op_variants(graph, op) for op in ops]
    blocks = [op for op, names in zip(ops, chosen) if "DWF_MVE_BLOCK4" in names]
    if compact and all(graph.tensors[op.inputs[0]].shape[3] >= DW_FAST_MVE_MIN_CHANNELS for op in blocks):
        chosen = [names - {"DWF_MVE_BLOCK4"} for names in chosen]
    return chosen


DEPTHWISE_CONV2D = OpSpec(
    kind="depthwise_conv2d",
    opcode=fb.OpCode.DEPTHWISE_CONV_2D,
    options_type=fb.OpOptions.Conv2DOptions,
    reference=_reference,
    write_options=conv_options.write,
    read_options=conv_options.read,
    registration="em_op_depthwise_conv2d",
    shape_note=conv_options.window_note((0, 1)),
    macs=_macs,
    in_place=_in_place,
    scratch=_scratch,
    path=_path,
    variants=GENERAL_VARIANTS + FAST_VARIANTS,
    choose_variants=_choose_variants,
    weighted=True,
    take_zero_pad=conv_options.take_zero_pad,
    stream=streaming.convolution_window((0, 1)),
    int16_kernel=True,
)
