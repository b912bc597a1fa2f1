"""lower_quantized_pool2d: dequantize → max / average pool → quantize, with the output sharing
the input's quantization (CortexMQuantizer makes it so), becomes `max_pool2d` / `avg_pool2d` on
the int8 codes."""
from __future__ import annotations

import numpy as np

from compiler.errors import UnsupportedOpError
from compiler.ir import Graph, Op
from compiler.options import LoweringOptions
from compiler.quantized_pattern import match, replace

LOWERED = {"aten.max_pool2d": "max_pool2d", "aten.avg_pool2d": "avg_pool2d"}


def _lower(graph: Graph, pool: Op) -> None:
    matched = match(graph, pool, ("int8",), "pooling")
    (x, x_quant) = matched.sources[0]
    out = matched.out_quant
    if not (np.array_equal(x_quant.scale, out.scale) and np.array_equal(x_quant.zero_point, out.zero_point)):
        raise UnsupportedOpError("pooling whose output is quantized unlike its input", pool.origin,
                                 "Quantize with CortexMQuantizer (pooling shares its input's scale).")
    attrs = {"kernel": pool.attrs["kernel"], "stride": pool.attrs["stride"], "padding": pool.attrs["padding"],
             "activation_min": -128, "activation_max": 127}
    if pool.kind == "aten.avg_pool2d":
        attrs |= {"count_include_pad": pool.attrs["count_include_pad"], "zero_point": int(out.zero_point[0])}
    replace(graph, matched, Op(LOWERED[pool.kind], [x.name], [matched.output], attrs, pool.origin))


def lower_quantized_pool2d(graph: Graph, options: LoweringOptions) -> Graph:
    for pool in [op for op in graph.ops if op.kind in LOWERED]:
        _lower(graph, pool)
    return graph
