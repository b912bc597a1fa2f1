"""How the int8 elementwise kernels walk NumPy broadcasting (runtime/kernels/em_nn_broadcast.c):
what `inspect` says of an add's path."""
from __future__ import annotations

import numpy as np

from compiler.ir import Graph, Op


def broadcast_runs(a: tuple[int, ...], b: tuple[int, ...], out: tuple[int, ...]) -> tuple[int, int, bool, int]:
    """em_nn_broadcast_plan: the output's size-1 axes dropped, adjacent axes along which the same
    operands vary merged; returns (runs, inner, an operand repeated along each run, outer axes
    walked beyond the innermost two)."""
    rank = len(out)
    a, b = (1,) * (rank - len(a)) + tuple(a), (1,) * (rank - len(b)) + tuple(b)
    kinds: list[list[int]] = []  # [kind, size]; kind bit 0: a varies, bit 1: b varies
    for s, x, y in zip(out, a, b):
        if s == 1:
            continue
        kind = int(x == s) | (int(y == s) << 1)
        if kinds and kinds[-1][0] == kind:
            kinds[-1][1] *= s
        else:
            kinds.append([kind, s])
    kind, inner = kinds[-1] if kinds else (3, 1)
    return int(np.prod(out)) // inner, inner, kind != 3, max(len(kinds) - 2, 0)


def walk(graph: Graph, op: Op) -> str:
    """The form of the walk over op's two operands: same shapes, a scalar operand (one run, one
    operand repeated), a row (runs of the same operand values, e.g. a channel vector) or general."""
    a, b = (graph.tensors[name].shape for name in op.inputs[:2])
    runs, inner, one, outer = broadcast_runs(a, b, graph.tensors[op.outputs[0]].shape)
    if runs == 1:
        return "scalar operand broadcast" if one else "same shapes"
    if not one and outer == 0:
        return "row operand broadcast"
    return f"general broadcast: {runs} runs of {inner}" + (", one operand repeated along each" if one else "")
