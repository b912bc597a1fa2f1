"""lower_quantized_softmax: dequantize → softmax → quantize(1/256, −128) becomes `softmax`, with
the input scaling and the radius of reference.softmax_s8 computed ahead of time."""
from __future__ import annotations

from compiler.errors import UnsupportedOpError
from compiler.ir import Graph, Op
from compiler.options import LoweringOptions
from compiler.quantized_pattern import match, replace
from compiler.reference import softmax_parameters

OUTPUT_SCALE, OUTPUT_ZERO_POINT = 1.0 / 256.0, -128


def lower_quantized_softmax(graph: Graph, options: LoweringOptions) -> Graph:
    for softmax in [op for op in graph.ops if op.kind == "aten.softmax"]:
        matched = match(graph, softmax, ("int8",), "softmax")
        (x, x_quant) = matched.sources[0]
        out = matched.out_quant
        if (float(out.scale[0]), int(out.zero_point[0])) != (OUTPUT_SCALE, OUTPUT_ZERO_POINT):
            raise UnsupportedOpError("softmax quantized to other than scale 1/256, zero point -128", softmax.origin,
                                     "Quantize with CortexMQuantizer (fixed softmax output quantization).")
        replace(graph, matched, Op("softmax", [x.name], [matched.output],
                                   softmax_parameters(float(x_quant.scale[0])), softmax.origin))
    return graph
