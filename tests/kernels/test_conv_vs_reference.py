"""conv2d / depthwise_conv2d C kernels (host build, scalar tier) against compiler/reference.py,
byte for byte, over random shapes: odd sizes, 1x1 / 3x3 / 5x3 kernels, strides and dilations 2,
asymmetric padding, groups, depth multipliers 1-3, C_IN 1/3/17/32, edge values, zero points at
both ends, shifts > 0. The MVE paths run the same cases in QEMU (tests/runtime/test_conv_programs.py)."""
from __future__ import annotations

import ctypes
import zlib

import numpy as np
import pytest

from build_host import build_kernels_lib
from compiler import reference
from compiler.fixedpoint import quantize_multiplier
from compiler.ops.conv_options import ConvDims, ConvParams  # the kernels' structs, field for field
from kernels_ctypes import EM_NN_ERR_BAD_ARGUMENT, EM_NN_OK


class PerChannelQuant(ctypes.Structure):
    _fields_ = [("multiplier", ctypes.POINTER(ctypes.c_int32)), ("shift", ctypes.POINTER(ctypes.c_int32))]


class NnContext(ctypes.Structure):
    _fields_ = [("buf", ctypes.c_void_p), ("size", ctypes.c_int32), ("paths", ctypes.c_uint32)]  # em_nn_context


def _ptr(a: np.ndarray, ctype):
    return a.ctypes.data_as(ctypes.POINTER(ctype))


@pytest.fixture(scope="module")
def lib():
    lib = ctypes.CDLL(str(build_kernels_lib()))
    for name in ("em_conv2d_s8", "em_depthwise_conv2d_s8"):
        getattr(lib, name).restype = ctypes.c_int
        getattr(lib, f"{name}_get_buffer_size").restype = ctypes.c_int32
    return lib


def run_kernel(lib, depthwise: bool, x, w, bias, mult, shift, *, stride, dilation, padding, groups=1,
               depth_multiplier=1, input_zero_point, output_offset, activation_min=-128,
               activation_max=127, out_hw=None, scratch=False):
    x = np.ascontiguousarray(x, np.int8)
    w = np.ascontiguousarray(w, np.int8)
    bias = np.ascontiguousarray(bias, np.int32)
    mult = np.ascontiguousarray(mult, np.int32)
    shift = np.ascontiguousarray(shift, np.int32)
    n, h, wd, c_in = x.shape
    kh, kw = (w.shape[0], w.shape[1]) if depthwise else (w.shape[1], w.shape[2])
    c_out = w.shape[2] if depthwise else w.shape[0]
    if out_hw is None:  # else the test's own (wrong) output size
        out_hw = (reference.output_size(h, kh, stride[0], dilation[0], padding[0], padding[1]),
                  reference.output_size(wd, kw, stride[1], dilation[1], padding[2], padding[3]))
    oh, ow = out_hw
    out = np.full((n, max(oh, 1), max(ow, 1), c_out), 0x55, np.int8)
    dims = ConvDims(n, h, wd, c_in, kh, kw, oh, ow, c_out)
    params = ConvParams(stride[0], stride[1], dilation[0], dilation[1], *padding, groups,
                        depth_multiplier, input_zero_point, output_offset, activation_min, activation_max)
    quant = PerChannelQuant(_ptr(mult, ctypes.c_int32), _ptr(shift, ctypes.c_int32))
    ctx = NnContext(None, 0)
    size = lib.em_conv2d_s8_get_buffer_size(ctypes.byref(params), ctypes.byref(dims))
    buf = np.zeros(max(size, 1), np.int8)
    if scratch and not depthwise and size > 0:  # the column path (im2col into the scratch)
        ctx = NnContext(buf.ctypes.data, size)
    fn = lib.em_depthwise_conv2d_s8 if depthwise else lib.em_conv2d_s8
    status = fn(ctypes.byref(ctx), ctypes.byref(params), ctypes.byref(quant), ctypes.byref(dims),
                _ptr(x, ctypes.c_int8), _ptr(w, ctypes.c_int8), _ptr(bias, ctypes.c_int32),
                _ptr(out, ctypes.c_int8))
    return status, out


def random_requant(rng, n, low, high):
    pairs = [quantize_multiplier(float(r)) for r in 2.0 ** rng.uniform(low, high, size=n)]
    return (np.array([m for m, _ in pairs], np.int32), np.array([s for _, s in pairs], np.int32))


def make_case(seed, depthwise, n, h, w, c_in, kh, kw, c_out_or_m, groups=1, extreme=False):
    """Random tensors; scales spread the outputs over -128..127 (a few channels clamp, some with
    shift > 0)."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-128, 128, size=(n, h, w, c_in), dtype=np.int8)
    if depthwise:
        c_out = c_in * c_out_or_m
        wts = rng.integers(-128, 128, size=(kh, kw, c_out), dtype=np.int8)
        taps = kh * kw
    else:
        c_out = c_out_or_m
        wts = rng.integers(-128, 128, size=(c_out, kh, kw, c_in // groups), dtype=np.int8)
        taps = kh * kw * (c_in // groups)
    if extreme:
        x[..., ::2] = -128
        x[..., 1::3] = 127
        wts.reshape(-1)[::3] = -128
        wts.reshape(-1)[1::5] = 127
    bias_range = int(3000 * np.sqrt(taps))
    bias = rng.integers(-bias_range, bias_range, size=c_out, dtype=np.int32)
    spread = float(np.log2(0.012 / np.sqrt(taps)))
    mult, shift = random_requant(rng, c_out, spread - 1.0, spread + 1.0)
    hot = (rng.random(c_out) < 0.15) & (np.arange(c_out) > 1)  # scales > 1: shift > 0, clamps
    for i in np.flatnonzero(hot):
        mult[i], shift[i] = quantize_multiplier(float(rng.uniform(1.5, 6.0)))
    return x, wts, bias, mult, shift


def check(lib, depthwise, x, w, bias, mult, shift, **kw):
    status, got = run_kernel(lib, depthwise, x, w, bias, mult, shift, **kw)
    assert status == EM_NN_OK
    kw.pop("out_hw", None)
    kw.pop("scratch", None)
    kw.setdefault("activation_min", -128)
    kw.setdefault("activation_max", 127)
    if depthwise:
        kw.pop("groups", None)
        want = reference.depthwise_conv2d_s8(x, w, bias, mult, shift, **kw)
    else:
        kw.pop("depth_multiplier", None)
        kw.setdefault("groups", 1)
        want = reference.conv2d_s8(x, w, bias, mult, shift, **kw)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    return want


# (n, h, w, c_in, c_out, kh, kw, stride, dilation, padding, groups)
CONV_CASES = [
    (1, 5, 4, 1, 3, 1, 1, (1, 1), (1, 1), (0, 0, 0, 0), 1),
    (2, 7, 6, 3, 16, 3, 3, (1, 1), (1, 1), (1, 1, 1, 1), 1),
    (1, 9, 8, 3, 5, 3, 3, (2, 2), (1, 1), (0, 1, 0, 1), 1),
    (1, 6, 7, 17, 4, 5, 3, (1, 2), (1, 1), (2, 1, 0, 2), 1),
    (1, 9, 9, 32, 7, 3, 3, (1, 1), (2, 2), (2, 2, 2, 2), 1),
    (1, 5, 5, 32, 33, 1, 1, (2, 1), (1, 1), (0, 0, 0, 0), 1),
    (1, 6, 5, 32, 8, 3, 3, (1, 1), (1, 1), (1, 0, 2, 1), 4),
    (2, 5, 6, 6, 9, 3, 2, (2, 1), (2, 1), (3, 0, 1, 0), 3),
    (1, 4, 4, 17, 17, 1, 3, (1, 1), (1, 2), (0, 0, 2, 2), 1),
    (1, 1, 1, 3, 2, 3, 3, (1, 1), (1, 1), (1, 1, 1, 1), 1),
    (1, 3, 10, 64, 20, 1, 1, (1, 1), (1, 1), (1, 0, 0, 1), 1),
]


@pytest.mark.parametrize("case", CONV_CASES, ids=lambda c: "x".join(map(str, c[:7])))
@pytest.mark.parametrize("zp", [-128, 0, 127])
@pytest.mark.parametrize("scratch", [False, True], ids=["taps", "columns"])
def test_conv2d_random_shapes(lib, case, zp, scratch):
    n, h, w, c_in, c_out, kh, kw, stride, dilation, padding, groups = case
    seed = zlib.crc32(repr((case, zp)).encode())
    x, wts, bias, mult, shift = make_case(seed, False, n, h, w, c_in, kh, kw, c_out, groups)
    want = check(lib, False, x, wts, bias, mult, shift, stride=stride, dilation=dilation,
                 padding=padding, groups=groups, input_zero_point=zp, scratch=scratch,
                 output_offset=int(np.random.default_rng(seed).integers(-128, 128)))
    assert want.size < 8 or len(np.unique(want)) > 2  # not collapsed to the clamps


# (n, h, w, c, m, kh, kw, stride, dilation, padding)
DW_CASES = [
    (1, 25, 5, 64, 1, 3, 3, (1, 1), (1, 1), (1, 1, 1, 1)),
    (2, 7, 9, 3, 2, 3, 3, (2, 2), (1, 1), (0, 1, 1, 0)),
    (1, 6, 11, 17, 3, 5, 3, (1, 2), (1, 1), (2, 2, 1, 1)),
    (1, 9, 9, 5, 1, 3, 3, (1, 1), (2, 2), (2, 1, 2, 3)),
    (1, 4, 5, 1, 1, 1, 1, (1, 1), (1, 1), (0, 0, 0, 0)),
    (1, 8, 7, 32, 2, 3, 3, (2, 1), (1, 2), (1, 1, 2, 2)),
    (1, 2, 3, 6, 1, 3, 3, (1, 1), (1, 1), (2, 2, 2, 2)),
    (1, 10, 4, 7, 1, 10, 4, (2, 1), (1, 1), (4, 5, 1, 2)),
]


@pytest.mark.parametrize("case", DW_CASES, ids=lambda c: "x".join(map(str, c[:7])))
@pytest.mark.parametrize("zp", [-128, 0, 127])
def test_depthwise_random_shapes(lib, case, zp):
    n, h, w, c, m, kh, kw, stride, dilation, padding = case
    seed = zlib.crc32(repr((case, zp, "dw")).encode())
    x, wts, bias, mult, shift = make_case(seed, True, n, h, w, c, kh, kw, m)
    want = check(lib, True, x, wts, bias, mult, shift, stride=stride, dilation=dilation, padding=padding,
                 depth_multiplier=m, input_zero_point=zp,
                 output_offset=int(np.random.default_rng(seed).integers(-128, 128)))
    assert want.size < 8 or len(np.unique(want)) > 2  # not collapsed to the clamps


@pytest.mark.parametrize("depthwise", [False, True])
@pytest.mark.parametrize("zp,out_offset", [(-128, 127), (127, -128)])
@pytest.mark.parametrize("scratch", [False, True], ids=["taps", "columns"])
def test_extreme_values_and_clamps(lib, depthwise, zp, out_offset, scratch):
    x, wts, bias, mult, shift = make_case(5, depthwise, 1, 6, 5, 17, 3, 3, 2 if depthwise else 9,
                                          extreme=True)
    bias[0], bias[-1] = 2**31 - 1 - 128 * 128 * 200, -(2**31) + 128 * 128 * 200
    for act in ((-128, 127), (0, 127), (-20, 30), (5, 5)):
        check(lib, depthwise, x, wts, bias, mult, shift, stride=(1, 2), dilation=(1, 1),
              padding=(1, 2, 2, 0), depth_multiplier=2 if depthwise else 1, input_zero_point=zp,
              output_offset=out_offset, activation_min=act[0], activation_max=act[1],
              scratch=scratch)


def test_conv_rounding_ties_and_shift_extremes(lib):
    """1x1 conv of ones over a zero input: acc = bias; exact ties round half up; shifts -31 / 30."""
    c_out = 20
    x = np.zeros((1, 1, 1, 1), np.int8)
    w = np.ones((c_out, 1, 1, 1), np.int8)
    mult = np.full(c_out, 1 << 30, np.int32)
    shift = np.array([-(1 + i % 4) for i in range(16)] + [-31, 0, 30, 0], np.int32)
    mult[16:] = [2**31 - 1, 2**31 - 1, 1 << 30, 0]
    bias = np.array([(1 if i % 2 else -1) * ((2 * i + 1) << (1 + i % 4)) for i in range(16)]
                    + [-(2**31), 2**31 - 1, -5, 7], np.int32)
    check(lib, False, x, w, bias, mult, shift, stride=(1, 1), dilation=(1, 1), padding=(0, 0, 0, 0),
          input_zero_point=0, output_offset=0)


def _good_args():
    x = np.zeros((1, 4, 4, 4), np.int8)
    w = np.zeros((2, 3, 3, 4), np.int8)
    return dict(x=x, w=w, bias=np.zeros(2, np.int32), mult=np.zeros(2, np.int32),
                shift=np.zeros(2, np.int32), stride=(1, 1), dilation=(1, 1), padding=(1, 1, 1, 1),
                input_zero_point=0, output_offset=0)


@pytest.mark.parametrize("bad", [
    dict(stride=(0, 1), out_hw=(4, 4)), dict(dilation=(1, 0)), dict(padding=(-1, 1, 1, 1)), dict(groups=3),
    dict(groups=0), dict(out_hw=(4, 5)), dict(out_hw=(3, 4)), dict(input_zero_point=128),
    dict(activation_min=10, activation_max=9)])
def test_conv_rejects_bad_arguments(lib, bad):
    args = _good_args()
    args.update(bad)
    status, _ = run_kernel(lib, False, args.pop("x"), args.pop("w"), args.pop("bias"), args.pop("mult"),
                           args.pop("shift"), **args)
    assert status == EM_NN_ERR_BAD_ARGUMENT


@pytest.mark.parametrize("bad", [dict(depth_multiplier=2), dict(depth_multiplier=0), dict(out_hw=(5, 4)),
                                 dict(stride=(1, -1), out_hw=(4, 4))])
def test_depthwise_rejects_bad_arguments(lib, bad):
    args = _good_args()
    args["w"] = np.zeros((3, 3, 4), np.int8)
    args.update(bias=np.zeros(4, np.int32), mult=np.zeros(4, np.int32), shift=np.zeros(4, np.int32))
    args.update(bad)
    status, _ = run_kernel(lib, True, args.pop("x"), args.pop("w"), args.pop("bias"), args.pop("mult"),
                           args.pop("shift"), **args)
    assert status == EM_NN_ERR_BAD_ARGUMENT


def test_buffer_sizes_on_the_host(lib):
    """Scalar conv2d: one column of K = 3·3·3 int8, rounded up to 4; depthwise: none."""
    dims = ConvDims(1, 32, 32, 3, 3, 3, 32, 32, 16)
    params = ConvParams(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, -128, 127)
    assert lib.em_conv2d_s8_get_buffer_size(ctypes.byref(params), ctypes.byref(dims)) == 28
    assert lib.em_depthwise_conv2d_s8_get_buffer_size(ctypes.byref(params), ctypes.byref(dims)) == 0
