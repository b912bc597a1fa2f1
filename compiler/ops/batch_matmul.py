"""batch_matmul: a [B, M, K] × b [B, K, N] of two int8 activations → int8 [B, M, N].

Lowering: dequantize → matmul / bmm (+ activation) → quantize becomes
- `batch_matmul` when both operands are activations ([B, M, K] × [B, K, N], or 2-D): both zero
  points stay in the kernel, one per-tensor requantization (scale_a · scale_b / scale_out);
- `fully_connected` when the second operand is a constant [K, N] (quantized as weights, its
  columns the output channels): x [M, K] @ W is linear(x, Wᵀ) without bias.
"""
from __future__ import annotations

import numpy as np
import torch
from torch.fx import Node

from compiler import reference
from compiler.aten_node import origin_of
from compiler.errors import UnsupportedOpError
from compiler.ir import Graph, Op, Quant, Tensor
from compiler.ops.mul import lower_product
from compiler.ops.spec import Import, Lowering, OpSpec, tier_paths
from compiler.quantized_pattern import (QuantizedOp, add_constant, clamp_range, match, replace, weighted_constants)
from compiler.schema import program_generated as fb

aten = torch.ops.aten


# attrs, with their schema BatchMatmulOptions field names
FIELDS = (("a_offset", "Input1Offset"), ("b_offset", "Input2Offset"), ("output_offset", "OutputOffset"),
          ("output_multiplier", "OutputMultiplier"), ("output_shift", "OutputShift"),
          ("activation_min", "ActivationMin"), ("activation_max", "ActivationMax"))


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [reference.batch_matmul_s8(inputs[0], inputs[1], **{attr: op.attrs[attr] for attr, _ in FIELDS})]


def _write(builder, op: Op) -> int:
    fb.BatchMatmulOptionsStart(builder)
    for attr, schema in FIELDS:
        getattr(fb, f"BatchMatmulOptionsAdd{schema}")(builder, int(op.attrs[attr]))
    return fb.BatchMatmulOptionsEnd(builder)


def _read(table) -> dict:
    options = fb.BatchMatmulOptions()
    options.Init(table.Bytes, table.Pos)
    return {attr: getattr(options, schema)() for attr, schema in FIELDS}


def _macs(graph: Graph, op: Op) -> int:
    k = graph.tensors[op.inputs[0]].shape[-1]  # a [B, M, K] × b [B, K, N]
    return int(np.prod(graph.tensors[op.outputs[0]].shape)) * k


def _fully_connected(graph: Graph, matched: QuantizedOp, matmul: Op) -> None:
    (x, _), (w, w_quant) = matched.sources
    if len(x.shape) != 2:
        raise UnsupportedOpError(f"matmul of a rank-{len(x.shape)} activation by a constant", matmul.origin,
                                 "Reshape the activation to [rows, K] first (or use nn.Linear).")
    transposed = Tensor(w.name, w.dtype, w.shape[::-1], data=w.data.T)  # [N, K]: output channels first
    quant = Quant(w_quant.scale, w_quant.zero_point, {None: None, 1: 0}.get(w_quant.axis, -1), w_quant.quant_range)
    constants = weighted_constants(QuantizedOp(matmul, [matched.sources[0], (transposed, quant)],
                                               matched.quantize, matched.out_quant), "matmul")
    stem = matmul.outputs[0]
    weight_name = add_constant(graph, f"{stem}_weights", constants.weight_dtype, constants.weights, constants.weight_quant)
    bias_name = add_constant(graph, f"{stem}_bias", "int32", constants.folded_bias.astype(np.int32))
    act_min, act_max = clamp_range(matmul.attrs.get("activation"), matched.out_quant)
    replace(graph, matched, Op("fully_connected", [x.name, weight_name, bias_name], [matched.output], {
        "multiplier": constants.multiplier, "shift": constants.shift,
        "output_offset": int(matched.out_quant.zero_point[0]), "activation_min": act_min, "activation_max": act_max,
    }, matmul.origin))


def _take_scale(graph: Graph, matmul: Op) -> float:
    """The number the product is scaled by before it is quantized (the importer's
    aten.product_scale, compiler/attention.py), taken into the op; 1 when none."""
    consumers = graph.consumers(matmul.outputs[0])
    if len(consumers) != 1 or consumers[0].kind != "aten.product_scale":
        return 1.0
    (scale,) = consumers
    del graph.tensors[matmul.outputs[0]]
    matmul.outputs = list(scale.outputs)
    graph.ops.remove(scale)
    return float(scale.attrs["factor"])


def _lower(graph: Graph, matmul: Op) -> None:
    factor = _take_scale(graph, matmul)
    matched = match(graph, matmul, ("int8", "int8"), "matmul")
    a, b = (tensor for tensor, _ in matched.sources)
    if a.is_constant:
        raise UnsupportedOpError("matmul of a constant by an activation", matmul.origin,
                                 "Write it as activation @ constant (transpose both sides).")
    if b.is_constant:
        if factor != 1.0:  # the quantizer fuses a scale with a product of two activations only
            raise UnsupportedOpError("a scaled matmul by a constant", matmul.origin, "Scale the constant instead.")
        _fully_connected(graph, matched, matmul)
    else:
        lower_product(graph, matched, "batch_matmul", factor)


def _import_matmul(node: Node, args: list) -> tuple[str, dict]:
    """bmm / matmul of two [B, M, K] × [B, K, N] (or 2-D) activations, or of an activation
    [M, K] and a constant [K, N]; no broadcasting of batch dimensions."""
    a, b = (arg.meta["val"] for arg in node.args[:2])
    same_batches = a.dim() == b.dim() and a.shape[:-2] == b.shape[:-2]
    if a.dim() not in (2, 3) or b.dim() not in (2, 3) or not (same_batches or (a.dim() == 2 and b.dim() == 2)):
        raise UnsupportedOpError(f"matmul of shapes {list(a.shape)} × {list(b.shape)}", origin_of(node),
                                 "Ember lowers [B, M, K] × [B, K, N] and [M, K] × [K, N]; reshape other "
                                 "ranks (e.g. attention's 4-D maps) to 3-D first.")
    return "aten.matmul", {}


BATCH_MATMUL = OpSpec(
    kind="batch_matmul",
    opcode=fb.OpCode.BATCH_MATMUL,
    options_type=fb.OpOptions.BatchMatmulOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_batch_matmul",
    imports=(Import((aten.matmul.default, aten.bmm.default), _import_matmul, "matmul"),),
    lowerings=(Lowering(("aten.matmul",), _lower, after_folds=True, fuses_activation=True),),
    macs=_macs,
    path=tier_paths("MVE 16 columns"),
)
