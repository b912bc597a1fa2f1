"""lower_quantized_matmul: dequantize → matmul / bmm (+ activation) → quantize becomes
- `batch_matmul` when both operands are activations ([B, M, K] × [B, K, N], or 2-D): both zero
  points stay in the kernel, one per-tensor requantization (scale_a · scale_b / scale_out);
- `fully_connected` when the second operand is a constant [K, N] (quantized as weights, its
  columns the output channels): x [M, K] @ W is linear(x, Wᵀ) without bias.
"""
from __future__ import annotations

import numpy as np

from compiler.errors import UnsupportedOpError
from compiler.ir import Graph, Op, Quant, Tensor
from compiler.options import LoweringOptions
from compiler.passes.lower_quantized_mul import lower_product
from compiler.quantized_pattern import (QuantizedOp, add_constant, clamp_range, match, replace,
                                               weighted_constants)


def _fully_connected(graph: Graph, matched: QuantizedOp, matmul: Op) -> None:
    (x, _), (w, w_quant) = matched.sources
    if len(x.shape) != 2:
        raise UnsupportedOpError(f"matmul of a rank-{len(x.shape)} activation by a constant", matmul.origin,
                                 "Reshape the activation to [rows, K] first (or use nn.Linear).")
    transposed = Tensor(w.name, w.dtype, w.shape[::-1], data=w.data.T)  # [N, K]: output channels first
    quant = Quant(w_quant.scale, w_quant.zero_point, {None: None, 1: 0}.get(w_quant.axis, -1))
    constants = weighted_constants(QuantizedOp(matmul, [matched.sources[0], (transposed, quant)],
                                               matched.quantize, matched.out_quant), "matmul")
    stem = matmul.outputs[0]
    weight_name = add_constant(graph, f"{stem}_weights", "int8", constants.weights, constants.weight_quant)
    bias_name = add_constant(graph, f"{stem}_bias", "int32", constants.folded_bias.astype(np.int32))
    act_min, act_max = clamp_range(matmul.attrs.get("activation"), matched.out_quant)
    replace(graph, matched, Op("fully_connected", [x.name, weight_name, bias_name], [matched.output], {
        "multiplier": constants.multiplier, "shift": constants.shift,
        "output_offset": int(matched.out_quant.zero_point[0]), "activation_min": act_min, "activation_max": act_max,
    }, matmul.origin))


def lower_quantized_matmul(graph: Graph, options: LoweringOptions) -> Graph:
    for matmul in [op for op in graph.ops if op.kind == "aten.matmul"]:
        matched = match(graph, matmul, ("int8", "int8"), "matmul")
        a, b = (tensor for tensor, _ in matched.sources)
        if a.is_constant:
            raise UnsupportedOpError("matmul of a constant by an activation", matmul.origin,
                                     "Write it as activation @ constant (transpose both sides).")
        if b.is_constant:
            _fully_connected(graph, matched, matmul)
        else:
            lower_product(graph, matched, "batch_matmul")
    return graph
