"""Which kernel path each op of a lowered graph runs on its program's tier, and which selectable
Helium variants its firmware must link: read from the ops' records (OpSpec.path, .variants,
.takes_variants in compiler/ops/), each of which mirrors its kernel's C dispatch.

Used by `python -m compiler inspect` (and its Model Explorer graph) and by the build's selective
link below the op (runtime/kernels/include/em_nn_variants.h). tests/compiler/test_inspect.py
checks each rule's branches on shapes that take them.
"""
from __future__ import annotations

from compiler import macs
from compiler.ir import Graph, Op
from compiler.ops import OP_TABLE

# Every selectable variant (its EM_NN_VARIANT_<NAME> macro), in the records' order.
SELECTABLE_VARIANTS: tuple[str, ...] = tuple(name for spec in OP_TABLE.values() for name in spec.variants)


def linked_variants(graph: Graph, tier: str) -> set[str]:
    """The selectable variants the ops of `graph` take on `tier`; none below MVE, whose paths are
    not selectable."""
    if tier != "mve":
        return set()
    total = macs.graph_macs(graph)
    used: set[str] = set()
    for spec in OP_TABLE.values():
        ops = [op for op in graph.ops if op.kind == spec.kind]
        if ops and spec.takes_variants is not None:
            used |= spec.takes_variants(graph, ops, total)
    return used


def kernel_variant(graph: Graph, op: Op, tier: str, linked: frozenset[str] | None = None) -> str:
    """The path `op` runs on `tier` (`linked`: the graph's linked_variants, computed when None)."""
    if linked is None:
        linked = frozenset(linked_variants(graph, tier))
    return OP_TABLE[op.kind].kernel_path(graph, op, tier, linked)
