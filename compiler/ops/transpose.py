"""transpose: dimensions permuted (dtype-generic: the kernel moves bytes)."""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.ir import Op
from compiler.ops.spec import OpSpec, int_list, int_vector
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


TRANSPOSE = OpSpec(
    kind="transpose",
    opcode=fb.OpCode.TRANSPOSE,
    options_type=fb.OpOptions.TransposeOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_transpose",
    path={"*": "strided copy"},
)
