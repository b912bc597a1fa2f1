"""max_pool2d and avg_pool2d: NHWC int8 (or int16, A16W8), input and output sharing their quantization.

Lowering: dequantize → max / average pool → quantize, with the output sharing
the input's quantization (CortexMQuantizer makes it so), becomes `max_pool2d` / `avg_pool2d` on
the int8 codes.
"""
from __future__ import annotations

import numpy as np
import torch
from torch.fx import Node

from compiler import reference, streaming
from compiler.aten_node import given_args, origin_of, pair
from compiler.decompositions import ceil_overhang
from compiler.errors import UnsupportedOpError
from compiler.ir import Graph, Op
from compiler.ops.int16_path import by_precision
from compiler.ops.spec import Import, Lowering, OpSpec, tier_paths
from compiler.quantized_pattern import ACTIVATION, activation_dtype, match, replace
from compiler.schema import program_generated as fb

aten = torch.ops.aten


WINDOW = ("kernel", "stride", "padding", "activation_min", "activation_max")


def _max_reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [reference.max_pool_s8(inputs[0], **{k: op.attrs[k] for k in WINDOW})]


def _avg_reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    a = op.attrs
    return [reference.avg_pool_s8(inputs[0], count_include_pad=a["count_include_pad"], zero_point=a["zero_point"],
                                  **{k: a[k] for k in WINDOW})]


def _take_zero_pad(pool: Op, pad: Op, added: tuple[int, int, int, int]) -> bool:
    """An average that counts its padding cells (or has none) counts the pad's cells alike: the
    pad becomes its padding, counted."""
    a = pool.attrs
    if not (a["count_include_pad"] or not any(a["padding"])):
        return False
    a["padding"] = tuple(int(p + q) for p, q in zip(a["padding"], added))
    a["count_include_pad"] = True
    return True


def _write(builder, op: Op) -> int:
    a = op.attrs
    top, bottom, left, right = a["padding"]
    fb.Pool2DOptionsStart(builder)
    fb.Pool2DOptionsAddKernelH(builder, a["kernel"][0])
    fb.Pool2DOptionsAddKernelW(builder, a["kernel"][1])
    fb.Pool2DOptionsAddStrideH(builder, a["stride"][0])
    fb.Pool2DOptionsAddStrideW(builder, a["stride"][1])
    fb.Pool2DOptionsAddPadTop(builder, top)
    fb.Pool2DOptionsAddPadBottom(builder, bottom)
    fb.Pool2DOptionsAddPadLeft(builder, left)
    fb.Pool2DOptionsAddPadRight(builder, right)
    fb.Pool2DOptionsAddCountIncludePad(builder, a.get("count_include_pad", True))
    fb.Pool2DOptionsAddZeroPoint(builder, a.get("zero_point", 0))
    fb.Pool2DOptionsAddActivationMin(builder, a["activation_min"])
    fb.Pool2DOptionsAddActivationMax(builder, a["activation_max"])
    return fb.Pool2DOptionsEnd(builder)


def _read(table) -> dict:
    o = fb.Pool2DOptions()
    o.Init(table.Bytes, table.Pos)
    return {
        "kernel": (o.KernelH(), o.KernelW()),
        "stride": (o.StrideH(), o.StrideW()),
        "padding": (o.PadTop(), o.PadBottom(), o.PadLeft(), o.PadRight()),
        "count_include_pad": bool(o.CountIncludePad()),
        "zero_point": o.ZeroPoint(),
        "activation_min": o.ActivationMin(),
        "activation_max": o.ActivationMax(),
    }


LOWERED = {"aten.max_pool2d": "max_pool2d", "aten.avg_pool2d": "avg_pool2d"}


def _lower(graph: Graph, pool: Op) -> None:
    matched = match(graph, pool, (ACTIVATION,), "pooling")
    dtype = activation_dtype(graph, matched, "pooling")
    (x, x_quant) = matched.sources[0]
    out = matched.out_quant
    if not (np.array_equal(x_quant.scale, out.scale) and np.array_equal(x_quant.zero_point, out.zero_point)):
        raise UnsupportedOpError("pooling whose output is quantized unlike its input", pool.origin,
                                 "Quantize with CortexMQuantizer (pooling shares its input's scale).")
    attrs = {"kernel": pool.attrs["kernel"], "stride": pool.attrs["stride"], "padding": pool.attrs["padding"],
             "activation_min": int(np.iinfo(dtype).min), "activation_max": int(np.iinfo(dtype).max)}
    if pool.kind == "aten.avg_pool2d":
        attrs |= {"count_include_pad": pool.attrs["count_include_pad"], "zero_point": int(out.zero_point[0])}
    replace(graph, matched, Op(LOWERED[pool.kind], [x.name], [matched.output], attrs, pool.origin))


def _pool_padding(node: Node, kernel, stride, padding, ceil_mode: bool) -> tuple[int, int, int, int]:
    """(top, bottom, left, right): PyTorch's symmetric padding, plus at the bottom and right the
    cells ceil_mode's last windows run over (they count no cell: Ember's pools count and take only
    real cells and padding)."""
    (h, w), (kh, kw), (sh, sw), (ph, pw) = node.args[0].meta["val"].shape[-2:], kernel, stride, padding
    eh, ew = (ceil_overhang(h, kh, sh, ph), ceil_overhang(w, kw, sw, pw)) if ceil_mode else (0, 0)
    if ph + eh >= kh or pw + ew >= kw:
        raise UnsupportedOpError(f"{node.target} with ceil_mode, kernel {[kh, kw]}, stride {[sh, sw]}, padding "
                                 f"{[ph, pw]}", origin_of(node), "Pad the input explicitly (F.pad) instead.")
    return (ph, ph + eh, pw, pw + ew)


def _import_max_pool2d(node: Node, args: list) -> tuple[str, dict]:
    kernel, stride, padding, dilation, ceil_mode = given_args(node, (None, [], 0, 1, False))
    if pair(dilation) != (1, 1):
        raise UnsupportedOpError(f"max_pool2d with dilation {list(pair(dilation))}", origin_of(node),
                                 "Ember's max pool takes dilation=1.")
    kernel, stride = pair(kernel), pair(stride or kernel)
    return "aten.max_pool2d", {"kernel": kernel, "stride": stride,
                               "padding": _pool_padding(node, kernel, stride, pair(padding), ceil_mode)}


def _import_avg_pool2d(node: Node, args: list) -> tuple[str, dict]:
    """avg_pool2d; with ceil_mode, the cells its last windows run past the padding are not
    counted, which Ember's count_include_pad=False says exactly where the padding is 0."""
    kernel, stride, padding, ceil_mode, count_include_pad, divisor = given_args(node, (None, [], 0, False, True, None))
    kernel, stride, padding = pair(kernel), pair(stride or kernel), pair(padding)
    pads = _pool_padding(node, kernel, stride, padding, ceil_mode)
    overhang = pads != (padding[0], padding[0], padding[1], padding[1])
    if overhang and count_include_pad and any(padding):
        raise UnsupportedOpError("avg_pool2d with ceil_mode, padding and count_include_pad=True", origin_of(node),
                                 "Give count_include_pad=False, or pad the input explicitly (F.pad) instead.")
    if divisor is not None:  # compiler/decompositions.py rewrites these; one reaching here is a bug
        raise UnsupportedOpError("avg_pool2d with divisor_override", origin_of(node))
    return "aten.avg_pool2d", {"kernel": kernel, "stride": stride, "padding": pads,
                               "count_include_pad": bool(count_include_pad) and not overhang}


def _import_adaptive_average(node: Node, args: list) -> tuple[str, dict]:
    """adaptive_avg_pool2d to an output size that divides the input's: one average pool whose
    window and stride are the ratio (a global average for 1×1)."""
    n, c, h, w = node.args[0].meta["val"].shape
    oh, ow = pair(node.args[1])
    oh, ow = oh or h, ow or w  # None keeps the input's size
    if h % oh or w % ow:
        raise UnsupportedOpError(f"adaptive_avg_pool2d of {h}x{w} to {oh}x{ow}", origin_of(node),
                                 "Only output sizes that divide the input size lower (e.g. 1x1, or 8x8 to 2x2).")
    return "aten.avg_pool2d", {"kernel": (int(h // oh), int(w // ow)), "stride": (int(h // oh), int(w // ow)),
                               "padding": (0, 0, 0, 0), "count_include_pad": True}


MAX_POOL2D = OpSpec(
    kind="max_pool2d",
    opcode=fb.OpCode.MAX_POOL_2D,
    options_type=fb.OpOptions.Pool2DOptions,
    reference=_max_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_max_pool2d",
    imports=(Import((aten.max_pool2d.default,), _import_max_pool2d, "shared", int16=True),),
    lowerings=(Lowering(tuple(LOWERED), _lower),),
    path=by_precision(tier_paths("MVE 16 channels (VMAX)", "DSP 4 channels (SSUB8/SEL)"),
                      tier_paths("int16: MVE 8 channels (VMAX.S16)", "int16: DSP 2 channels (SSUB16/SEL)", "int16: scalar")),
    int16_kernel=True,
    stream=streaming.pool_window,
)

AVG_POOL2D = OpSpec(
    kind="avg_pool2d",
    opcode=fb.OpCode.AVG_POOL_2D,
    options_type=fb.OpOptions.Pool2DOptions,
    reference=_avg_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_avg_pool2d",
    imports=(Import((aten.avg_pool2d.default,), _import_avg_pool2d, "shared", int16=True),
             Import((aten.adaptive_avg_pool2d.default,), _import_adaptive_average, "shared", int16=True)),
    path=by_precision(tier_paths("MVE 4 channels (int32 lanes)", "DSP 4 channels (SXTAB16)"),
                      tier_paths("int16: MVE 4 channels (int32 lanes, VLDRH.S32)", "int16: DSP 2 channels a word (SXTAH, ASR)",
                                 "int16: scalar")),
    int16_kernel=True,
    take_zero_pad=_take_zero_pad,
    stream=streaming.pool_window,
)
