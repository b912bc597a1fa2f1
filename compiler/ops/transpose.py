"""transpose: dimensions permuted (dtype-generic: the kernel moves bytes).

Lowering: dequantize → permute / transpose → quantize (shared quantization)
becomes `transpose` on the int8 codes, the PyTorch permutation of a 4-D map restated in NHWC
axes (a permute to NHWC just before a flatten then cancels: fold_data_movement).
"""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.ir import Graph, Op, Quant
from compiler.layout import ember_perm, moved
from compiler.ops.spec import Lowering, OpSpec, int_list, int_vector
from compiler.schema import program_generated as fb


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


TRANSPOSE = OpSpec(
    kind="transpose",
    opcode=fb.OpCode.TRANSPOSE,
    options_type=fb.OpOptions.TransposeOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_transpose",
    lowerings=(Lowering(("aten.permute",), _lower),),
    path={"*": "strided copy"},
)
