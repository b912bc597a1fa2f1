"""transpose: dimensions permuted (dtype-generic: the kernel moves bytes).

Lowering: dequantize → permute / transpose → quantize (shared quantization)
becomes `transpose` on the int8 codes, the PyTorch permutation of a 4-D map restated in NHWC
axes (a permute to NHWC just before a flatten then cancels: fold_data_movement).
"""
from __future__ import annotations

import numpy as np
import torch
from torch.fx import Node

from compiler import reference, streaming
from compiler.aten_node import input_rank
from compiler.float_lowering import kept
from compiler.ir import Graph, Op, Quant
from compiler.layout import ember_perm, moved, only_reader
from compiler.ops.spec import Import, Lowering, OpSpec, int_list, int_vector
from compiler.schema import program_generated as fb

aten = torch.ops.aten


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [reference.transpose(inputs[0], perm=op.attrs["perm"])]


def _write(builder, op: Op) -> int:
    perm = int_vector(builder, op.attrs["perm"])
    fb.TransposeOptionsStart(builder)
    fb.TransposeOptionsAddPerm(builder, perm)
    return fb.TransposeOptionsEnd(builder)


def _read(table) -> dict:
    o = fb.TransposeOptions()
    o.Init(table.Bytes, table.Pos)
    return {"perm": int_list(o, "Perm")}


def _lower(graph: Graph, permute: Op) -> None:
    def build(source: str, output: str, quant: Quant, permute: Op = permute) -> list[Op]:
        return [Op("transpose", [source], [output], {"perm": ember_perm(permute.attrs["perm"])}, permute.origin)]
    moved(graph, permute, "permute", build)


def _import_permute(node: Node, args: list) -> tuple[str, dict]:
    rank = input_rank(node)
    return "aten.permute", {"perm": [int(d) % rank for d in node.args[1]]}


def _import_transpose(node: Node, args: list) -> tuple[str, dict]:
    rank = input_rank(node)
    perm = list(range(rank))
    if node.target == aten.t.default:
        perm.reverse()
    else:
        a, b = int(node.args[1]) % rank, int(node.args[2]) % rank
        perm[a], perm[b] = perm[b], perm[a]
    return "aten.permute", {"perm": perm}


def _lower_float_permute(graph: Graph, op: Op) -> Op:
    return kept(op, "transpose", op.inputs, {"perm": ember_perm(op.attrs["perm"])})


def _fold(graph: Graph) -> bool:
    """A transpose of a transpose (the first read by nothing else) is one transpose, of the
    composed permutation (the model's permute to NHWC followed by the NHWC → NCHW transpose of a
    flatten composes to the identity); an identity transpose vanishes (its consumers read its
    input); one that keeps every dimension of size > 1 in order moves no byte: it becomes a
    reshape (an alias, see compiler/planner.py)."""
    changed = False
    for op in [op for op in graph.ops if op.kind == "transpose"]:
        producer = graph.producer(op.inputs[0])
        if producer is not None and producer.kind == "transpose" and only_reader(graph, op.inputs[0]) is op:
            op.attrs = {"perm": [producer.attrs["perm"][k] for k in op.attrs["perm"]]}
            op.inputs = list(producer.inputs)
            graph.ops.remove(producer)
            changed = True
    for op in [op for op in graph.ops if op.kind == "transpose"]:
        perm, shape = op.attrs["perm"], graph.tensors[op.inputs[0]].shape
        if perm == sorted(perm) and not (op.outputs[0] in graph.outputs and op.inputs[0] in graph.inputs):
            graph.replace_uses(op.outputs[0], op.inputs[0])
            graph.ops.remove(op)
            changed = True
        elif [k for k in perm if shape[k] > 1] == sorted(k for k in perm if shape[k] > 1):
            op.kind, op.attrs = "reshape", {}
            changed = True
    return changed


TRANSPOSE = OpSpec(
    kind="transpose",
    opcode=fb.OpCode.TRANSPOSE,
    options_type=fb.OpOptions.TransposeOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_transpose",
    fold=_fold,
    float_lowerings={"aten.permute": _lower_float_permute},
    imports=(Import((aten.permute.default,), _import_permute, "shared", int16=True),
             Import((aten.transpose.int, aten.t.default), _import_transpose, "shared", int16=True)),
    lowerings=(Lowering(("aten.permute",), _lower),),
    path={"*": "strided copy"},
    stream=streaming.transpose_axis,
)
