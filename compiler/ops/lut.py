"""lut: int8 → int8 through a 256-entry table (activations such as sigmoid, tanh, hardswish)."""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.ir import Op
from compiler.ops.spec import OpSpec
from compiler.schema import program_generated as fb


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [reference.lut_s8(inputs[0], inputs[1])]


def _write(builder, op: Op) -> int:
    fb.LutOptionsStart(builder)
    return fb.LutOptionsEnd(builder)


LUT = OpSpec(
    kind="lut",
    opcode=fb.OpCode.LUT,
    options_type=fb.OpOptions.LutOptions,
    reference=_reference,
    write_options=_write,
    read_options=lambda table: {},
    registration="em_op_lut",
)
