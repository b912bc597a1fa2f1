"""upsample_nearest: an NHWC map repeated by integer factors along H and W (dtype-generic).

Lowering: dequantize → nearest upsampling → quantize (shared quantization)
becomes `upsample_nearest` of the NHWC int8 map by its integer factors.
"""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.ir import Graph, Op, Quant
from compiler.layout import moved
from compiler.ops.spec import Lowering, OpSpec
from compiler.schema import program_generated as fb


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [reference.upsample_nearest(inputs[0], scale_h=op.attrs["scale_h"], scale_w=op.attrs["scale_w"])]


def _write(builder, op: Op) -> int:
    fb.UpsampleNearestOptionsStart(builder)
    fb.UpsampleNearestOptionsAddScaleH(builder, int(op.attrs["scale_h"]))
    fb.UpsampleNearestOptionsAddScaleW(builder, int(op.attrs["scale_w"]))
    return fb.UpsampleNearestOptionsEnd(builder)


def _read(table) -> dict:
    o = fb.UpsampleNearestOptions()
    o.Init(table.Bytes, table.Pos)
    return {"scale_h": o.ScaleH(), "scale_w": o.ScaleW()}


def _lower(graph: Graph, upsample: Op) -> None:
    def build(source: str, output: str, quant: Quant, op: Op = upsample) -> list[Op]:
        return [Op("upsample_nearest", [source], [output], dict(op.attrs), op.origin)]
    moved(graph, upsample, "upsample", build)


UPSAMPLE_NEAREST = OpSpec(
    kind="upsample_nearest",
    opcode=fb.OpCode.UPSAMPLE_NEAREST,
    options_type=fb.OpOptions.UpsampleNearestOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_upsample_nearest",
    lowerings=(Lowering(("aten.upsample_nearest",), _lower),),
    path={"*": "row copies"},
)
