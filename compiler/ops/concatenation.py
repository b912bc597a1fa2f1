"""concatenation: int8 tensors sharing one quantization, joined along an axis (a strided copy)."""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.ir import Op
from compiler.ops.spec import OpSpec
from compiler.schema import program_generated as fb

# Most inputs one CONCATENATION takes (EM_CONCAT_MAX_INPUTS, runtime/ops/em_op_concatenation.c: the
# adapter's operands live on its stack); lowering joins more in groups.
MAX_INPUTS = 8


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [reference.concat_s8(inputs, axis=op.attrs["axis"])]


def _write(builder, op: Op) -> int:
    fb.ConcatenationOptionsStart(builder)
    fb.ConcatenationOptionsAddAxis(builder, op.attrs["axis"])
    return fb.ConcatenationOptionsEnd(builder)


def _read(table) -> dict:
    options = fb.ConcatenationOptions()
    options.Init(table.Bytes, table.Pos)
    return {"axis": options.Axis()}


CONCATENATION = OpSpec(
    kind="concatenation",
    opcode=fb.OpCode.CONCATENATION,
    options_type=fb.OpOptions.ConcatenationOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_concatenation",
    path={"*": "row copies"},
)
