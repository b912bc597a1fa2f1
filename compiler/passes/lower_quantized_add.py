"""lower_quantized_add: dequantize(a) + dequantize(b) (+ activation) → quantize becomes `add`.

Both inputs are brought to a common scale, 2·max(scale_a, scale_b), after a left shift of
ADD_LEFT_SHIFT bits of headroom; the sum is requantized to the output scale
(reference.add_s8). All multipliers and shifts are computed here, ahead of time. A constant
operand against a 4-D map is laid out NHWC (nhwc_operand).
"""
from __future__ import annotations

from compiler.fixedpoint import quantize_multiplier
from compiler.ir import Graph, Op
from compiler.options import LoweringOptions
from compiler.quantized_pattern import clamp_range, match, nhwc_operand, replace
from compiler.reference import ADD_LEFT_SHIFT


def lower_add_like(graph: Graph, add: Op, what: str, b_sign: int) -> None:
    """Replaces the quantized `add` (b_sign 1) or `sub` (b_sign −1: b's multiplier negated, so
    the kernel adds −b) pattern around `add` by one int8 `add`; an `alpha` (a + alpha·b) scales
    b's scale, its sign b's."""
    matched = match(graph, add, ("int8", "int8"), what)
    (a, a_quant), (b, b_quant) = matched.sources
    alpha = add.attrs.get("alpha", 1.0)
    b_sign = b_sign if alpha >= 0 else -b_sign
    scale_a, scale_b = float(a_quant.scale[0]), float(b_quant.scale[0]) * abs(alpha)
    out = matched.out_quant
    twice_max = 2.0 * max(scale_a, scale_b)
    a_multiplier, a_shift = quantize_multiplier(scale_a / twice_max)
    b_multiplier, b_shift = quantize_multiplier(scale_b / twice_max)
    out_multiplier, out_shift = quantize_multiplier(twice_max / ((1 << ADD_LEFT_SHIFT) * float(out.scale[0])))
    act_min, act_max = clamp_range(add.attrs.get("activation"), out)
    out_rank = len(graph.tensors[matched.output].shape)
    inputs = [nhwc_operand(graph, a, out_rank), nhwc_operand(graph, b, out_rank)]
    replace(graph, matched, Op("add", inputs, [matched.output], {
        "a_offset": -int(a_quant.zero_point[0]), "a_multiplier": a_multiplier, "a_shift": a_shift,
        "b_offset": -int(b_quant.zero_point[0]), "b_multiplier": b_sign * b_multiplier, "b_shift": b_shift,
        "output_offset": int(out.zero_point[0]), "output_multiplier": out_multiplier, "output_shift": out_shift,
        "activation_min": act_min, "activation_max": act_max,
    }, add.origin))


def lower_quantized_add(graph: Graph, options: LoweringOptions) -> Graph:
    for add in [op for op in graph.ops if op.kind == "aten.add"]:
        lower_add_like(graph, add, "add", 1)
    return graph
