"""lower_quantized_reshape: dequantize → reshape / view / flatten / squeeze / unsqueeze →
quantize (shared quantization) becomes an int8 `reshape` that keeps PyTorch's element order:
a 4-D map is NHWC here, so a reshape that changes its rank (or a 4-D result) goes through a
transpose to or from NCHW where the two orders differ (layout.reshaped). A flatten feeding a
linear then folds into it (lower_quantized_linear); the planner makes a reshape an alias of its
input, so the reshape itself moves no bytes."""
from __future__ import annotations

from compiler.ir import Graph, Op, Quant
from compiler.options import LoweringOptions
from compiler.layout import moved, reshaped


def lower_quantized_reshape(graph: Graph, options: LoweringOptions) -> Graph:
    for reshape in [op for op in graph.ops if op.kind == "aten.reshape"]:
        def build(source: str, output: str, quant: Quant, op: Op = reshape) -> list[Op]:
            return reshaped(graph, source, output, op.origin)
        moved(graph, reshape, "reshape", build)
    return graph
