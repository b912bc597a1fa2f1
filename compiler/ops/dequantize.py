"""dequantize: int8 → float32 at the program's output boundary."""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.ir import Op
from compiler.ops.spec import OpSpec, tier_paths
from compiler.schema import program_generated as fb


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [reference.dequantize_s8_f32(inputs[0], op.attrs["scale"], op.attrs["zero_point"])]


def _write(builder, op: Op) -> int:
    fb.DequantizeOptionsStart(builder)
    fb.DequantizeOptionsAddScale(builder, float(op.attrs["scale"]))
    fb.DequantizeOptionsAddZeroPoint(builder, op.attrs["zero_point"])
    return fb.DequantizeOptionsEnd(builder)


def _read(table) -> dict:
    options = fb.DequantizeOptions()
    options.Init(table.Bytes, table.Pos)
    return {"scale": np.float32(options.Scale()), "zero_point": options.ZeroPoint()}


DEQUANTIZE = OpSpec(
    kind="dequantize",
    opcode=fb.OpCode.DEQUANTIZE,
    options_type=fb.OpOptions.DequantizeOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_dequantize",
    path=tier_paths("MVE float 4 lanes", scalar="scalar (integer bits without an FPU)"),
)
