"""float_layer_norm: layer norm over the last axis, float32, inputs x, weight [D], bias [D] (fallback)."""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.ir import Op
from compiler.ops.spec import FLOAT_PATH, OpSpec
from compiler.schema import program_generated as fb


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x, weight, bias = inputs
    return [reference.float_layer_norm_f32(x, weight, bias, epsilon=op.attrs["epsilon"])]


def _write(builder, op: Op) -> int:
    fb.FloatLayerNormOptionsStart(builder)
    fb.FloatLayerNormOptionsAddEpsilon(builder, float(op.attrs["epsilon"]))
    return fb.FloatLayerNormOptionsEnd(builder)


def _read(table) -> dict:
    o = fb.FloatLayerNormOptions()
    o.Init(table.Bytes, table.Pos)
    return {"epsilon": np.float32(o.Epsilon())}


FLOAT_LAYER_NORM = OpSpec(
    kind="float_layer_norm",
    opcode=fb.OpCode.FLOAT_LAYER_NORM,
    options_type=fb.OpOptions.FloatLayerNormOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_float_layer_norm",
    path=FLOAT_PATH,
)
