"""lower_quantized_concatenation: dequantize → cat → quantize becomes `concatenation` on the
int8 codes; PyTorch's dim is mapped to Ember's NHWC axis for 4-D maps.

CortexMQuantizer makes every input share the output's quantization where that is free, so the
device only copies. An input quantized otherwise (a user's quantizer config, or a value whose
quantization is fixed elsewhere) is requantized onto the output's first (layout.requantized).
"""
from __future__ import annotations

from compiler.ir import Graph, Op
from compiler.options import LoweringOptions
from compiler.passes.layout import ember_axis, requantized
from compiler.passes.quantized_pattern import match, replace


def lower_quantized_concatenation(graph: Graph, options: LoweringOptions) -> Graph:
    for cat in [op for op in graph.ops if op.kind == "aten.cat"]:
        matched = match(graph, cat, ("int8",) * len(cat.inputs), "cat")
        inputs = [requantized(graph, t.name, quant, matched.out_quant, cat) for t, quant in matched.sources]
        axis = ember_axis(cat.attrs["dim"], cat.attrs["rank"])
        replace(graph, matched, Op("concatenation", inputs, [matched.output], {"axis": axis}, cat.origin))
    return graph
