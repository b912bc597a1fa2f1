"""transpose: dimensions permuted (dtype-generic: the kernel moves bytes).

Lowering: dequantize → permute / transpose → quantize (shared quantization)
becomes `transpose` on the int8 codes, the PyTorch permutation of a 4-D map restated in NHWC
axes (a permute to NHWC just before a flatten then cancels: fold_data_movement).
"""
from __future__ import annotations

import numpy as np
import torch
from torch.fx import Node

from compiler import reference
from compiler.aten_node import input_rank
from compiler.float_lowering import kept
from compiler.ir import Graph, Op, Quant
from compiler.layout import ember_perm, moved
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


TRANSPOSE = OpSpec(
    kind="transpose",
    opcode=fb.OpCode.TRANSPOSE,
    options_type=fb.OpOptions.TransposeOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_transpose",
    float_lowerings={"aten.permute": _lower_float_permute},
    imports=(Import((aten.permute.default,), _import_permute, "shared"),
             Import((aten.transpose.int, aten.t.default), _import_transpose, "shared")),
    lowerings=(Lowering(("aten.permute",), _lower),),
    path={"*": "strided copy"},
)
