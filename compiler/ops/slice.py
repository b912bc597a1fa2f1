"""slice: a strided window of any tensor, along every dimension at once (dtype-generic).

Lowering: dequantize → slice / narrow / select → quantize (shared quantization)
becomes `slice` on the int8 codes along the dim's Ember axis; a select (which drops the dim) is
a slice that keeps it, then a reshape.
"""
from __future__ import annotations

import numpy as np
import torch
from torch.fx import Node

from compiler import reference
from compiler.aten_node import dim_size, given_args, input_rank
from compiler.ir import Graph, Op, Quant, Tensor
from compiler.layout import ember_axis, moved, only_reader, reshaped
from compiler.ops.spec import Import, Lowering, OpSpec, int_list, int_vector
from compiler.schema import program_generated as fb

aten = torch.ops.aten


FIELDS = (("begin", "Begin"), ("step", "Step"), ("size", "Size"))


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    a = op.attrs
    return [reference.slice_(inputs[0], begin=a["begin"], step=a["step"], shape=tuple(a["size"]))]


def _write(builder, op: Op) -> int:
    vectors = {attr: int_vector(builder, op.attrs[attr]) for attr, _ in FIELDS}
    fb.SliceOptionsStart(builder)
    for attr, schema in FIELDS:
        getattr(fb, f"SliceOptionsAdd{schema}")(builder, vectors[attr])
    return fb.SliceOptionsEnd(builder)


def _read(table) -> dict:
    o = fb.SliceOptions()
    o.Init(table.Bytes, table.Pos)
    return {attr: int_list(o, schema) for attr, schema in FIELDS}


def _build(graph: Graph, op: Op) -> callable:
    def build(source: str, output: str, quant: Quant) -> list[Op]:
        shape = list(graph.tensors[source].shape)
        rank, dim = len(shape), op.attrs["dim"]
        axis = ember_axis(dim, rank)
        begin, step = [0] * rank, [1] * rank
        begin[axis], step[axis] = op.attrs["start"], op.attrs["step"]
        if not op.attrs["squeeze"]:
            size = list(graph.tensors[output].shape)
            return [Op("slice", [source], [output], {"begin": begin, "step": step, "size": size}, op.origin)]
        shape[axis] = 1
        kept = graph.add_tensor(Tensor(graph.unique_name(f"{output}_kept"), "int8", tuple(shape), quant)).name
        return [Op("slice", [source], [kept], {"begin": begin, "step": step, "size": shape}, op.origin),
                *reshaped(graph, kept, output, op.origin)]
    return build


def _lower(graph: Graph, op: Op) -> None:
    moved(graph, op, "slice", _build(graph, op))


def _import_slice(node: Node, args: list) -> tuple[str, dict]:
    """slice / narrow / select as (PyTorch dim, first index, step); select also drops the dim."""
    dim = int(node.args[1] if len(node.args) > 1 else node.kwargs.get("dim", 0)) % input_rank(node)
    size = dim_size(node, dim)
    if node.target == aten.slice.Tensor:
        start, _, step = given_args(node, (0, None, None, 1))[1:]
        start = 0 if start is None else int(start)
        start = min(max(start + size if start < 0 else start, 0), size)
        return "aten.slice", {"dim": dim, "start": start, "step": int(step), "squeeze": False}
    start = int(node.args[2])
    start = start + size if start < 0 else start
    return "aten.slice", {"dim": dim, "start": start, "step": 1, "squeeze": node.target == aten.select.int}


def _fold(graph: Graph) -> bool:
    """A slice of a slice (the first read by nothing else) is one slice."""
    changed = False
    for op in [op for op in graph.ops if op.kind == "slice"]:
        producer = graph.producer(op.inputs[0])
        if producer is not None and producer.kind == "slice" and only_reader(graph, op.inputs[0]) is op:
            first, second = producer.attrs, op.attrs
            op.attrs = {"begin": [b1 + b2 * s1 for b1, b2, s1 in zip(first["begin"], second["begin"], first["step"])],
                        "step": [s1 * s2 for s1, s2 in zip(first["step"], second["step"])], "size": second["size"]}
            op.inputs = list(producer.inputs)
            graph.ops.remove(producer)
            changed = True
    return changed


SLICE = OpSpec(
    kind="slice",
    opcode=fb.OpCode.SLICE,
    options_type=fb.OpOptions.SliceOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_slice",
    fold=_fold,
    imports=(Import((aten.slice.Tensor, aten.narrow.default, aten.select.int), _import_slice, "shared", int16=True),),
    lowerings=(Lowering(("aten.slice",), _lower),),
    path={"*": "strided copy"},
)
