"""The executable specification of every Ember op: integer arithmetic in NumPy.

Each `*_s8` function below defines, byte for byte, what the C kernels of every tier compute.
`run` interprets a whole Ember IR graph with them. Float appears only where the program
boundary converts to or from float32 (quantize / dequantize), in float32 exactly as C does.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from compiler.fixedpoint import requantize, wrap_int32

if TYPE_CHECKING:
    from compiler.ir import Graph

INT8_MIN, INT8_MAX = -128, 127


def quantize_f32_s8(x: np.ndarray, inv_scale: np.float32, zero_point: int) -> np.ndarray:
    """q = clamp(round_half_even(x * inv_scale) + zero_point, -128, 127), all in float32.

    The product and the rounding are float32 operations (C: nearbyintf(x * inv_scale) under the
    default rounding mode); the clamp happens before conversion to an integer. NaN maps to the
    zero point.
    """
    x32 = np.asarray(x, dtype=np.float32)
    rounded = np.rint(x32 * np.float32(inv_scale)) + np.float32(zero_point)
    rounded = np.where(np.isnan(rounded), np.float32(zero_point), rounded)
    return np.clip(rounded, INT8_MIN, INT8_MAX).astype(np.int8)


def dequantize_s8_f32(q: np.ndarray, scale: np.float32, zero_point: int) -> np.ndarray:
    """x = float32(q - zero_point) * scale, in float32."""
    centred = (np.asarray(q, dtype=np.int32) - np.int32(zero_point)).astype(np.float32)
    return centred * np.float32(scale)


def fully_connected_s8(
    x: np.ndarray,
    weights: np.ndarray,
    bias: np.ndarray,
    multiplier: np.ndarray,
    shift: np.ndarray,
    output_offset: int,
    activation_min: int,
    activation_max: int,
) -> np.ndarray:
    """out[b, o] = clamp(requantize(Σ_i x[b, i]·w[o, i] + bias[o], mult[o], shift[o]) + out_off).

    x [B, I] int8; weights [O, I] int8; bias [O] int32 with the input zero point already folded
    in (bias[o] = b[o] - zp_in·Σ_i w[o, i]); multiplier, shift [O] int32.
    The accumulator is int32 and wraps as in C (the compiler keeps it in range).
    """
    acc = wrap_int32(x.astype(np.int64) @ weights.astype(np.int64).T + bias.astype(np.int64))
    scaled = requantize(acc, multiplier[np.newaxis, :], shift[np.newaxis, :]) + output_offset
    return np.clip(scaled, activation_min, activation_max).astype(np.int8)


def run(graph: "Graph", inputs: list[np.ndarray], keep_all: bool = False) -> dict[str, np.ndarray]:
    """Interprets a lowered graph. Returns the outputs by name (every tensor with `keep_all`)."""
    from compiler.ops import OP_TABLE
    from compiler.ir import NUMPY_DTYPES

    if len(inputs) != len(graph.inputs):
        raise ValueError(f"graph takes {len(graph.inputs)} inputs, got {len(inputs)}")
    values: dict[str, np.ndarray] = {}
    for name, value in zip(graph.inputs, inputs):
        tensor = graph.tensors[name]
        array = np.asarray(value)
        if array.size != int(np.prod(tensor.shape)):
            raise ValueError(f"input {name} needs shape {tensor.shape}, got {array.shape}")
        values[name] = array.astype(NUMPY_DTYPES[tensor.dtype]).reshape(tensor.shape)
    for name, tensor in graph.tensors.items():
        if tensor.is_constant:
            values[name] = tensor.data
    for op in graph.ops:
        results = OP_TABLE[op.kind].reference(op, [values[t] for t in op.inputs])
        for name, result in zip(op.outputs, results):
            values[name] = result.reshape(graph.tensors[name].shape)
    wanted = values if keep_all else {name: values[name] for name in graph.outputs}
    return dict(wanted)
