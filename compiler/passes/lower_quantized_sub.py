"""lower_quantized_sub: dequantize(a) − dequantize(b) (+ activation) → quantize becomes `add`
with b's rescaling multiplier negated: the kernel rescales −(b − zp_b) onto the common scale, so
a − b costs exactly an add (reference.add_s8 takes multipliers of either sign)."""
from __future__ import annotations

from compiler.ir import Graph
from compiler.options import LoweringOptions
from compiler.passes.lower_quantized_add import lower_add_like


def lower_quantized_sub(graph: Graph, options: LoweringOptions) -> Graph:
    for sub in [op for op in graph.ops if op.kind == "aten.sub"]:
        lower_add_like(graph, sub, "sub", -1)
    return graph
