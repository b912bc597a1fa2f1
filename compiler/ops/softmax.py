"""softmax: over the last axis, TFLite's int8 fixed-point algorithm; output scale 1/256, zp −128.

Lowering: dequantize → softmax → quantize(1/256, −128) becomes `softmax`, with
the input scaling and the radius of reference.softmax_s8 computed ahead of time.
"""
from __future__ import annotations

import numpy as np
import torch
from torch.fx import Node

from compiler import reference
from compiler.aten_node import origin_of
from compiler.errors import UnsupportedOpError
from compiler.ir import Graph, Op
from compiler.ops.spec import Import, Lowering, OpSpec
from compiler.quantized_pattern import match, replace
from compiler.reference import softmax_parameters
from compiler.schema import program_generated as fb

aten = torch.ops.aten


FIELDS = (("input_multiplier", "InputMultiplier"), ("input_left_shift", "InputLeftShift"), ("diff_min", "DiffMin"))


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [reference.softmax_s8(inputs[0], **{attr: op.attrs[attr] for attr, _ in FIELDS})]


def _write(builder, op: Op) -> int:
    fb.SoftmaxOptionsStart(builder)
    for attr, schema in FIELDS:
        getattr(fb, f"SoftmaxOptionsAdd{schema}")(builder, int(op.attrs[attr]))
    return fb.SoftmaxOptionsEnd(builder)


def _read(table) -> dict:
    options = fb.SoftmaxOptions()
    options.Init(table.Bytes, table.Pos)
    return {attr: getattr(options, schema)() for attr, schema in FIELDS}


OUTPUT_SCALE, OUTPUT_ZERO_POINT = 1.0 / 256.0, -128


def _lower(graph: Graph, softmax: Op) -> None:
    matched = match(graph, softmax, ("int8",), "softmax")
    (x, x_quant) = matched.sources[0]
    out = matched.out_quant
    if (float(out.scale[0]), int(out.zero_point[0])) != (OUTPUT_SCALE, OUTPUT_ZERO_POINT):
        raise UnsupportedOpError("softmax quantized to other than scale 1/256, zero point -128", softmax.origin,
                                 "Quantize with CortexMQuantizer (fixed softmax output quantization).")
    replace(graph, matched, Op("softmax", [x.name], [matched.output],
                               softmax_parameters(float(x_quant.scale[0])), softmax.origin))


def _import_softmax(node: Node, args: list) -> tuple[str, dict]:
    """Softmax over the last axis in Ember's layout: the last axis of a 2-D or 3-D tensor, or the
    channels (dim 1) of a 4-D map, which NHWC puts last."""
    rank = node.args[0].meta["val"].dim()
    dim = int(node.args[1]) % rank
    if not (dim == rank - 1 and rank in (1, 2, 3)) and not (rank == 4 and dim == 1):
        raise UnsupportedOpError(f"softmax over dim {node.args[1]} of a rank-{rank} tensor", origin_of(node),
                                 "Softmax lowers over the last axis (or the channels of a 4-D map).")
    return "aten.softmax", {}


SOFTMAX = OpSpec(
    kind="softmax",
    opcode=fb.OpCode.SOFTMAX,
    options_type=fb.OpOptions.SoftmaxOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_softmax",
    imports=(Import((aten.softmax.int, aten._softmax.default), _import_softmax, "softmax"),),
    lowerings=(Lowering(("aten.softmax",), _lower),),
    path={"*": "scalar (every tier)"},
)
