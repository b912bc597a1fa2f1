"""The reference's convolution, pooling and add against PyTorch's float ops, in settings where
the float result is exact (integer inputs, power-of-two requantization), so any index,
padding, grouping or rounding slip shows as a mismatch."""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from compiler import reference as ref
from compiler.fixedpoint import quantize_multiplier

RNG = np.random.default_rng(0)
ONE = 1 << 30  # multiplier 2^30 with shift s: real = 2^(s - 1)


def _nchw(x: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(x).permute(0, 3, 1, 2).double()


def _nhwc(t: torch.Tensor) -> np.ndarray:
    return t.permute(0, 2, 3, 1).numpy()


def _round_half_up(x: np.ndarray) -> np.ndarray:
    return np.floor(x + 0.5)


@pytest.mark.parametrize("shape,c_out,k,stride,dilation,padding,groups", [
    ((2, 7, 9, 6), 8, (3, 3), (2, 1), (1, 2), (1, 1, 2, 2), 2),
    ((1, 5, 5, 3), 4, (1, 1), (1, 1), (1, 1), (0, 0, 0, 0), 1),
    ((1, 10, 4, 4), 5, (3, 2), (3, 2), (1, 1), (0, 1, 1, 0), 1),
    ((1, 6, 6, 4), 4, (3, 3), (1, 1), (1, 1), (1, 1, 1, 1), 4),
])
def test_conv2d_matches_float_convolution(shape, c_out, k, stride, dilation, padding, groups):
    x = RNG.integers(-128, 128, shape).astype(np.int8)
    w = RNG.integers(-127, 128, (c_out, *k, shape[3] // groups)).astype(np.int8)
    zp = int(RNG.integers(-128, 128))
    shift = np.full(c_out, -9, np.int32)
    out = ref.conv2d_s8(x, w, np.zeros(c_out, np.int32), np.full(c_out, ONE, np.int32), shift, stride=stride,
                        dilation=dilation, padding=padding, groups=groups, input_zero_point=zp, output_offset=0,
                        activation_min=-128, activation_max=127)
    top, bottom, left, right = padding
    padded = F.pad(_nchw(x), (left, right, top, bottom), value=zp)
    want = F.conv2d(padded, torch.from_numpy(w).permute(0, 3, 1, 2).double(), stride=stride, dilation=dilation,
                    groups=groups)
    np.testing.assert_array_equal(out, np.clip(_round_half_up(_nhwc(want) / 2**10), -128, 127))


@pytest.mark.parametrize("multiplier", [1, 2, 3])
def test_depthwise_matches_grouped_float_convolution(multiplier):
    x = RNG.integers(-128, 128, (2, 6, 7, 5)).astype(np.int8)
    channels = 5 * multiplier
    w = RNG.integers(-127, 128, (3, 3, channels)).astype(np.int8)
    out = ref.depthwise_conv2d_s8(x, w, np.zeros(channels, np.int32), np.full(channels, ONE, np.int32),
                                  np.full(channels, -7, np.int32), stride=(1, 2), dilation=(2, 1),
                                  padding=(2, 2, 1, 1), depth_multiplier=multiplier, input_zero_point=0,
                                  output_offset=3, activation_min=-100, activation_max=100)
    want = F.conv2d(F.pad(_nchw(x), (1, 1, 2, 2)), torch.from_numpy(w).permute(2, 0, 1)[:, None].double(),
                    stride=(1, 2), dilation=(2, 1), groups=5)
    np.testing.assert_array_equal(out, np.clip(_round_half_up(_nhwc(want) / 2**8) + 3, -100, 100))


def test_pools_match_float_pools():
    x = RNG.integers(-128, 128, (2, 9, 8, 3)).astype(np.int8)
    window = {"kernel": (3, 3), "stride": (2, 2), "padding": (1, 1, 1, 1)}
    got = ref.max_pool_s8(x, activation_min=-128, activation_max=127, **window)
    np.testing.assert_array_equal(got, _nhwc(F.max_pool2d(_nchw(x), 3, 2, 1)))
    for include in (True, False):
        zp = -5
        got = ref.avg_pool_s8(x, count_include_pad=include, zero_point=zp, activation_min=-128,
                              activation_max=127, **window)
        want = F.avg_pool2d(_nchw(x) - zp, 3, 2, 1, count_include_pad=include)
        np.testing.assert_array_equal(got, np.clip(torch.round(want).numpy().transpose(0, 2, 3, 1) + zp, -128, 127))


def test_rounding_divide_ties_to_even_like_torch_round():
    totals = np.arange(-40, 41)
    for count in (2, 4, 9):
        np.testing.assert_array_equal(ref.rounding_divide(totals, count), torch.round(torch.tensor(totals / count)).numpy())


def test_add_agrees_with_float_within_one_lsb():
    a = RNG.integers(-128, 128, (4, 5, 6)).astype(np.int8)
    b = RNG.integers(-128, 128, (1, 1, 6)).astype(np.int8)  # a broadcast channel vector
    (sa, za), (sb, zb), (so, zo) = (0.05, 3), (0.11, -7), (0.13, 10)
    twice_max = 2 * max(sa, sb)
    m_a, s_a = quantize_multiplier(sa / twice_max)
    m_b, s_b = quantize_multiplier(sb / twice_max)
    m_o, s_o = quantize_multiplier(twice_max / ((1 << ref.ADD_LEFT_SHIFT) * so))
    got = ref.add_s8(a, b, a_offset=-za, a_multiplier=m_a, a_shift=s_a, b_offset=-zb, b_multiplier=m_b,
                     b_shift=s_b, output_offset=zo, output_multiplier=m_o, output_shift=s_o,
                     activation_min=-128, activation_max=127)
    real = (a.astype(np.float64) - za) * sa + (b.astype(np.float64) - zb) * sb
    want = np.clip(np.round(real / so) + zo, -128, 127)
    assert got.shape == (4, 5, 6) and np.abs(got - want).max() <= 1 and (got == want).mean() > 0.98


@pytest.mark.parametrize("scale", [0.02, 0.05, 0.1, 0.2, 0.5, 2.0])
def test_softmax_matches_pytorchs_quantized_softmax(scale):
    import compiler.frontend  # noqa: F401  (torchao registers the quantized_decomposed ops)

    zero_point = int(RNG.integers(-20, 20))
    x = RNG.integers(-128, 128, (300, 12)).astype(np.int8)
    ours = ref.softmax_s8(x, **ref.softmax_parameters(scale))
    probabilities = torch.softmax(torch.from_numpy((x.astype(np.float32) - zero_point) * scale), -1)
    theirs = torch.ops.quantized_decomposed.quantize_per_tensor(probabilities, 1 / 256, -128, -128, 127, torch.int8)
    difference = np.abs(ours.astype(int) - theirs.numpy().astype(int))
    assert difference.max() <= 1 and (difference == 0).mean() >= 0.99
