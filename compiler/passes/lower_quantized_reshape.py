"""lower_quantized_reshape: dequantize → reshape / flatten → quantize with shared quantization
becomes an int8 `reshape`. A reshape feeding a linear is then folded into it
(lower_quantized_linear); one left at the end has no kernel yet and is reported by name."""
from __future__ import annotations

from compiler.ir import Graph, Op
from compiler.options import LoweringOptions
from compiler.passes.quantized_pattern import match, replace


def lower_quantized_reshape(graph: Graph, options: LoweringOptions) -> Graph:
    for reshape in [op for op in graph.ops if op.kind == "aten.reshape"]:
        matched = match(graph, reshape, ("int8",), "reshape")
        replace(graph, matched, Op("reshape", [matched.sources[0][0].name], [matched.output], {}, reshape.origin))
    return graph
