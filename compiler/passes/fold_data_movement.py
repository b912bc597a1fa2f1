"""fold_data_movement: removes the copies that layout conversion and slicing made redundant.

- A slice of a slice (the first read by nothing else) is one slice.
- A transpose of a transpose (the first read by nothing else) is one transpose, of the
  composed permutation; e.g. the model's permute to NHWC followed by the NHWC→NCHW transpose
  of a flatten composes to the identity.
- A transpose that keeps every dimension of size > 1 in order moves no byte: it becomes a
  reshape (an alias, see compiler/planner.py).
- An identity transpose vanishes (its consumers read its input).
- A reshape of a reshape (the first read by nothing else) is one reshape, and a reshape to its
  input's own shape vanishes; so a conv1d's NHWC → NCHW transpose, squeeze, unsqueeze and
  NCHW → NHWC transpose before the next conv1d fold to nothing.
"""
from __future__ import annotations

from compiler.ir import Graph, Op
from compiler.options import LoweringOptions
from compiler.passes.remove_dead_tensors import remove_dead_tensors


def _only_reader(graph: Graph, tensor: str) -> Op | None:
    readers = graph.consumers(tensor)
    return readers[0] if len(readers) == 1 and tensor not in graph.outputs else None


def _fold_slices(graph: Graph) -> None:
    for op in [op for op in graph.ops if op.kind == "slice"]:
        producer = graph.producer(op.inputs[0])
        if producer is not None and producer.kind == "slice" and _only_reader(graph, op.inputs[0]) is op:
            first, second = producer.attrs, op.attrs
            op.attrs = {"begin": [b1 + b2 * s1 for b1, b2, s1 in zip(first["begin"], second["begin"], first["step"])],
                        "step": [s1 * s2 for s1, s2 in zip(first["step"], second["step"])], "size": second["size"]}
            op.inputs = list(producer.inputs)
            graph.ops.remove(producer)


def _fold_reshapes(graph: Graph) -> None:
    for op in [op for op in graph.ops if op.kind == "reshape"]:
        producer = graph.producer(op.inputs[0])
        if producer is not None and producer.kind == "reshape" and _only_reader(graph, op.inputs[0]) is op:
            op.inputs = list(producer.inputs)
            graph.ops.remove(producer)
    for op in [op for op in graph.ops if op.kind == "reshape"]:
        (source,), (target,) = op.inputs, op.outputs
        same = graph.tensors[source].shape == graph.tensors[target].shape
        if same and target not in graph.outputs and graph.tensors[source].dtype == graph.tensors[target].dtype:
            graph.replace_uses(target, source)
            graph.ops.remove(op)


def fold_data_movement(graph: Graph, options: LoweringOptions) -> Graph:
    graph = remove_dead_tensors(graph, options)  # the lowered ops' dequantizes still read their outputs
    _fold_slices(graph)
    _fold_reshapes(graph)
    for op in [op for op in graph.ops if op.kind == "transpose"]:
        producer = graph.producer(op.inputs[0])
        if producer is not None and producer.kind == "transpose" and _only_reader(graph, op.inputs[0]) is op:
            op.attrs = {"perm": [producer.attrs["perm"][k] for k in op.attrs["perm"]]}
            op.inputs = list(producer.inputs)
            graph.ops.remove(producer)
    for op in [op for op in graph.ops if op.kind == "transpose"]:
        perm, shape = op.attrs["perm"], graph.tensors[op.inputs[0]].shape
        if perm == sorted(perm) and not (op.outputs[0] in graph.outputs and op.inputs[0] in graph.inputs):
            graph.replace_uses(op.outputs[0], op.inputs[0])
            graph.ops.remove(op)
        elif [k for k in perm if shape[k] > 1] == sorted(k for k in perm if shape[k] > 1):
            op.kind, op.attrs = "reshape", {}
    _fold_reshapes(graph)
    return graph
