"""lower_quantized_slice: dequantize → slice / narrow / select → quantize (shared quantization)
becomes `slice` on the int8 codes along the dim's Ember axis; a select (which drops the dim) is
a slice that keeps it, then a reshape."""
from __future__ import annotations

from compiler.ir import Graph, Op, Quant, Tensor
from compiler.options import LoweringOptions
from compiler.layout import ember_axis, moved, reshaped


def _build(graph: Graph, op: Op) -> callable:
    def build(source: str, output: str, quant: Quant) -> list[Op]:
        shape = list(graph.tensors[source].shape)
        rank, dim = len(shape), op.attrs["dim"]
        axis = ember_axis(dim, rank)
        begin, step = [0] * rank, [1] * rank
        begin[axis], step[axis] = op.attrs["start"], op.attrs["step"]
        if not op.attrs["squeeze"]:
            size = list(graph.tensors[output].shape)
            return [Op("slice", [source], [output], {"begin": begin, "step": step, "size": size}, op.origin)]
        shape[axis] = 1
        kept = graph.add_tensor(Tensor(graph.unique_name(f"{output}_kept"), "int8", tuple(shape), quant)).name
        return [Op("slice", [source], [kept], {"begin": begin, "step": step, "size": shape}, op.origin),
                *reshaped(graph, kept, output, op.origin)]
    return build


def lower_quantized_slice(graph: Graph, options: LoweringOptions) -> Graph:
    for op in [op for op in graph.ops if op.kind == "aten.slice"]:
        moved(graph, op, "slice", _build(graph, op))
    return graph
