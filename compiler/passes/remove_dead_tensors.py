"""remove_dead_tensors: drops ops whose outputs nobody reads, then tensors nobody names."""
from __future__ import annotations

from compiler.ir import Graph
from compiler.options import LoweringOptions


def remove_dead_tensors(graph: Graph, options: LoweringOptions) -> Graph:
    changed = True
    while changed:
        read = {t for op in graph.ops for t in op.inputs} | set(graph.outputs)
        alive = [op for op in graph.ops if any(t in read for t in op.outputs)]
        changed = len(alive) != len(graph.ops)
        graph.ops = alive
    named = {t for op in graph.ops for t in op.inputs + op.outputs} | set(graph.inputs) | set(graph.outputs)
    graph.tensors = {name: t for name, t in graph.tensors.items() if name in named}
    return graph
