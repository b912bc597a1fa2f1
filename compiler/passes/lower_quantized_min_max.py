"""lower_quantized_min_max: dequantize → minimum / maximum → quantize, with both inputs sharing
the output's quantization (CortexMQuantizer makes it so), becomes `minimum` / `maximum` on the
int8 codes. A constant operand against a 4-D map (e.g. a [1, C, 1, 1] channel vector) is laid out
NHWC (nhwc_operand)."""
from __future__ import annotations

import numpy as np

from compiler.errors import UnsupportedOpError
from compiler.ir import Graph, Op
from compiler.options import LoweringOptions
from compiler.quantized_pattern import match, nhwc_operand, replace

LOWERED = {"aten.minimum": "minimum", "aten.maximum": "maximum"}


def _lower(graph: Graph, op: Op) -> None:
    what = LOWERED[op.kind]
    matched = match(graph, op, ("int8", "int8"), what)
    out = matched.out_quant
    for _, quant in matched.sources:
        if not (np.array_equal(quant.scale, out.scale) and np.array_equal(quant.zero_point, out.zero_point)):
            raise UnsupportedOpError(f"{what} of inputs quantized unlike its output", op.origin,
                                     f"Quantize with CortexMQuantizer ({what} shares one quantization).")
    out_rank = len(graph.tensors[matched.output].shape)
    inputs = [nhwc_operand(graph, tensor, out_rank) for tensor, _ in matched.sources]
    replace(graph, matched, Op(what, inputs, [matched.output], {}, op.origin))


def lower_quantized_min_max(graph: Graph, options: LoweringOptions) -> Graph:
    for op in [op for op in graph.ops if op.kind in LOWERED]:
        _lower(graph, op)
    return graph
