"""fully_connected: int8 × int8 weights [O, I] + int32 bias → int8, per-channel requantized."""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.ir import Op
from compiler.ops.spec import OpSpec
from compiler.schema import program_generated as fb


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x, weights, bias = inputs
    a = op.attrs
    # [B, I], or a flattened [B, H, W, C] map (H·W·C = I): one row per batch either way
    flat = x.reshape(x.shape[0], weights.shape[1])
    return [reference.fully_connected_s8(flat, weights, bias, a["multiplier"], a["shift"],
                                         a["output_offset"], a["activation_min"], a["activation_max"])]


def _int_vector(builder, values: np.ndarray) -> int:
    return builder.CreateNumpyVector(np.ascontiguousarray(values, dtype=np.int32))


def _write(builder, op: Op) -> int:
    a = op.attrs
    multiplier = _int_vector(builder, a["multiplier"])
    shift = _int_vector(builder, a["shift"])
    fb.FullyConnectedOptionsStart(builder)
    fb.FullyConnectedOptionsAddOutputOffset(builder, a["output_offset"])
    fb.FullyConnectedOptionsAddActivationMin(builder, a["activation_min"])
    fb.FullyConnectedOptionsAddActivationMax(builder, a["activation_max"])
    fb.FullyConnectedOptionsAddOutputMultiplier(builder, multiplier)
    fb.FullyConnectedOptionsAddOutputShift(builder, shift)
    return fb.FullyConnectedOptionsEnd(builder)


def _read(table) -> dict:
    options = fb.FullyConnectedOptions()
    options.Init(table.Bytes, table.Pos)
    return {
        "multiplier": options.OutputMultiplierAsNumpy().astype(np.int32),
        "shift": options.OutputShiftAsNumpy().astype(np.int32),
        "output_offset": options.OutputOffset(),
        "activation_min": options.ActivationMin(),
        "activation_max": options.ActivationMax(),
    }


FULLY_CONNECTED = OpSpec(
    kind="fully_connected",
    opcode=fb.OpCode.FULLY_CONNECTED,
    options_type=fb.OpOptions.FullyConnectedOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_fully_connected",
)
