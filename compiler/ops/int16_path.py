"""The kernel path rule of an op kind with an int16 (A16W8) kernel (OpSpec.int16_kernel): the
int8 rule for int8 ops, the int16 table for ops that read or write int16 activations, so that
`python -m compiler inspect` names the path each op runs."""
from __future__ import annotations

from typing import Callable, Mapping

from compiler.ir import Graph, Op

PathRule = Callable[[Graph, Op, str, frozenset], str]


def is_int16(graph: Graph, op: Op) -> bool:
    """Whether `op` reads or writes int16 activations (an A16W8 layer or boundary)."""
    return any(graph.tensors[name].dtype == "int16" for name in (*op.inputs, *op.outputs))


def by_precision(int8: Mapping[str, str] | PathRule, int16: Mapping[str, str]) -> PathRule:
    """A path rule: `int16` (a table by tier, "*" for any) for an int16 op, else `int8` (a table
    or a rule)."""
    def path(graph: Graph, op: Op, tier: str, chosen: frozenset) -> str:
        if is_int16(graph, op):
            return int16.get(tier, int16.get("*", "scalar"))
        if callable(int8):
            return int8(graph, op, tier, chosen)
        return int8.get(tier, int8.get("*", "scalar"))
    return path
