"""Fixed-point arithmetic of the numerics contract (TFLite / CMSIS-NN int8 conventions).

Every function works on NumPy integer arrays elementwise and is the definition the C kernels
must match bit for bit. No floating point is used after `quantize_multiplier`.
"""
from __future__ import annotations

import math

import numpy as np

INT32_MIN = -(1 << 31)
INT32_MAX = (1 << 31) - 1


def quantize_multiplier(real_multiplier: float) -> tuple[int, int]:
    """Splits a positive real multiplier into a Q31 `multiplier` in [2^30, 2^31) and a `shift`.

    real_multiplier ≈ multiplier * 2^(shift - 31); shift > 0 shifts left. Zero maps to (0, 0).
    """
    if real_multiplier < 0:
        raise ValueError(f"requantization multiplier must be >= 0, got {real_multiplier}")
    if real_multiplier == 0:
        return 0, 0
    mantissa, shift = math.frexp(real_multiplier)  # real = mantissa * 2^shift, mantissa in [0.5, 1)
    q = round(mantissa * (1 << 31))
    if q == 1 << 31:  # mantissa rounded up to 1.0
        q //= 2
        shift += 1
    if shift < -31:  # too small to represent: the product rounds to zero anyway
        return 0, 0
    if shift > 30:
        raise ValueError(f"requantization multiplier {real_multiplier} is too large")
    return int(q), int(shift)


def saturating_rounding_doubling_high_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(a * b * 2 + 2^31 rounding) >> 32 with C's truncating division, saturating INT32_MIN^2."""
    a64 = np.asarray(a, dtype=np.int64)
    b64 = np.asarray(b, dtype=np.int64)
    overflow = (a64 == INT32_MIN) & (b64 == INT32_MIN)
    ab = a64 * b64
    nudge = np.where(ab >= 0, np.int64(1 << 30), np.int64(1 - (1 << 30)))
    total = ab + nudge
    # C's division truncates towards zero; NumPy's // floors.
    quotient = np.where(total >= 0, total >> 31, -((-total) >> 31))
    return np.where(overflow, np.int64(INT32_MAX), quotient).astype(np.int64)


def rounding_divide_by_pot(x: np.ndarray, exponent: np.ndarray) -> np.ndarray:
    """x / 2^exponent rounded to nearest, ties away from zero (gemmlowp RoundingDivideByPOT)."""
    x64 = np.asarray(x, dtype=np.int64)
    e = np.asarray(exponent, dtype=np.int64)
    mask = (np.int64(1) << e) - 1
    remainder = x64 & mask
    threshold = (mask >> 1) + (x64 < 0)
    return (x64 >> e) + (remainder > threshold)


def requantize(acc: np.ndarray, multiplier: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """TFLite MultiplyByQuantizedMultiplier: int32 accumulator -> scaled int32 (double rounding).

    The left shift wraps in 32 bits, as it does in C; the compiler never emits a shift that
    makes it wrap for accumulators in range.
    """
    acc64 = np.asarray(acc, dtype=np.int64)
    shift64 = np.asarray(shift, dtype=np.int64)
    left = np.maximum(shift64, 0)
    right = np.maximum(-shift64, 0)
    shifted = wrap_int32(acc64 << left)
    return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(shifted, multiplier), right)


def wrap_int32(x: np.ndarray) -> np.ndarray:
    """Two's-complement wrap of int64 values to the int32 range (as C's uint32 arithmetic)."""
    return ((np.asarray(x, dtype=np.int64) + (1 << 31)) % (1 << 32)) - (1 << 31)
