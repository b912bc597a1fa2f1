"""fold_quantize_pairs: a dequantize of int8 feeding a quantize, i.e. a value handed from one
quantization to another (PT2E inserts them where a producer's quantization is fixed elsewhere,
e.g. a softmax output joining a cat), becomes one `requantize`; a pair with equal parameters is
a no-op and vanishes (its consumers read the int8 tensor itself)."""
from __future__ import annotations

from compiler.ir import Graph, Op
from compiler.options import LoweringOptions
from compiler.layout import requantize_attrs, same_quant


def fold_quantize_pairs(graph: Graph, options: LoweringOptions) -> Graph:
    for quantize in [op for op in graph.ops if op.kind == "quantize"]:
        dequantize = graph.producer(quantize.inputs[0])
        if dequantize is None or dequantize.kind != "dequantize" or dequantize.attrs.get("per_channel"):
            continue
        source = graph.tensors[dequantize.inputs[0]]
        if source.dtype != "int8":
            continue
        source_quant, target_quant = dequantize.attrs["quant"], quantize.attrs["quant"]
        if same_quant(source_quant, target_quant):
            graph.replace_uses(quantize.outputs[0], source.name)
            graph.ops.remove(quantize)
        else:
            source.quant = source_quant
            graph.tensors[quantize.outputs[0]].quant = target_quant
            graph.ops[graph.ops.index(quantize)] = Op("requantize", [source.name], list(quantize.outputs),
                                                      requantize_attrs(source_quant, target_quant), quantize.origin)
    return graph
