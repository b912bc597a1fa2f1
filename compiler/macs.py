"""Multiply-accumulates per op of a lowered graph, from its shapes alone (each op's record,
OpSpec.macs; weight layouts are the lowered ones, NHWC activations)."""
from __future__ import annotations

from compiler.ir import Graph, Op
from compiler.ops import OP_TABLE


def op_macs(graph: Graph, op: Op) -> int:
    spec = OP_TABLE.get(op.kind)
    return spec.macs(graph, op) if spec is not None else 0


def graph_macs(graph: Graph) -> int:
    """Multiply-accumulates of one inference."""
    return sum(op_macs(graph, op) for op in graph.ops)
