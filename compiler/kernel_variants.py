"""Which kernel path each op of a lowered graph runs on its program's tier.

This table MIRRORS THE C DISPATCH: the adapters in runtime/ops/ and the kernels in
runtime/kernels/ choose a path from the tier (fixed at build time), the shapes, the options and,
for depthwise, the weights and shifts. Each rule below names the C condition it copies; a change
to a kernel's dispatch must change its rule here too (tests/compiler/test_inspect.py checks each
branch on shapes that take it). Used by `python -m compiler inspect` and its Model Explorer graph.

Rules take (graph, op, tier) and return a short text: what the data is read as, then the loop.
Ops whose path depends on the tier alone are plain entries of TIER_PATHS.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from compiler import macs
from compiler.ir import Graph, Op

# Scratch a kernel gets when its op has no planned scratch tensor (a second output): the bytes of
# eval()'s stack the adapter lends (runtime/ops/em_op_conv2d.c EM_CONV2D_STACK_SCRATCH,
# runtime/kernels/em_depthwise_conv2d_m1_s8.c EM_NN_DWF_ROWS_BYTES). When scratch is planned in
# the arena instead, the second output's size is used and these stack sizes must become 0.
CONV2D_STACK_SCRATCH = 0
DEPTHWISE_ROWS_STACK = 0

# em_conv2d_s8.c: EM_NN_CONV_BLOCK (MVE pixels per block); DSP pairs pay from K = 32.
CONV_MVE_BLOCK = 4
CONV_DSP_PAIRS_MIN_K = 32
# em_depthwise_conv2d_m1_s8.c: EM_NN_DWF_MAX_TAPS, EM_NN_DWF_MAX_CHANNELS; MVE's 16-lane path pays
# from 16 channels (below, the general path).
DW_FAST_MAX_TAPS = 49
DW_FAST_MAX_CHANNELS = 512
DW_FAST_MVE_MIN_CHANNELS = 16
# em_add_s8.c: EM_NN_ADD_TABLE_MIN.
ADD_TABLE_MIN = 1024
# em_lut_channels_s8.c: the shortest run of one channel that MVE maps with em_lut_s8's gather.
LUT_MVE_RUN_MIN = 16


def _round_up(n: int, m: int) -> int:
    return (n + m - 1) // m * m


def _scratch_bytes(graph: Graph, op: Op, stack: int) -> int:
    """The op's planned scratch (its second output), else the stack bytes its adapter lends."""
    return graph.tensors[op.outputs[1]].nbytes if len(op.outputs) > 1 else stack


def _inside(count: int, stride: int, pad: int, span: int, size: int) -> int:
    """Output positions whose window [i·stride − pad, + span] lies inside [0, size)."""
    starts = np.arange(count) * stride - pad
    return int(np.count_nonzero((starts >= 0) & (starts + span < size)))


def conv2d(graph: Graph, op: Op, tier: str) -> str:
    """em_conv2d_s8.c: a pixel's column is the input itself when em_nn_conv_in_place() holds
    (KH 1, KW 1 or dilation_w 1, groups 1, window inside the input), else packed into scratch
    (im2col) when a column fits, else read tap by tap. MVE: em_nn_conv2d_mve, blocks of
    EM_NN_CONV_BLOCK pixels, min(4, scratch / col16) packed columns; DSP: em_nn_conv2d_cols with
    pairs when scratch >= 4·col4 and K >= 32; scalar: em_nn_dot_rows_s8."""
    _, h, w, _ = graph.tensors[op.inputs[0]].shape
    _, kh, kw, cg = graph.tensors[op.inputs[1]].shape
    _, oh, ow, _ = graph.tensors[op.outputs[0]].shape
    a = op.attrs
    (sh, sw), (_, dw), (top, _, left, _) = a["stride"], a["dilation"], a["padding"]
    k = kh * kw * cg
    contiguous = kh == 1 and (kw == 1 or dw == 1) and a.get("groups", 1) == 1
    in_place = _inside(oh, sh, top, 0, h) * _inside(ow, sw, left, kw - 1, w) if contiguous else 0
    pixels = oh * ow
    scratch = _scratch_bytes(graph, op, CONV2D_STACK_SCRATCH)
    if tier == "mve":
        packable = min(CONV_MVE_BLOCK, scratch // _round_up(k, 16))
        can_pack = packable > 0
    else:
        can_pack = scratch >= _round_up(k, 4)
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
        pairs = can_pack and scratch >= 4 * _round_up(k, 4) and k >= CONV_DSP_PAIRS_MIN_K
        loop = "DSP pixel pairs (SMLAD 2x2)" if pairs else "DSP one pixel, 4 rows (SMLAD)"
    else:
        loop = "scalar 6/4 rows per byte"
    return f"{columns}; {loop}"


def _dw_generic(op: Op, tier: str, why: str) -> str:
    """em_depthwise_conv2d_s8.c after the fast path declined."""
    m = op.attrs.get("depth_multiplier", 1)
    if tier == "mve":
        path = "MVE 4-channel lanes" if m == 1 else f"MVE 4-channel lanes, gathers with stride M={m}"
    elif tier == "dsp" and m == 1:
        path = "DSP 4 channels per word (SXTB16)"
    else:
        path = "scalar"
    return f"generic path ({why}); {path}"


def depthwise_conv2d(graph: Graph, op: Op, tier: str) -> str:
    """em_depthwise_conv2d_s8() first tries em_nn_depthwise_m1_s8() (em_depthwise_conv2d_m1_s8.c):
    M 1, KH·KW <= 49, C <= 512; on MVE also no weight −128 and C >= 16 or its 3x3 4-pixel blocks
    (C % 4 == 0, 3x3, stride_w 1, dilation_w 1, every shift <= −2); its padded rows are staged
    when they fit the scratch (_dw_rows_staged). Else the generic path."""
    a = op.attrs
    _, h, w, c = graph.tensors[op.inputs[0]].shape
    kh, kw, _ = graph.tensors[op.inputs[1]].shape
    _, _, ow, _ = graph.tensors[op.outputs[0]].shape
    m = a.get("depth_multiplier", 1)
    if m != 1:
        return _dw_generic(op, tier, f"M={m}")
    if kh * kw > DW_FAST_MAX_TAPS:
        return _dw_generic(op, tier, f"{kh}x{kw} taps > {DW_FAST_MAX_TAPS}")
    if c > DW_FAST_MAX_CHANNELS:
        return _dw_generic(op, tier, f"C {c} > {DW_FAST_MAX_CHANNELS}")
    if tier != "mve":
        return f"M=1 fast path; tap tables, {'DSP' if tier == 'dsp' else 'scalar'} pixel by pixel"
    blocks = c % 4 == 0 and kh == kw == 3 and a["stride"][1] == 1 and a["dilation"][1] == 1
    if c < DW_FAST_MVE_MIN_CHANNELS and not blocks:
        return _dw_generic(op, tier, f"C {c} < {DW_FAST_MVE_MIN_CHANNELS}, not 3x3 stride 1 with C % 4 == 0")
    weights = graph.tensors[op.inputs[1]].data
    if weights is not None and bool(np.any(weights == -128)):
        return _dw_generic(op, tier, "a weight is -128")
    block4 = blocks and not bool(np.any(np.asarray(a["shift"]) > -2))
    if c < DW_FAST_MVE_MIN_CHANNELS and not block4:
        return _dw_generic(op, tier, f"C {c} < {DW_FAST_MVE_MIN_CHANNELS}, a shift > -2")
    staged = _dw_rows_staged(graph, op)
    if not block4:
        return "M=1 fast path; MVE 16 channels per step, " + ("padded rows staged" if staged else "tap tables")
    return ("M=1 fast path; MVE 3x3 4-pixel blocks" +
            (", padded rows staged" if staged else ", tap tables at the borders"))


def dw_rows_bytes(graph: Graph, op: Op) -> int:
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


def _dw_rows_staged(graph: Graph, op: Op) -> bool:
    """The padded rows fit the op's scratch (planned from em_nn_dwf_rows_bytes)."""
    return 0 < dw_rows_bytes(graph, op) <= _scratch_bytes(graph, op, DEPTHWISE_ROWS_STACK)


def broadcast_runs(a: tuple[int, ...], b: tuple[int, ...], out: tuple[int, ...]) -> tuple[int, int, bool, int]:
    """runtime/kernels/em_nn_broadcast.c em_nn_broadcast_plan: the output's size-1 axes dropped,
    adjacent axes along which the same operands vary merged; returns (runs, inner, an operand
    repeated along each run, outer axes walked beyond the innermost two)."""
    rank = len(out)
    a, b = (1,) * (rank - len(a)) + tuple(a), (1,) * (rank - len(b)) + tuple(b)
    kinds: list[list[int]] = []  # [kind, size]; kind bit 0: a varies, bit 1: b varies
    for s, x, y in zip(out, a, b):
        if s == 1:
            continue
        kind = int(x == s) | (int(y == s) << 1)
        if kinds and kinds[-1][0] == kind:
            kinds[-1][1] *= s
        else:
            kinds.append([kind, s])
    kind, inner = kinds[-1] if kinds else (3, 1)
    return int(np.prod(out)) // inner, inner, kind != 3, max(len(kinds) - 2, 0)


def _broadcast(graph: Graph, op: Op) -> str:
    """The form of em_add_s8's walk: same shapes, a scalar operand (one run, one operand
    repeated), a row (runs of the same operand values, e.g. a channel vector) or general."""
    a, b = (graph.tensors[name].shape for name in op.inputs[:2])
    runs, inner, one, outer = broadcast_runs(a, b, graph.tensors[op.outputs[0]].shape)
    if runs == 1:
        return "scalar operand broadcast" if one else "same shapes"
    if not one and outer == 0:
        return "row operand broadcast"
    return f"general broadcast: {runs} runs of {inner}" + (", one operand repeated along each" if one else "")


def add(graph: Graph, op: Op, tier: str) -> str:
    """em_add_s8.c: MVE 4 lanes; scalar and DSP tabulate each input's rescaling when neither
    operand is broadcast (one run of two arrays) and the output has >= EM_NN_ADD_TABLE_MIN
    elements."""
    out = graph.tensors[op.outputs[0]].shape
    shape = _broadcast(graph, op)
    if tier == "mve":
        return f"{shape}; MVE 4 lanes"
    if shape == "same shapes" and int(np.prod(out)) >= ADD_TABLE_MIN:
        return f"{shape}; rescaling tables (256 codes per input), scalar"
    return f"{shape}; scalar per element"


def lut(graph: Graph, op: Op, tier: str) -> str:
    """em_op_lut.c: a [256] table runs em_lut_s8 (MVE 16-lane byte gather, else scalar); a
    [C, 256] one em_lut_channels_s8 over [outer, C, inner] around `axis` (absent: the last):
    on MVE 8 channels a gather when inner == 1, em_lut_s8 per run when inner >= LUT_MVE_RUN_MIN,
    else (and on the other tiers) scalar."""
    x, table = graph.tensors[op.inputs[0]], graph.tensors[op.inputs[1]]
    if len(table.shape) == 1:
        return "MVE 16-lane byte gather" if tier == "mve" else "scalar"
    axis = op.attrs.get("axis", -1) % len(x.shape)
    inner = int(np.prod(x.shape[axis + 1:], dtype=np.int64))
    if tier == "mve" and inner == 1:
        return "per-channel tables, the channel last; MVE 8 lanes per gather, each from its channel's row"
    if tier == "mve" and inner >= LUT_MVE_RUN_MIN:
        return f"per-channel tables, runs of {inner}; MVE 16-lane byte gather per run"
    return f"per-channel tables, runs of {inner}; scalar"


def reshape(graph: Graph, op: Op, tier: str) -> str:
    """em_reshape.c: nothing to do when the planner gave the output the input's bytes."""
    src, dst = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
    same = (not src.is_constant and src.offset is not None and src.offset == dst.offset and src.arena == dst.arena)
    return "alias: no copy" if same else "one memmove"


def fully_connected(graph: Graph, op: Op, tier: str) -> str:
    """em_fully_connected_s8.c: four rows per input load where FC_MVE_ROWS4 is linked, else (MVE)
    one row at a time; DSP four rows (SMLAD), scalar six then four."""
    if tier == "mve":
        return "MVE 4 rows x 16 lanes" if _fc_rows4(graph) else "MVE 1 row x 16 lanes (compact: FC is a sliver of the MACs)"
    return {"dsp": "DSP 4 rows (SMLAD)"}.get(tier, "scalar 6/4 rows")


VARIANT_RULES: dict[str, Callable[[Graph, Op, str], str]] = {
    "conv2d": conv2d,
    "fully_connected": fully_connected,
    "depthwise_conv2d": depthwise_conv2d,
    "add": add,
    "lut": lut,
    "reshape": reshape,
}

# Ops whose path depends on the tier only: {kind: {tier: path}}; "*" for every tier.
TIER_PATHS: dict[str, dict[str, str]] = {
    "max_pool2d": {"mve": "MVE 16 channels (VMAX)", "dsp": "DSP 4 channels (SSUB8/SEL)", "scalar": "scalar"},
    "avg_pool2d": {"mve": "MVE 4 channels (int32 lanes)", "dsp": "DSP 4 channels (SXTAB16)", "scalar": "scalar"},
    "mul": {"mve": "MVE 4 lanes", "*": "scalar"},
    "minimum": {"mve": "MVE 16 lanes", "dsp": "DSP 4 lanes (SSUB8/SEL)", "scalar": "scalar"},
    "maximum": {"mve": "MVE 16 lanes", "dsp": "DSP 4 lanes (SSUB8/SEL)", "scalar": "scalar"},
    "batch_matmul": {"mve": "MVE 16 columns", "*": "scalar"},
    "transpose_conv2d": {"mve": "MVE gather form (VMLADAVA.S16)", "dsp": "DSP gather form (SMLAD)",
                         "scalar": "scalar gather form"},
    "requantize": {"mve": "MVE 4 lanes", "*": "scalar"},
    "softmax": {"*": "scalar (every tier)"},
    # em_quantize_f32_s8.c / em_dequantize_s8_f32.c: MVE with float Helium, else by the FPU
    "quantize": {"mve": "MVE float 4 lanes", "*": "scalar (integer bits without an FPU)"},
    "dequantize": {"mve": "MVE float 4 lanes", "*": "scalar (integer bits without an FPU)"},
    "concatenation": {"*": "row copies"},
    "pad": {"*": "fill, then row copies"},
    "transpose": {"*": "strided copy"},
    "slice": {"*": "strided copy"},
    "upsample_nearest": {"*": "row copies"},
}


def kernel_variant(graph: Graph, op: Op, tier: str) -> str:
    """The path `op` runs on `tier`; float ops run portable float32 C on every tier."""
    rule = VARIANT_RULES.get(op.kind)
    if rule is not None:
        return rule(graph, op, tier)
    paths = TIER_PATHS.get(op.kind)
    if paths is not None:
        return paths.get(tier, paths.get("*", "scalar"))
    return "portable float32" if op.kind.startswith("float_") else "portable"


# Selective build below the op (runtime/kernels/include/em_nn_variants.h): the MVE variants a
# program's firmware links, named as its EM_NN_VARIANT_<NAME> macros. Each rule below mirrors the
# same C dispatch as the text rules above; a program that reaches a variant left out fails with
# EM_ERR_VARIANT_NOT_LINKED, so a rule must never leave out a variant its op takes.
SELECTABLE_VARIANTS = (
    "DW_MVE_FULL_KW3", "DW_MVE_FULL", "DW_MVE_TAIL", "DW_MVE_STRIDED",
    "DWF_MVE_PIXEL", "DWF_MVE_PIXEL_LEFT", "DWF_MVE_BLOCK4", "DWF_MVE_ROWS", "DWF_MVE_TAPS",
    "CONV_MVE_PACK", "CONV_MVE_TAPS",
    "FC_MVE_ROWS4",
)

# A variant that only saves instructions (its kernel has a compact path for every shape) is
# linked only where its ops do at least this share of the program's MACs. em_fully_connected_s8's
# four-row pass saves about 0.15 instructions per MAC and costs about 450 bytes at -Os: below
# 1 % of the MACs it saves under 0.4 % of an inference (the MLPerf models' classifiers are
# 0.01..0.03 %). Helium only: the DSP and scalar tiers' four-row loops are the convolutions' too.
FAST_VARIANT_MIN_MAC_SHARE = 0.01


def _conv2d_variants(graph: Graph, op: Op) -> set[str]:
    """em_conv2d_s8.c em_nn_conv_mve_linked(): nothing when every column is in place, else
    packing when a column fits the scratch, else taps."""
    _, h, w, _ = graph.tensors[op.inputs[0]].shape
    _, kh, kw, cg = graph.tensors[op.inputs[1]].shape
    _, oh, ow, _ = graph.tensors[op.outputs[0]].shape
    a = op.attrs
    (sh, sw), (_, dw), (top, _, left, _) = a["stride"], a["dilation"], a["padding"]
    contiguous = kh == 1 and (kw == 1 or dw == 1) and a.get("groups", 1) == 1
    if contiguous and _inside(oh, sh, top, 0, h) * _inside(ow, sw, left, kw - 1, w) == oh * ow:
        return set()
    packs = _scratch_bytes(graph, op, CONV2D_STACK_SCRATCH) >= _round_up(kh * kw * cg, 16)
    return {"CONV_MVE_PACK" if packs else "CONV_MVE_TAPS"}


def _dw_generic_variants(c: int, kw: int, m: int) -> set[str]:
    """em_depthwise_conv2d_s8.c em_nn_dw_mve_linked()."""
    if m != 1:
        return {"DW_MVE_STRIDED"}
    full = set() if c < 4 else {"DW_MVE_FULL_KW3" if kw == 3 else "DW_MVE_FULL"}
    return full | ({"DW_MVE_TAIL"} if c % 4 else set())


def _depthwise_variants(graph: Graph, op: Op) -> set[str]:
    """depthwise_conv2d() above as variants: the fast path's pixel, block and staged rows, or the
    general path's blocks (also when the weights are not constants: the fast path may decline)."""
    a = op.attrs
    _, h, w, c = graph.tensors[op.inputs[0]].shape
    kh, kw, _ = graph.tensors[op.inputs[1]].shape
    _, _, ow, _ = graph.tensors[op.outputs[0]].shape
    m = a.get("depth_multiplier", 1)
    generic = _dw_generic_variants(c, kw, m)
    if m != 1 or kh * kw > DW_FAST_MAX_TAPS or c > DW_FAST_MAX_CHANNELS:
        return generic
    blocks = c % 4 == 0 and kh == kw == 3 and a["stride"][1] == 1 and a["dilation"][1] == 1
    if c < DW_FAST_MVE_MIN_CHANNELS and not blocks:
        return generic
    weights = graph.tensors[op.inputs[1]].data
    if weights is not None and bool(np.any(weights == -128)):
        return generic
    left = bool(np.any(np.asarray(a["shift"]) > -2))
    block4 = blocks and not left
    if c < DW_FAST_MVE_MIN_CHANNELS and not block4:
        return generic
    fast = {"DWF_MVE_PIXEL_LEFT" if left else "DWF_MVE_PIXEL"}
    if block4:
        fast.add("DWF_MVE_BLOCK4")
    # the padded rows staged in the scratch, else the walk over the input with tap tables
    fast.add("DWF_MVE_ROWS" if _dw_rows_staged(graph, op) else "DWF_MVE_TAPS")
    return fast if weights is not None else fast | generic


def _fc_rows4(graph: Graph) -> bool:
    """FC_MVE_ROWS4: the fully connected layers do FAST_VARIANT_MIN_MAC_SHARE of the MACs."""
    fc = sum(macs.op_macs(graph, op) for op in graph.ops if op.kind == "fully_connected")
    return fc > 0 and fc >= FAST_VARIANT_MIN_MAC_SHARE * macs.graph_macs(graph)


def linked_variants(graph: Graph, tier: str) -> set[str]:
    """The selectable variants (SELECTABLE_VARIANTS) the ops of `graph` take on `tier`; none below
    MVE, whose paths are not selectable."""
    if tier != "mve":
        return set()
    used: set[str] = {"FC_MVE_ROWS4"} if _fc_rows4(graph) else set()
    for op in graph.ops:
        if op.kind == "conv2d":
            used |= _conv2d_variants(graph, op)
        elif op.kind == "depthwise_conv2d":
            used |= _depthwise_variants(graph, op)
    return used
