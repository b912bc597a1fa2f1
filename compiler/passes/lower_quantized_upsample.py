"""lower_quantized_upsample: dequantize → nearest upsampling → quantize (shared quantization)
becomes `upsample_nearest` of the NHWC int8 map by its integer factors."""
from __future__ import annotations

from compiler.ir import Graph, Op, Quant
from compiler.options import LoweringOptions
from compiler.layout import moved


def lower_quantized_upsample(graph: Graph, options: LoweringOptions) -> Graph:
    for upsample in [op for op in graph.ops if op.kind == "aten.upsample_nearest"]:
        def build(source: str, output: str, quant: Quant, op: Op = upsample) -> list[Op]:
            return [Op("upsample_nearest", [source], [output], dict(op.attrs), op.origin)]
        moved(graph, upsample, "upsample", build)
    return graph
