"""C kernels (host build, scalar tier) against compiler/reference.py, byte for byte."""
from __future__ import annotations

import ctypes
import itertools

import numpy as np
import pytest

from build_host import build_kernels_lib
from cases.quantize import float32_ties
from compiler import reference
from compiler.fixedpoint import quantize_multiplier
from kernels_ctypes import EM_NN_ERR_BAD_ARGUMENT, EM_NN_OK, Kernels


@pytest.fixture(scope="module")
def kernels():
    return Kernels(build_kernels_lib())


def random_requant(rng, n_out, low=-12.0, high=3.0):
    """Multipliers/shifts of random real scales 2^low..2^high (shifts > 0 included)."""
    reals = 2.0 ** rng.uniform(low, high, size=n_out)
    pairs = [quantize_multiplier(float(r)) for r in reals]
    return (np.array([m for m, _ in pairs], dtype=np.int32),
            np.array([s for _, s in pairs], dtype=np.int32))


def check_fc(kernels, x, w, bias, mult, shift, out_offset=0, act_min=-128, act_max=127):
    status, got = kernels.fully_connected_s8(x, w, bias, mult, shift, out_offset, act_min, act_max)
    want = reference.fully_connected_s8(x, w, bias, mult, shift, out_offset, act_min, act_max)
    assert status == EM_NN_OK
    np.testing.assert_array_equal(got, want)


SHAPES = list(itertools.product([1, 3], [1, 3, 16, 17, 640], [1, 4, 5, 128]))


@pytest.mark.parametrize("batches,n_in,n_out", SHAPES)
def test_fc_random_shapes(kernels, batches, n_in, n_out):
    rng = np.random.default_rng(batches * 100003 + n_in * 131 + n_out)
    x = rng.integers(-128, 128, size=(batches, n_in), dtype=np.int8)
    w = rng.integers(-128, 128, size=(n_out, n_in), dtype=np.int8)
    bias = rng.integers(-2000, 2000, size=n_out, dtype=np.int32)
    # Scales that spread the outputs over -128..127 (few clamps: every product matters).
    spread = float(np.log2(0.012 / np.sqrt(n_in)))
    mult, shift = random_requant(rng, n_out, spread - 1.0, spread + 1.0)
    out_offset = int(rng.integers(-128, 128))
    check_fc(kernels, x, w, bias, mult, shift, out_offset)


@pytest.mark.parametrize("n_in", [1, 3, 17, 640])
@pytest.mark.parametrize("value", [-128, 127])
def test_fc_extreme_values(kernels, n_in, value):
    rng = np.random.default_rng(n_in)
    n_out = 5
    x = np.full((3, n_in), value, dtype=np.int8)
    w = np.where(rng.random((n_out, n_in)) < 0.5, -128, 127).astype(np.int8)
    bias = np.array([0, 1 << 20, -(1 << 20), 2**31 - 1 - 128 * 128 * 640, -(2**31) + 128 * 128 * 640],
                    dtype=np.int32)
    mult, shift = random_requant(rng, n_out, -20.0, -2.0)
    for out_offset in (-128, 127):
        check_fc(kernels, x, w, bias, mult, shift, out_offset)


@pytest.mark.parametrize("act_min,act_max", [(-128, 127), (0, 127), (-128, 0), (-20, 30), (5, 5)])
def test_fc_activation_clamps(kernels, act_min, act_max):
    rng = np.random.default_rng(abs(act_min * 7 + act_max))
    x = rng.integers(-128, 128, size=(3, 33), dtype=np.int8)
    w = rng.integers(-128, 128, size=(9, 33), dtype=np.int8)
    bias = rng.integers(-5000, 5000, size=9, dtype=np.int32)
    mult, shift = random_requant(rng, 9, -10.0, -6.0)
    check_fc(kernels, x, w, bias, mult, shift, 3, act_min, act_max)


def test_fc_positive_shifts_and_wrapping_left_shift(kernels):
    """Scales > 1 give shift > 0 (left shift); small accumulators keep it in range."""
    rng = np.random.default_rng(7)
    x = rng.integers(-3, 4, size=(2, 3), dtype=np.int8)
    w = rng.integers(-3, 4, size=(6, 3), dtype=np.int8)
    bias = rng.integers(-10, 10, size=6, dtype=np.int32)
    mult, shift = random_requant(rng, 6, 0.5, 4.0)
    assert (shift > 0).all()
    check_fc(kernels, x, w, bias, mult, shift)


def test_fc_rounding_ties_negative_and_positive(kernels):
    """acc = ±(2k+1)·2^(e-1): exact ties of the requantization, which rounds them half up."""
    n_out = 16
    x = np.zeros((1, 1), dtype=np.int8)  # acc = bias exactly
    w = np.ones((n_out, 1), dtype=np.int8)
    # multiplier 2^30 (= 0.5 in Q31) then shift -e: result = acc / 2^(e+1)
    mult = np.full(n_out, 1 << 30, dtype=np.int32)
    shift = np.array([-(1 + i % 4) for i in range(n_out)], dtype=np.int32)
    bias = np.array([(1 if i % 2 else -1) * ((2 * i + 1) << (1 + i % 4)) for i in range(n_out)],
                    dtype=np.int32)
    check_fc(kernels, x, w, bias, mult, shift)


def test_fc_zero_and_extreme_multipliers(kernels):
    x = np.full((1, 4), -128, dtype=np.int8)
    w = np.full((4, 4), -128, dtype=np.int8)
    bias = np.array([-(2**31), 2**31 - 1 - 65536, 0, -65536], dtype=np.int32)
    mult = np.array([0, 2**31 - 1, 1 << 30, 2**31 - 1], dtype=np.int32)
    shift = np.array([0, -31, 30, 0], dtype=np.int32)
    check_fc(kernels, x, w, bias, mult, shift)


def test_fc_rejects_bad_arguments(kernels):
    x = np.zeros((1, 1), dtype=np.int8)
    status, _ = kernels.fully_connected_s8(x, np.zeros((0, 1), np.int8), np.zeros(0, np.int32),
                                           np.zeros(0, np.int32), np.zeros(0, np.int32), 0, -128, 127)
    assert status == EM_NN_ERR_BAD_ARGUMENT  # O = 0


def test_fc_buffer_size_is_zero(kernels):
    from kernels_ctypes import FcDims
    import ctypes
    dims = FcDims(1, 640, 128)
    assert kernels.lib.em_fully_connected_s8_get_buffer_size(ctypes.byref(dims)) == 0


SPECIAL_FLOATS = np.array(
    [0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 126.5, 127.5, -128.5, -127.5, 1e10, -1e10,
     np.inf, -np.inf, np.nan, -np.nan, 3.4e38, -3.4e38, 1e-45, -1e-45, 0.49999997, 127.49999],
    dtype=np.float32)


@pytest.mark.parametrize("inv_scale", [1.0, 0.5, 2.0, 1 / 0.0078125, 37.3, 1e-30, 1e30, 0.0, np.inf])
@pytest.mark.parametrize("zero_point", [-128, -3, 0, 127])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_quantize_special_values(kernels, inv_scale, zero_point):
    inv = np.float32(inv_scale)
    status, got = kernels.quantize_f32_s8(SPECIAL_FLOATS, inv, zero_point)
    assert status == EM_NN_OK
    np.testing.assert_array_equal(got, reference.quantize_f32_s8(SPECIAL_FLOATS, inv, zero_point))


def test_quantize_random(kernels):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(10007) * 4).astype(np.float32)
    for scale in (0.01, 0.0313, 0.5):
        inv = np.float32(1.0) / np.float32(scale)
        for zp in (-128, -7, 0, 127):
            status, got = kernels.quantize_f32_s8(x, inv, zp)
            assert status == EM_NN_OK
            np.testing.assert_array_equal(got, reference.quantize_f32_s8(x, inv, zp))


def test_quantize_ties_round_half_even(kernels):
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5], dtype=np.float32)
    status, got = kernels.quantize_f32_s8(x, np.float32(1.0), 0)
    assert status == EM_NN_OK
    assert got.tolist() == [0, 2, 2, 0, -2, -2]


# 2^-126 .. 2^119 (exclusive): the ends of the integer (no-FPU) path's scale domain.
@pytest.mark.parametrize("scale", [1.0, 0.0078125, 0.1, 3e-39, 1e30, np.inf, np.nan, 2.0 ** -126,
                                   -(2.0 ** -126), 1.9999999 * 2.0 ** 118, 2.0 ** 119, -0.0, -0.1234567])
@pytest.mark.parametrize("zero_point", [-128, 0, 5, 127])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_dequantize_all_values(kernels, scale, zero_point):
    q = np.arange(-128, 128, dtype=np.int8)
    s = np.float32(scale)
    status, got = kernels.dequantize_s8_f32(q, s, zero_point)
    assert status == EM_NN_OK
    want = reference.dequantize_s8_f32(q, s, zero_point)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


# The integer (no-FPU) paths of quantize / dequantize, which the host runs: products that round
# to a tie only in float32, x denormal against a large inv_scale, the 0.5 and 512 cut-offs, any
# bit pattern.
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_quantize_bit_patterns_and_float_ties(kernels):
    rng = np.random.default_rng(7)
    for k in range(40):
        inv = np.float32(rng.uniform(1.0, 2.0) * 2.0 ** int(rng.integers(-20, 20)))
        if k == 0:
            inv = np.float32(2.0 ** 126)  # denormal x then gives results up to 2^3
        zp = int(rng.integers(-128, 128)) if k % 4 else [-128, 127][k // 4 % 2]
        codes = rng.integers(-600, 600, size=2000) + 0.5
        near_ties = (codes / inv).astype(np.float32)
        near_ties = np.nextafter(near_ties, rng.choice([-np.inf, 0, np.inf], size=2000).astype(np.float32))
        bits = rng.integers(0, 2**32, size=2000, dtype=np.uint64).astype(np.uint32).view(np.float32)
        denormal = (rng.integers(0, 2**23, size=200, dtype=np.uint32)
                    | (rng.integers(0, 2, size=200, dtype=np.uint32) << 31)).view(np.float32)
        edges = np.array([0.5, 0.49999997, 512.0, 511.99997, 255.5, 256.5, -255.5, -256.5], np.float32) / inv
        x = np.concatenate([near_ties, bits, denormal, edges.astype(np.float32)]).astype(np.float32)
        status, got = kernels.quantize_f32_s8(x, inv, zp)
        assert status == EM_NN_OK
        np.testing.assert_array_equal(got, reference.quantize_f32_s8(x, inv, zp), err_msg=f"inv {inv!r} zp {zp}")


def test_quantize_ties_of_the_float32_product(kernels):
    """x * 1.5 exactly k + 1/2 ± 2^-18: the float32 product's rounding to even decides nearbyint's."""
    inv = np.float32(1.5)
    x = float32_ties(inv)
    assert x.size > 40
    for scale_exp in (-3, 0, 5):  # x · 2^e and inv · 2^-e: the same exact product
        xe, ie = (x * np.float32(2.0**scale_exp)).astype(np.float32), np.float32(inv * 2.0**-scale_exp)
        for zp in (-128, 0, 127):
            status, got = kernels.quantize_f32_s8(xe, ie, zp)
            assert status == EM_NN_OK
            np.testing.assert_array_equal(got, reference.quantize_f32_s8(xe, ie, zp))



class _SoftmaxParams(ctypes.Structure):
    _fields_ = [(n, ctypes.c_int32) for n in ("input_multiplier", "input_left_shift", "diff_min")]


class _NNContext(ctypes.Structure):  # em_nn_context
    _fields_ = [("buf", ctypes.c_void_p), ("size", ctypes.c_int32), ("paths", ctypes.c_uint32)]


def _softmax(kernels, params: _SoftmaxParams, x: np.ndarray, scratch: bool = False) -> tuple[int, np.ndarray]:
    """em_softmax_s8 on rows x, without scratch or with the 1 KiB its table of exponentials takes."""
    fn = kernels.lib.em_softmax_s8
    fn.restype = ctypes.c_int
    out = np.full(x.shape, 0x55, np.int8)
    table = np.zeros(256, np.int32)
    ctx = _NNContext(table.ctypes.data if scratch else None, table.nbytes if scratch else 0, 0)
    status = fn(ctypes.byref(ctx), ctypes.byref(params), ctypes.c_int32(x.shape[0]), ctypes.c_int32(x.shape[1]),
                x.ctypes.data_as(ctypes.POINTER(ctypes.c_int8)), out.ctypes.data_as(ctypes.POINTER(ctypes.c_int8)))
    return status, out


def test_softmax_range_check_shared_with_the_adapter(kernels):
    """em_softmax_s8() checks what the SOFTMAX adapter's check() checks, through the same
    em_softmax_s8_params_valid(): rows of 1..4095 values, multiplier >= 0, shift 0..31,
    diff_min <= 0; the longest row computes the reference's bytes."""
    attrs = reference.softmax_parameters(0.05)
    good = _SoftmaxParams(attrs["input_multiplier"], attrs["input_left_shift"], attrs["diff_min"])
    rng = np.random.default_rng(5)
    x = rng.integers(-128, 128, size=(1, 4095), dtype=np.int8)
    for scratch in (False, True):  # each exponential computed where needed, or once into the table
        status, got = _softmax(kernels, good, x, scratch)
        assert status == EM_NN_OK
        np.testing.assert_array_equal(got, reference.softmax_s8(x, **attrs))
    assert _softmax(kernels, good, np.zeros((1, 4096), np.int8))[0] == EM_NN_ERR_BAD_ARGUMENT
    for field, value in (("input_multiplier", -1), ("input_left_shift", 32), ("input_left_shift", -1),
                         ("diff_min", 1)):
        bad = _SoftmaxParams(good.input_multiplier, good.input_left_shift, good.diff_min)
        setattr(bad, field, value)
        assert _softmax(kernels, bad, x)[0] == EM_NN_ERR_BAD_ARGUMENT, field
