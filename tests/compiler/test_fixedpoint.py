"""The fixed-point helpers against an independent big-integer model of the same definitions."""
from __future__ import annotations

import numpy as np
import pytest

from fractions import Fraction

from compiler.fixedpoint import INT32_MAX, INT32_MIN, quantize_multiplier, requantize


def _exact_requantize(acc: int, multiplier: int, shift: int) -> int:
    """The definition with Python integers: one rounding, half up, after a saturating pre-shift."""
    left = max(shift + 2, 0)
    x = max(INT32_MIN, min(INT32_MAX, acc << left))
    exponent = 31 - shift + left
    return (x * multiplier + (1 << (exponent - 1))) >> exponent


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


def test_single_rounding_is_round_half_up_of_the_exact_product():
    multiplier, shift = quantize_multiplier(0.25)
    assert requantize(np.array([6, -6, 10, -10, 5, -5]), np.int32(multiplier), np.int32(shift)).tolist() == [2, -1, 3, -2, 1, -1]
    rng = np.random.default_rng(1)
    for real in [0.0123, 0.4999, 0.75, 1.9, 7.3]:
        multiplier, shift = quantize_multiplier(real)
        accs = rng.integers(-(2**20), 2**20, 500)
        got = requantize(accs, np.int32(multiplier), np.int32(shift))
        exact = [Fraction(int(a) * multiplier, 2 ** (31 - shift)) for a in accs]
        assert got.tolist() == [int((e + Fraction(1, 2)).__floor__()) for e in exact]


def test_saturating_pre_shift_only_matters_far_outside_int8():
    multiplier, shift = quantize_multiplier(300.0)  # shift 9: pre-shift 11 saturates at |acc| >= 2^20
    big = requantize(np.array([2**21, -(2**21)]), np.int32(multiplier), np.int32(shift))
    assert big[0] > 127 and big[1] < -128


def test_zero_and_negative_multipliers():
    assert quantize_multiplier(0.0) == (0, 0)
    with pytest.raises(ValueError):
        quantize_multiplier(-0.5)
