"""quantize: float32 → int8 at the program's input boundary."""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.ir import Op
from compiler.ops.spec import OpSpec, tier_paths
from compiler.schema import program_generated as fb


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [reference.quantize_f32_s8(inputs[0], op.attrs["inv_scale"], op.attrs["zero_point"])]


def _write(builder, op: Op) -> int:
    fb.QuantizeOptionsStart(builder)
    fb.QuantizeOptionsAddInvScale(builder, float(op.attrs["inv_scale"]))
    fb.QuantizeOptionsAddZeroPoint(builder, op.attrs["zero_point"])
    return fb.QuantizeOptionsEnd(builder)


def _read(table) -> dict:
    options = fb.QuantizeOptions()
    options.Init(table.Bytes, table.Pos)
    return {"inv_scale": np.float32(options.InvScale()), "zero_point": options.ZeroPoint()}


QUANTIZE = OpSpec(
    kind="quantize",
    opcode=fb.OpCode.QUANTIZE,
    options_type=fb.OpOptions.QuantizeOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_quantize",
    path=tier_paths("MVE float 4 lanes", scalar="scalar (integer bits without an FPU)"),
)
