"""softmax: over the last axis, TFLite's int8 fixed-point algorithm; output scale 1/256, zp −128."""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.ir import Op
from compiler.ops.spec import OpSpec
from compiler.schema import program_generated as fb

FIELDS = (("input_multiplier", "InputMultiplier"), ("input_left_shift", "InputLeftShift"), ("diff_min", "DiffMin"))


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [reference.softmax_s8(inputs[0], **{attr: op.attrs[attr] for attr, _ in FIELDS})]


def _write(builder, op: Op) -> int:
    fb.SoftmaxOptionsStart(builder)
    for attr, schema in FIELDS:
        getattr(fb, f"SoftmaxOptionsAdd{schema}")(builder, int(op.attrs[attr]))
    return fb.SoftmaxOptionsEnd(builder)


def _read(table) -> dict:
    options = fb.SoftmaxOptions()
    options.Init(table.Bytes, table.Pos)
    return {attr: getattr(options, schema)() for attr, schema in FIELDS}


SOFTMAX = OpSpec(
    kind="softmax",
    opcode=fb.OpCode.SOFTMAX,
    options_type=fb.OpOptions.SoftmaxOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_softmax",
    path={"*": "scalar (every tier)"},
)
