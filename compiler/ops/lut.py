"""lut: int8 → int8 through a 256-entry table (activations such as sigmoid, tanh, hardswish), one
for every element ([256]) or one per channel ([C, 256], row c for index c along attr `axis`;
absent: the last axis; PReLU with per-channel slopes, a per-channel scale then an activation)."""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.ir import Op
from compiler.ops.spec import OpSpec
from compiler.schema import program_generated as fb

LAST_AXIS = -1  # LutOptions.axis's default: NumPy's convention, negative counted from the end


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [reference.lut_s8(inputs[0], inputs[1], axis=op.attrs.get("axis", LAST_AXIS))]


def _write(builder, op: Op) -> int:
    fb.LutOptionsStart(builder)
    fb.LutOptionsAddAxis(builder, op.attrs.get("axis", LAST_AXIS))  # the default is not stored
    return fb.LutOptionsEnd(builder)


def _read(table) -> dict:
    options = fb.LutOptions()
    options.Init(table.Bytes, table.Pos)
    axis = options.Axis()
    return {} if axis == LAST_AXIS else {"axis": axis}


LUT = OpSpec(
    kind="lut",
    opcode=fb.OpCode.LUT,
    options_type=fb.OpOptions.LutOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_lut",
)
