"""What reports say about each op of a lowered graph: its layer's name, its shapes, its MACs.

Used by the benchmark (site_scons/ember_build/bench.py), the profiler (tools/op_profile.py) and
`python -m compiler inspect`, so that all three name and count layers alike.
"""
from __future__ import annotations

import re

from compiler.ir import Graph, Op
from compiler.macs import op_macs
from compiler.ops import OP_TABLE


def dims(shape: tuple[int, ...]) -> str:
    """A shape without its batch of 1, as "49x10x64". A leading dim other than 1 stays: where the
    lowering folds tokens or heads into it (a linear over [50, 64], a batch_matmul over [2, 50, 32])
    it is part of the work, and dropping it would show "64 -> 192" for 50 rows of 64 -> 192."""
    return "x".join(str(d) for d in (shape[1:] if shape and shape[0] == 1 else shape))


def shape_text(graph: Graph, op: Op) -> str:
    """"in -> out" activation shapes without the batch, then the op's own note (OpSpec.shape_note:
    kernel and stride for convolutions)."""
    text = f"{dims(graph.tensors[op.inputs[0]].shape)} -> {dims(graph.tensors[op.outputs[0]].shape)}"
    spec = OP_TABLE.get(op.kind)
    return text + (spec.shape_note(graph, op) if spec is not None and spec.shape_note is not None else "")


def layer_name(op: Op) -> str:
    """The module path of the layer that produced `op` (its origin "path (Type) at file:line"), or
    the op's kind when it came from a function call."""
    match = re.match(r"^([\w.]+) \(\w+\) at ", op.origin)
    return match.group(1) if match else op.kind


def layer_rows(graph: Graph) -> list[dict]:
    """One row per op, in program order: layer, op, shape, macs (names made unique)."""
    rows, seen = [], {}
    for op in graph.ops:
        name = layer_name(op)
        seen[name] = seen.get(name, 0) + 1
        rows.append({"layer": name if seen[name] == 1 else f"{name}#{seen[name]}", "op": op.kind,
                     "shape": shape_text(graph, op), "macs": op_macs(graph, op)})
    return rows
