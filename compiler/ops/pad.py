"""pad: a constant border around any tensor (dtype-generic: the kernel moves bytes)."""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.ir import Op
from compiler.ops.spec import OpSpec, int_list, int_vector
from compiler.schema import program_generated as fb


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    (x,) = inputs
    value = op.attrs.get("float_value", 0.0) if x.dtype == np.float32 else op.attrs.get("value", 0)
    return [reference.pad(x, before=op.attrs["before"], after=op.attrs["after"], value=value)]


def _write(builder, op: Op) -> int:
    before, after = int_vector(builder, op.attrs["before"]), int_vector(builder, op.attrs["after"])
    fb.PadOptionsStart(builder)
    fb.PadOptionsAddBefore(builder, before)
    fb.PadOptionsAddAfter(builder, after)
    fb.PadOptionsAddValue(builder, int(op.attrs.get("value", 0)))
    float_value = float(op.attrs.get("float_value", 0.0))
    # -0.0 == the default 0.0, so FlatBuffers would drop it and the border would read +0.0
    builder.ForceDefaults(bool(np.signbit(float_value)))
    fb.PadOptionsAddFloatValue(builder, float_value)
    builder.ForceDefaults(False)
    return fb.PadOptionsEnd(builder)


def _read(table) -> dict:
    o = fb.PadOptions()
    o.Init(table.Bytes, table.Pos)
    return {"before": int_list(o, "Before"), "after": int_list(o, "After"), "value": o.Value(),
            "float_value": np.float32(o.FloatValue())}


PAD = OpSpec(
    kind="pad",
    opcode=fb.OpCode.PAD,
    options_type=fb.OpOptions.PadOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_pad",
    path={"*": "fill, then row copies"},
)
