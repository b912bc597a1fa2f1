"""lower_quantized_mul: dequantize(a) · dequantize(b) (+ activation) → quantize becomes `mul`:
the centred int8 product requantized by scale_a · scale_b / scale_out (reference.mul_s8)."""
from __future__ import annotations

from compiler.fixedpoint import quantize_multiplier
from compiler.ir import Graph, Op
from compiler.options import LoweringOptions
from compiler.quantized_pattern import QuantizedOp, clamp_range, match, nhwc_operand, replace


def lower_product(graph: Graph, matched: QuantizedOp, kind: str) -> None:
    """Replaces a matched product of two int8 activations (mul, or batch_matmul) by `kind`: both
    zero points as offsets, one requantization by scale_a · scale_b / scale_out."""
    (a, a_quant), (b, b_quant) = matched.sources
    out = matched.out_quant
    multiplier, shift = quantize_multiplier(float(a_quant.scale[0]) * float(b_quant.scale[0]) / float(out.scale[0]))
    act_min, act_max = clamp_range(matched.op.attrs.get("activation"), out)
    out_rank = len(graph.tensors[matched.output].shape)
    inputs = [nhwc_operand(graph, a, out_rank), nhwc_operand(graph, b, out_rank)]
    replace(graph, matched, Op(kind, inputs, [matched.output], {
        "a_offset": -int(a_quant.zero_point[0]), "b_offset": -int(b_quant.zero_point[0]),
        "output_offset": int(out.zero_point[0]), "output_multiplier": multiplier, "output_shift": shift,
        "activation_min": act_min, "activation_max": act_max,
    }, matched.op.origin))


def lower_quantized_mul(graph: Graph, options: LoweringOptions) -> Graph:
    for mul in [op for op in graph.ops if op.kind == "aten.mul"]:
        lower_product(graph, match(graph, mul, ("int8", "int8"), "mul"), "mul")
    return graph
