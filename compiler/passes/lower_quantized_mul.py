"""lower_quantized_mul: dequantize(a) · dequantize(b) (+ activation) → quantize becomes `mul`:
the centred int8 product requantized by scale_a · scale_b / scale_out (reference.mul_s8)."""
from __future__ import annotations

from compiler.fixedpoint import quantize_multiplier
from compiler.ir import Graph, Op
from compiler.options import LoweringOptions
from compiler.passes.quantized_pattern import clamp_range, match, replace


def lower_quantized_mul(graph: Graph, options: LoweringOptions) -> Graph:
    for mul in [op for op in graph.ops if op.kind == "aten.mul"]:
        matched = match(graph, mul, ("int8", "int8"), "mul")
        (a, a_quant), (b, b_quant) = matched.sources
        out = matched.out_quant
        multiplier, shift = quantize_multiplier(float(a_quant.scale[0]) * float(b_quant.scale[0]) / float(out.scale[0]))
        act_min, act_max = clamp_range(mul.attrs.get("activation"), out)
        replace(graph, matched, Op("mul", [a.name, b.name], [matched.output], {
            "a_offset": -int(a_quant.zero_point[0]), "b_offset": -int(b_quant.zero_point[0]),
            "output_offset": int(out.zero_point[0]), "output_multiplier": multiplier, "output_shift": shift,
            "activation_min": act_min, "activation_max": act_max,
        }, mul.origin))
    return graph
