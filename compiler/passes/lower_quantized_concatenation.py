"""lower_quantized_concatenation: dequantize → cat → quantize, with every input sharing the
output's quantization (CortexMQuantizer makes it so), becomes `concatenation` on the int8
codes; PyTorch's dim is mapped to Ember's NHWC axis for 4-D maps."""
from __future__ import annotations

import numpy as np

from compiler.errors import UnsupportedOpError
from compiler.ir import Graph, Op
from compiler.options import LoweringOptions
from compiler.passes.quantized_pattern import match, replace

NCHW_TO_NHWC_AXIS = {0: 0, 1: 3, 2: 1, 3: 2}


def lower_quantized_concatenation(graph: Graph, options: LoweringOptions) -> Graph:
    for cat in [op for op in graph.ops if op.kind == "aten.cat"]:
        matched = match(graph, cat, ("int8",) * len(cat.inputs), "cat")
        out = matched.out_quant
        for _, quant in matched.sources:
            if not (np.array_equal(quant.scale, out.scale) and np.array_equal(quant.zero_point, out.zero_point)):
                raise UnsupportedOpError("cat of inputs quantized unlike its output", cat.origin,
                                         "Quantize with CortexMQuantizer (cat shares one quantization).")
        dim, rank = cat.attrs["dim"], cat.attrs["rank"]
        axis = NCHW_TO_NHWC_AXIS[dim] if rank == 4 else dim
        replace(graph, matched, Op("concatenation", [t.name for t, _ in matched.sources], [matched.output],
                                   {"axis": axis}, cat.origin))
    return graph
