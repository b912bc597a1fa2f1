"""The fixed-point helpers against an independent big-integer model of the same definitions."""
from __future__ import annotations

import numpy as np
import pytest

from compiler.fixedpoint import INT32_MAX, INT32_MIN, quantize_multiplier, requantize


def _exact_requantize(acc: int, multiplier: int, shift: int) -> int:
    """TFLite MultiplyByQuantizedMultiplier written with Python integers."""
    left, right = max(shift, 0), max(-shift, 0)
    x = ((acc << left) + 2**31) % 2**32 - 2**31
    if x == INT32_MIN and multiplier == INT32_MIN:
        high = INT32_MAX
    else:
        product = x * multiplier
        nudge = (1 << 30) if product >= 0 else 1 - (1 << 30)
        total = product + nudge
        high = abs(total) >> 31
        high = high if total >= 0 else -high
    if right == 0:
        return high
    mask = (1 << right) - 1
    remainder = high & mask
    threshold = (mask >> 1) + (1 if high < 0 else 0)
    return (high >> right) + (1 if remainder > threshold else 0)


def test_requantize_matches_integer_model_on_random_and_edge_values():
    rng = np.random.default_rng(0)
    accs = np.concatenate([rng.integers(-(2**24), 2**24, 2000), [0, 1, -1, 2**31 - 1, -(2**31), 12345, -12345]])
    for real in [1e-6, 0.0039, 0.25, 0.5, 0.75, 0.999, 1.0, 1.5, 3.9]:
        multiplier, shift = quantize_multiplier(real)
        got = requantize(accs, np.int32(multiplier), np.int32(shift))
        want = [_exact_requantize(int(a), multiplier, shift) for a in accs]
        assert got.tolist() == want, real


@pytest.mark.parametrize("real", [1e-9, 1e-5, 0.1, 0.3333, 0.5, 0.9999999, 1.0, 2.5, 1000.0])
def test_quantize_multiplier_represents_the_real_value(real):
    multiplier, shift = quantize_multiplier(real)
    assert (1 << 30) <= multiplier < (1 << 31)
    assert multiplier * 2.0 ** (shift - 31) == pytest.approx(real, rel=1e-9)


def test_shift_rounds_ties_away_from_zero_and_high_mul_rounds_ties_up():
    multiplier, shift = quantize_multiplier(0.25)  # 2^30, -1: exact high-mul, then a rounding shift
    assert requantize(np.array([6, -6, 10, -10]), np.int32(multiplier), np.int32(shift)).tolist() == [2, -2, 3, -3]
    multiplier, shift = quantize_multiplier(0.5)  # 2^30, 0: the rounding happens in the high-mul
    assert requantize(np.array([3, -3, 5, -5]), np.int32(multiplier), np.int32(shift)).tolist() == [2, -1, 3, -2]


def test_zero_and_negative_multipliers():
    assert quantize_multiplier(0.0) == (0, 0)
    with pytest.raises(ValueError):
        quantize_multiplier(-0.5)
