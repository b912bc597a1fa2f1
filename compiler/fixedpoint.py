"""Fixed-point arithmetic of the numerics contract (TFLite / CMSIS-NN int8 conventions, with
CMSIS-NN's single-rounding requantization).

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
    """gemmlowp SaturatingRoundingDoublingHighMul: (a·b·2 + 2^31) / 2^32 with C's truncating
    division (ties away from zero), INT32_MIN² saturating to INT32_MAX. Softmax's fixed point."""
    a64 = np.asarray(a, dtype=np.int64)
    b64 = np.asarray(b, dtype=np.int64)
    overflow = (a64 == INT32_MIN) & (b64 == INT32_MIN)
    ab = a64 * b64
    nudge = np.where(ab >= 0, np.int64(1 << 30), np.int64(1 - (1 << 30)))
    total = ab + nudge
    quotient = np.where(total >= 0, total >> 31, -((-total) >> 31))
    return np.where(overflow, np.int64(INT32_MAX), quotient).astype(np.int64)


def rounding_divide_by_pot(x: np.ndarray, exponent: np.ndarray) -> np.ndarray:
    """gemmlowp RoundingDivideByPOT: x / 2^exponent rounded to nearest, ties away from zero."""
    x64 = np.asarray(x, dtype=np.int64)
    e = np.asarray(exponent, dtype=np.int64)
    mask = (np.int64(1) << e) - 1
    remainder = x64 & mask
    threshold = (mask >> 1) + (x64 < 0)
    return (x64 >> e) + (remainder > threshold)


def saturate_int32(x: np.ndarray) -> np.ndarray:
    return np.clip(np.asarray(x, dtype=np.int64), INT32_MIN, INT32_MAX)


def requantize_left_shift(shift: np.ndarray) -> np.ndarray:
    """Bits the accumulator is shifted left (saturating) before the multiply: max(shift + 2, 0).

    Pre-shifting by two more than the multiplier's own shift makes the rounding position at
    least 33 bits down for every channel, so one code path serves all shifts (on MVE: VMULH,
    then a rounding shift VRSHL). The saturation only bites when |acc · real| ≥ 2^28, far
    outside int8, where the output clamps to the same value anyway.
    """
    return np.maximum(np.asarray(shift, dtype=np.int64) + 2, 0)


def requantize(acc: np.ndarray, multiplier: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """acc · multiplier · 2^(shift − 31), rounded once, half up (CMSIS-NN single rounding).

    x = saturate_int32(acc << L) with L = max(shift + 2, 0); result = ⌊(x · multiplier + 2^(E−1)) / 2^E⌋
    with E = 31 − shift + L (33..62). Exact 64-bit integer arithmetic; one rounding, not the
    double rounding of TFLite's reference kernels, so the integer model agrees with PyTorch's
    float-then-round quantized model wherever float rounding does.
    """
    shift64 = np.asarray(shift, dtype=np.int64)
    left = requantize_left_shift(shift64)
    x = saturate_int32(np.asarray(acc, dtype=np.int64) << left)
    exponent = 31 - shift64 + left
    product = x * np.asarray(multiplier, dtype=np.int64)  # |product| < 2^62
    return (product + (np.int64(1) << (exponent - 1))) >> exponent


# A16W8 (int16 activations, int8 weights): the TFLite 16x8 requantization. The int64 accumulator
# is scaled by the Q31 multiplier reduced to Q15, so that the product fits 64 bits: one
# multiply, a rounding (half up) and a shift on every tier.
REQUANTIZE_S64_MAX_SHIFT = 14  # the rounding shift 15 - shift is at least 1


def reduced_multiplier(multiplier: np.ndarray) -> np.ndarray:
    """The Q31 multiplier rounded to Q15 (TFLite / CMSIS-NN): (m + 2^15) >> 16, at most 0x7FFF."""
    m = np.asarray(multiplier, dtype=np.int64)
    return np.where(m < 0x7FFF0000, (m + (1 << 15)) >> 16, 0x7FFF)


def requantize_s64(acc: np.ndarray, multiplier: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """acc · multiplier · 2^(shift − 31) for an int64 accumulator (|acc| < 2^47), TFLite's 16x8
    convention: (acc · reduced_multiplier + 2^(E−1)) >> E with E = 15 − shift (1..46; shift ≤
    REQUANTIZE_S64_MAX_SHIFT, which the compiler checks). Exact in 64-bit integers."""
    exponent = 15 - np.asarray(shift, dtype=np.int64)
    product = np.asarray(acc, dtype=np.int64) * reduced_multiplier(multiplier)
    return (product + (np.int64(1) << (exponent - 1))) >> exponent


def wrap_int32(x: np.ndarray) -> np.ndarray:
    """Two's-complement wrap of int64 values to the int32 range (as C's uint32 arithmetic)."""
    return ((np.asarray(x, dtype=np.int64) + (1 << 31)) % (1 << 32)) - (1 << 31)
