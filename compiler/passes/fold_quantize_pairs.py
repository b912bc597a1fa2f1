"""fold_quantize_pairs: a dequantize of int8 (int16) feeding a quantize, i.e. a value handed from one
quantization to another (PT2E inserts them where a producer's quantization is fixed elsewhere,
e.g. a softmax output joining a cat, and where an int16 region of an A16W8 graph meets an int8
one), becomes one `requantize`; a pair with equal parameters and dtypes is a no-op and vanishes
(its consumers read the source tensor itself)."""
from __future__ import annotations

from compiler.ir import Graph, Op
from compiler.options import LoweringOptions
from compiler.layout import SCHEMA_DTYPES, requantize_attrs, same_quant


def fold_quantize_pairs(graph: Graph, options: LoweringOptions) -> Graph:
    for quantize in [op for op in graph.ops if op.kind == "quantize"]:
        dequantize = graph.producer(quantize.inputs[0])
        if dequantize is None or dequantize.kind != "dequantize" or dequantize.attrs.get("per_channel"):
            continue
        source, target = graph.tensors[dequantize.inputs[0]], graph.tensors[quantize.outputs[0]]
        if source.dtype not in SCHEMA_DTYPES or target.dtype not in SCHEMA_DTYPES:
            continue
        source_quant, target_quant = dequantize.attrs["quant"], quantize.attrs["quant"]
        if same_quant(source_quant, target_quant) and source.dtype == target.dtype:
            graph.replace_uses(quantize.outputs[0], source.name)
            graph.ops.remove(quantize)
        else:
            source.quant = source_quant
            graph.tensors[quantize.outputs[0]].quant = target_quant
            graph.ops[graph.ops.index(quantize)] = Op("requantize", [source.name], list(quantize.outputs),
                                                      requantize_attrs(source_quant, target_quant, target.dtype),
                                                      quantize.origin)
    return graph
