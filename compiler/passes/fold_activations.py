"""fold_activations: a clamp (ReLU, ReLU6, hardtanh) whose input comes only from an op whose
lowering fuses activations (Lowering.fuses_activation: linear, conv2d, add, mul, sub, transposed
conv, matmul) is folded into that op as its `activation` range; the lowering turns it into the
output clamp."""
from __future__ import annotations

from compiler.ir import Graph
from compiler.options import LoweringOptions
from compiler.passes.lower_ops import fusing_kinds


def fold_activations(graph: Graph, options: LoweringOptions) -> Graph:
    producers = fusing_kinds()
    for clamp in [op for op in graph.ops if op.kind == "aten.clamp"]:
        (source,) = clamp.inputs
        producer = graph.producer(source)
        if producer is None or producer.kind not in producers or len(graph.consumers(source)) != 1:
            continue
        if source in graph.outputs or "activation" in producer.attrs:
            continue
        producer.attrs["activation"] = (clamp.attrs["min"], clamp.attrs["max"])
        producer.outputs = list(clamp.outputs)
        graph.ops.remove(clamp)
        del graph.tensors[source]
    return graph
