"""max_pool2d and avg_pool2d: NHWC int8, input and output sharing their quantization.

Lowering: dequantize → max / average pool → quantize, with the output sharing
the input's quantization (CortexMQuantizer makes it so), becomes `max_pool2d` / `avg_pool2d` on
the int8 codes.
"""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.errors import UnsupportedOpError
from compiler.ir import Graph, Op
from compiler.ops.spec import Lowering, OpSpec, tier_paths
from compiler.quantized_pattern import match, replace
from compiler.schema import program_generated as fb


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
    matched = match(graph, pool, ("int8",), "pooling")
    (x, x_quant) = matched.sources[0]
    out = matched.out_quant
    if not (np.array_equal(x_quant.scale, out.scale) and np.array_equal(x_quant.zero_point, out.zero_point)):
        raise UnsupportedOpError("pooling whose output is quantized unlike its input", pool.origin,
                                 "Quantize with CortexMQuantizer (pooling shares its input's scale).")
    attrs = {"kernel": pool.attrs["kernel"], "stride": pool.attrs["stride"], "padding": pool.attrs["padding"],
             "activation_min": -128, "activation_max": 127}
    if pool.kind == "aten.avg_pool2d":
        attrs |= {"count_include_pad": pool.attrs["count_include_pad"], "zero_point": int(out.zero_point[0])}
    replace(graph, matched, Op(LOWERED[pool.kind], [x.name], [matched.output], attrs, pool.origin))


MAX_POOL2D = OpSpec(
    kind="max_pool2d",
    opcode=fb.OpCode.MAX_POOL_2D,
    options_type=fb.OpOptions.Pool2DOptions,
    reference=_max_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_max_pool2d",
    lowerings=(Lowering(tuple(LOWERED), _lower),),
    path=tier_paths("MVE 16 channels (VMAX)", "DSP 4 channels (SSUB8/SEL)"),
)

AVG_POOL2D = OpSpec(
    kind="avg_pool2d",
    opcode=fb.OpCode.AVG_POOL_2D,
    options_type=fb.OpOptions.Pool2DOptions,
    reference=_avg_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_avg_pool2d",
    path=tier_paths("MVE 4 channels (int32 lanes)", "DSP 4 channels (SXTAB16)"),
    take_zero_pad=_take_zero_pad,
)
