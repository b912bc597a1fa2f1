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


ACTIVATION_BITS = {"int8": 8, "int16": 16}
WEIGHT_BITS = {"int8": 8, "int4": 4}


def precision(graph: Graph, op: Op) -> str:
    """The op's precision as reports print it: "a8w8", "a8w4" for a weighted op (its activation
    bits, then its weights'), "a8" / "a16" for an integer op without weights (its widest
    activation), "f32" for an op in float32."""
    if op.kind.startswith("float_") or "float_reason" in op.attrs:
        return "f32"
    tensors = [graph.tensors[name] for name in op.inputs + op.outputs[:1]]
    spec = OP_TABLE.get(op.kind)
    weights = [WEIGHT_BITS[t.dtype] for t in tensors[1:] if spec is not None and spec.weighted and t.is_constant
               and t.quant is not None and t.dtype in WEIGHT_BITS]
    activations = [ACTIVATION_BITS[t.dtype] for t in tensors if not t.is_constant and t.dtype in ACTIVATION_BITS]
    text = f"a{max(activations)}" if activations else ""
    return text + (f"w{min(weights)}" if weights else "") or "f32"


def layer_rows(graph: Graph) -> list[dict]:
    """One row per op, in program order: layer, op, shape, macs, precision (names made unique)."""
    rows, seen = [], {}
    for op in graph.ops:
        name = layer_name(op)
        seen[name] = seen.get(name, 0) + 1
        rows.append({"layer": name if seen[name] == 1 else f"{name}#{seen[name]}", "op": op.kind,
                     "shape": shape_text(graph, op), "macs": op_macs(graph, op), "precision": precision(graph, op)})
    return rows


def constant_rows(graph: Graph) -> list[dict]:
    """The layers that hold constants, in program order: layer, op, precision, bytes (packed:
    what the program stores), for size reports."""
    return [{"layer": row["layer"], "op": row["op"], "precision": row["precision"],
             "bytes": sum(graph.tensors[t].nbytes for t in op.inputs if graph.tensors[t].is_constant)}
            for op, row in zip(graph.ops, layer_rows(graph))
            if any(graph.tensors[t].is_constant for t in op.inputs)]
