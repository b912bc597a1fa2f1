"""lower_ops / lower_ops_after_folds: every op module's lowerings (OpSpec.lowerings), each over
the importer's ops of its kinds, in the order of the operator table."""
from __future__ import annotations

from compiler.ir import Graph
from compiler.ops import OP_TABLE
from compiler.ops.spec import Lowering
from compiler.options import LoweringOptions


def _lowerings(after_folds: bool) -> list[Lowering]:
    return [lowering for spec in OP_TABLE.values() for lowering in spec.lowerings if lowering.after_folds == after_folds]


def _run(graph: Graph, after_folds: bool) -> Graph:
    for lowering in _lowerings(after_folds):
        for op in [op for op in graph.ops if op.kind in lowering.imported]:
            lowering.lower(graph, op)
    return graph


def lower_ops(graph: Graph, options: LoweringOptions) -> Graph:
    return _run(graph, after_folds=False)


def lower_ops_after_folds(graph: Graph, options: LoweringOptions) -> Graph:
    return _run(graph, after_folds=True)


def fusing_kinds() -> frozenset[str]:
    """The importer's kinds whose lowering takes a following ReLU / clamp as its activation."""
    return frozenset(kind for spec in OP_TABLE.values() for lowering in spec.lowerings if lowering.fuses_activation
                     for kind in lowering.imported)
