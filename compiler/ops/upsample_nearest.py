"""upsample_nearest: an NHWC map repeated by integer factors along H and W (dtype-generic).

Lowering: dequantize → nearest upsampling → quantize (shared quantization)
becomes `upsample_nearest` of the NHWC int8 map by its integer factors.
"""
from __future__ import annotations

import numpy as np
import torch
from torch.fx import Node

from compiler import reference
from compiler.aten_node import origin_of
from compiler.errors import UnsupportedOpError
from compiler.ir import Graph, Op, Quant
from compiler.layout import moved
from compiler.ops.spec import Import, Lowering, OpSpec
from compiler.schema import program_generated as fb

aten = torch.ops.aten


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


def _import_upsample_nearest(node: Node, args: list) -> tuple[str, dict]:
    """Nearest upsampling by integer factors along H and W."""
    (_, _, h, w), (_, _, oh, ow) = node.args[0].meta["val"].shape, node.meta["val"].shape
    given = node.args[2] if node.target == aten.upsample_nearest2d.vec and len(node.args) > 2 else None
    exact = oh % h == 0 and ow % w == 0 and (given is None or [float(f) for f in given] == [oh // h, ow // w])
    if not exact:
        raise UnsupportedOpError(f"nearest upsampling of {h}x{w} to {oh}x{ow}", origin_of(node),
                                 "Only integer scale factors lower (e.g. scale_factor=2).")
    return "aten.upsample_nearest", {"scale_h": int(oh // h), "scale_w": int(ow // w)}


def _import_unsupported_resize(node: Node, args: list) -> tuple[str, dict]:
    raise UnsupportedOpError(str(node.target), origin_of(node),
                             "Only nearest upsampling by integer factors lowers (mode='nearest').")


UPSAMPLE_NEAREST = OpSpec(
    kind="upsample_nearest",
    opcode=fb.OpCode.UPSAMPLE_NEAREST,
    options_type=fb.OpOptions.UpsampleNearestOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_upsample_nearest",
    imports=(Import((aten.upsample_nearest2d.vec, aten.upsample_nearest2d.default), _import_upsample_nearest, "shared",
                    int16=True),
             Import((aten.upsample_bicubic2d.vec,), _import_unsupported_resize)),
    lowerings=(Lowering(("aten.upsample_nearest",), _lower),),
    path={"*": "row copies"},
)
