"""lower_quantized_transpose: dequantize → permute / transpose → quantize (shared quantization)
becomes `transpose` on the int8 codes, the PyTorch permutation of a 4-D map restated in NHWC
axes (a permute to NHWC just before a flatten then cancels: fold_data_movement)."""
from __future__ import annotations

from compiler.ir import Graph, Op, Quant
from compiler.options import LoweringOptions
from compiler.layout import ember_perm, moved


def lower_quantized_transpose(graph: Graph, options: LoweringOptions) -> Graph:
    for permute in [op for op in graph.ops if op.kind == "aten.permute"]:
        def build(source: str, output: str, quant: Quant, permute: Op = permute) -> list[Op]:
            return [Op("transpose", [source], [output], {"perm": ember_perm(permute.attrs["perm"])}, permute.origin)]
        moved(graph, permute, "permute", build)
    return graph
