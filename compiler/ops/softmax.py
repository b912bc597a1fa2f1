"""softmax: over the last axis, TFLite's int8 fixed-point algorithm; output scale 1/256, zp −128.

Lowering: dequantize → softmax → quantize(1/256, −128) becomes `softmax`, with
the input scaling and the radius of reference.softmax_s8 computed ahead of time.

An attention mask (compiler/attention.py softmax_mask: dequantize → where(mask, −inf, ·) →
softmax → quantize) goes into the op: `mask_rows` (the mask's period in rows) and `causal` (a
causal mask, no bytes), or a second input, the constant int8 mask [mask_rows, row] (1: masked).
The kernel leaves masked positions out of the max and the sum and gives them −128.
From 256 values on it takes 1 KiB of scratch: the exponentials of the 256 int8 differences, once.
"""
from __future__ import annotations

import ctypes

import numpy as np
import torch
from torch.fx import Node

from compiler import reference
from compiler.aten_node import origin_of
from compiler.attention import softmax_mask
from compiler.errors import UnsupportedOpError
from compiler.ir import Graph, Op
from compiler.ops.spec import Import, Lowering, OpSpec
from compiler.quantized_pattern import add_constant, match, replace
from compiler.reference import softmax_parameters
from compiler.schema import program_generated as fb

aten = torch.ops.aten


FIELDS = (("input_multiplier", "InputMultiplier"), ("input_left_shift", "InputLeftShift"), ("diff_min", "DiffMin"))
MASK_FIELDS = (("mask_rows", "MaskRows", int), ("causal", "Causal", int))  # appended; absent: no mask


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x = inputs[0]
    masked = reference.softmax_mask(x.shape, int(op.attrs.get("mask_rows", 0)), bool(op.attrs.get("causal", False)),
                                    inputs[1] if len(inputs) > 1 else None)
    return [reference.softmax_s8(x, **{attr: op.attrs[attr] for attr, _ in FIELDS}, masked=masked)]


def _write(builder, op: Op) -> int:
    fb.SoftmaxOptionsStart(builder)
    for attr, schema in FIELDS:
        getattr(fb, f"SoftmaxOptionsAdd{schema}")(builder, int(op.attrs[attr]))
    for attr, schema, kind in MASK_FIELDS:
        if op.attrs.get(attr):
            getattr(fb, f"SoftmaxOptionsAdd{schema}")(builder, kind(op.attrs[attr]))
    return fb.SoftmaxOptionsEnd(builder)


def _read(table) -> dict:
    options = fb.SoftmaxOptions()
    options.Init(table.Bytes, table.Pos)
    attrs = {attr: getattr(options, schema)() for attr, schema in FIELDS}
    masks = {attr: kind(getattr(options, schema)()) for attr, schema, kind in MASK_FIELDS}
    return attrs | (masks if masks["mask_rows"] else {})


def _mask_attrs(graph: Graph, softmax: Op, x_shape: tuple[int, ...], mask: np.ndarray) -> tuple[dict, list[str]]:
    """The options and the extra input of a constant boolean `mask` (True: masked) broadcast
    against the softmax's input of `x_shape`: a causal mask over each [Tq, Tk] block is the
    `causal` flag, any other the int8 rows [mask_rows, row]."""
    row = x_shape[-1]
    block = mask.reshape(-1, row) if mask.ndim != 2 else mask
    mask_rows = block.shape[0]
    rows = int(np.prod(x_shape[:-1]))
    if rows % mask_rows:
        raise UnsupportedOpError(f"softmax mask of shape {list(mask.shape)} over a {list(x_shape)} input",
                                 softmax.origin, "Give the mask the scores' shape or their last two dims'.")
    if np.array_equal(block, np.triu(np.ones(block.shape, bool), 1)):
        return {"mask_rows": mask_rows, "causal": True}, []
    name = add_constant(graph, f"{softmax.outputs[0]}_mask", "int8", block.astype(np.int8))
    return {"mask_rows": mask_rows, "causal": False}, [name]


OUTPUT_SCALE, OUTPUT_ZERO_POINT = 1.0 / 256.0, -128


def _lower(graph: Graph, softmax: Op) -> None:
    mask = None
    masking = graph.producer(softmax.inputs[0])
    if masking is not None and masking.kind == "aten.softmax_mask" and len(graph.consumers(masking.outputs[0])) == 1:
        condition, _, scores = masking.inputs
        mask = graph.tensors[condition].data.astype(bool)
        softmax.inputs = [scores]
        graph.ops.remove(masking)
    matched = match(graph, softmax, ("int8",), "softmax")
    (x, x_quant) = matched.sources[0]
    out = matched.out_quant
    if (float(out.scale[0]), int(out.zero_point[0])) != (OUTPUT_SCALE, OUTPUT_ZERO_POINT):
        raise UnsupportedOpError("softmax quantized to other than scale 1/256, zero point -128", softmax.origin,
                                 "Quantize with CortexMQuantizer (fixed softmax output quantization).")
    attrs, extra = softmax_parameters(float(x_quant.scale[0])), []
    if mask is not None:
        masks, extra = _mask_attrs(graph, softmax, tuple(x.shape), mask)
        attrs |= masks
    replace(graph, matched, Op("softmax", [x.name, *extra], [matched.output], attrs, softmax.origin))


def _import_softmax(node: Node, args: list) -> tuple[str, dict]:
    """Softmax over the last axis in Ember's layout: the last axis of a 2-D or 3-D tensor, or the
    channels (dim 1) of a 4-D map, which NHWC puts last."""
    rank = node.args[0].meta["val"].dim()
    dim = int(node.args[1]) % rank
    if not (dim == rank - 1 and rank in (1, 2, 3)) and not (rank == 4 and dim == 1):
        raise UnsupportedOpError(f"softmax over dim {node.args[1]} of a rank-{rank} tensor", origin_of(node),
                                 "Softmax lowers over the last axis (or the channels of a 4-D map).")
    return "aten.softmax", {}


def _import_mask(node: Node, args: list) -> tuple[str, dict]:
    """where(mask, -inf, scores) before a softmax: the softmax takes the mask (its lowering)."""
    if softmax_mask(node) is None:
        raise UnsupportedOpError(str(node.target), origin_of(node),
                                 "torch.where lowers inside an elementwise function of one tensor (torch.where(x > 0, "
                                 "x, 0.1 * x)), or as a constant attention mask of -inf right before a softmax over "
                                 "the last axis (masked_fill(mask, float('-inf')).softmax(-1)).")
    return "aten.softmax_mask", {}


def _scratch(lib: ctypes.CDLL, graph: Graph, op: Op) -> int:
    """The kernel's table of exponentials (em_softmax_s8_get_buffer_size): 1 KiB for 256 values or more."""
    shape = graph.tensors[op.inputs[0]].shape
    row = int(shape[-1]) if shape else 1
    rows = int(np.prod(shape[:-1], dtype=np.int64))
    return int(lib.em_softmax_s8_get_buffer_size(ctypes.c_int32(rows), ctypes.c_int32(row)))


SOFTMAX = OpSpec(
    kind="softmax",
    opcode=fb.OpCode.SOFTMAX,
    options_type=fb.OpOptions.SoftmaxOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_softmax",
    imports=(Import((aten.softmax.int, aten._softmax.default), _import_softmax, "softmax"),
             Import((aten.where.self,), _import_mask)),
    lowerings=(Lowering(("aten.softmax",), _lower),),
    path={"*": "scalar (every tier)"},
    scratch=_scratch,
)
