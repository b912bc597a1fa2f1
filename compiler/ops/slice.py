"""slice: a strided window of any tensor, along every dimension at once (dtype-generic)."""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.ir import Op
from compiler.ops.spec import OpSpec, int_list, int_vector
from compiler.schema import program_generated as fb

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


SLICE = OpSpec(
    kind="slice",
    opcode=fb.OpCode.SLICE,
    options_type=fb.OpOptions.SliceOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_slice",
    path={"*": "strided copy"},
)
