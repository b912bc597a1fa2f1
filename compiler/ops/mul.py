"""mul: elementwise product of two int8 tensors (NumPy broadcasting)."""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.ir import Op
from compiler.ops import overlap
from compiler.ops.spec import OpSpec, tier_paths
from compiler.schema import program_generated as fb

# attrs, with their schema MulOptions field names
FIELDS = (("a_offset", "Input1Offset"), ("b_offset", "Input2Offset"), ("output_offset", "OutputOffset"),
          ("output_multiplier", "OutputMultiplier"), ("output_shift", "OutputShift"),
          ("activation_min", "ActivationMin"), ("activation_max", "ActivationMax"))


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [reference.mul_s8(inputs[0], inputs[1], **{attr: op.attrs[attr] for attr, _ in FIELDS})]


def _write(builder, op: Op) -> int:
    fb.MulOptionsStart(builder)
    for attr, schema in FIELDS:
        getattr(fb, f"MulOptionsAdd{schema}")(builder, int(op.attrs[attr]))
    return fb.MulOptionsEnd(builder)


def _read(table) -> dict:
    options = fb.MulOptions()
    options.Init(table.Bytes, table.Pos)
    return {attr: getattr(options, schema)() for attr, schema in FIELDS}


MUL = OpSpec(
    kind="mul",
    opcode=fb.OpCode.MUL,
    options_type=fb.OpOptions.MulOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_mul",
    in_place=overlap.elementwise,
    path=tier_paths("MVE 4 lanes"),
)
