"""Max pool, average pool and add kernels (host build, scalar tier) against compiler/reference.py,
byte for byte. The MVE paths run the same cases through whole programs in QEMU
(tests/runtime/test_pool_add_programs.py)."""
from __future__ import annotations

import ctypes

import numpy as np
import pytest

from build_host import build_kernels_lib
from compiler import reference
from compiler.fixedpoint import quantize_multiplier
from kernels_ctypes import EM_NN_ERR_BAD_ARGUMENT, EM_NN_OK

MAX_RANK = 8  # EM_BROADCAST_MAX_RANK


class PoolDims(ctypes.Structure):
    _fields_ = [(n, ctypes.c_int32) for n in
                ("batches", "input_h", "input_w", "channels", "output_h", "output_w")]


class PoolParams(ctypes.Structure):
    _fields_ = [(n, ctypes.c_int32) for n in
                ("kernel_h", "kernel_w", "stride_h", "stride_w", "pad_top", "pad_bottom", "pad_left",
                 "pad_right", "count_include_pad", "zero_point", "activation_min", "activation_max")]


class BroadcastDims(ctypes.Structure):
    """em_broadcast_dims: the output's shape and each operand's, aligned to the output's rank."""
    _fields_ = [("rank", ctypes.c_int32)] + [(n, ctypes.c_int32 * MAX_RANK) for n in ("shape", "a_shape", "b_shape")]


ADD_FIELDS = ("a_offset", "a_multiplier", "a_shift", "b_offset", "b_multiplier", "b_shift",
              "output_offset", "output_multiplier", "output_shift", "activation_min", "activation_max")


class AddParams(ctypes.Structure):
    _fields_ = [(n, ctypes.c_int32) for n in ADD_FIELDS]


def _p(a: np.ndarray):
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_int8))


@pytest.fixture(scope="module")
def lib():
    lib = ctypes.CDLL(str(build_kernels_lib()))
    for name in ("em_max_pool_s8", "em_avg_pool_s8", "em_add_s8"):
        getattr(lib, name).restype = ctypes.c_int
    lib.em_avg_pool_s8_get_buffer_size.restype = ctypes.c_int32
    return lib


def pool_call(lib, kind, x, kernel, stride, padding, *, include=True, zp=0, act=(-128, 127), out_hw=None):
    n, h, w, c = x.shape
    top, bottom, left, right = padding
    if out_hw is not None:
        oh, ow = out_hw
    else:
        oh = reference.output_size(h, kernel[0], stride[0], 1, top, bottom)
        ow = reference.output_size(w, kernel[1], stride[1], 1, left, right)
    dims = PoolDims(n, h, w, c, oh, ow)
    params = PoolParams(*kernel, *stride, top, bottom, left, right, int(include), zp, *act)
    out = np.full((n, max(oh, 1), max(ow, 1), c), 0x55, np.int8)
    x = np.ascontiguousarray(x, np.int8)
    status = getattr(lib, f"em_{kind}_pool_s8")(ctypes.byref(params), ctypes.byref(dims), _p(x), _p(out))
    return status, out


def pool_reference(kind, x, kernel, stride, padding, *, include=True, zp=0, act=(-128, 127)):
    window = dict(kernel=kernel, stride=stride, padding=padding, activation_min=act[0], activation_max=act[1])
    if kind == "max":
        return reference.max_pool_s8(x, **window)
    return reference.avg_pool_s8(x, count_include_pad=include, zero_point=zp, **window)


def check_pool(lib, kind, x, kernel, stride, padding, **kw):
    status, got = pool_call(lib, kind, x, kernel, stride, padding, **kw)
    want = pool_reference(kind, x, kernel, stride, padding, **kw)
    assert status == EM_NN_OK
    np.testing.assert_array_equal(got, want)
    return want


# (N, H, W, C), kernel, stride, padding (top, bottom, left, right)
POOL_CASES = [
    ((1, 1, 1, 1), (1, 1), (1, 1), (0, 0, 0, 0)),
    ((2, 5, 7, 3), (1, 1), (2, 3), (0, 0, 0, 0)),
    ((1, 8, 8, 16), (2, 2), (2, 2), (0, 0, 0, 0)),
    ((1, 9, 7, 17), (3, 3), (1, 1), (1, 1, 1, 1)),
    ((2, 11, 10, 5), (3, 3), (2, 2), (1, 0, 0, 1)),
    ((1, 10, 9, 33), (3, 2), (3, 1), (2, 1, 0, 1)),
    ((1, 5, 25, 64), (5, 25), (1, 1), (0, 0, 0, 0)),  # global pooling
    ((3, 7, 6, 1), (2, 3), (1, 2), (1, 1, 2, 0)),
    ((1, 32, 32, 16), (3, 3), (2, 2), (1, 1, 1, 1)),
    ((1, 4, 300, 3), (2, 300), (1, 1), (1, 0, 0, 0)),  # > 256 cells per window and per row
    ((1, 20, 20, 8), (20, 20), (1, 1), (0, 0, 0, 0)),  # 400 cells
]


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("case", range(len(POOL_CASES)))
def test_pool_random_shapes(lib, kind, case):
    shape, kernel, stride, padding = POOL_CASES[case]
    rng = np.random.default_rng(case * 7 + len(kind))
    x = rng.integers(-128, 128, size=shape, dtype=np.int8)
    for include in ((True, False) if kind == "avg" else (True,)):
        zp = int(rng.integers(-128, 128))
        check_pool(lib, kind, x, kernel, stride, padding, include=include, zp=zp)
    act = tuple(sorted(int(v) for v in rng.integers(-100, 100, size=2)))
    check_pool(lib, kind, x, kernel, stride, padding, include=False, zp=3, act=act)


@pytest.mark.parametrize("value", [-128, 127])
@pytest.mark.parametrize("zp", [-128, 127, 0])
def test_pool_edge_values_and_zero_points(lib, value, zp):
    x = np.full((1, 6, 5, 19), value, np.int8)
    x[0, 2, 2, ::2] = -value - 1  # the other end
    for include in (True, False):
        check_pool(lib, "avg", x, (3, 3), (2, 2), (1, 2, 2, 1), include=include, zp=zp)
    check_pool(lib, "max", x, (3, 3), (2, 2), (1, 2, 2, 1))


def test_max_pool_padding_never_wins(lib):
    """All inputs -128: padded cells (0 in the reference's padding) must not win."""
    x = np.full((1, 4, 4, 5), -128, np.int8)
    got = check_pool(lib, "max", x, (3, 3), (1, 1), (2, 2, 2, 2))
    assert (got == -128).all()


@pytest.mark.parametrize("area", [2, 4, 6, 8])
def test_avg_pool_exact_ties_both_signs(lib, area):
    """Totals of (2k + 1)·area/2 on both signs: exact .5 ties round half to even."""
    kernel = (2, area // 2)
    rng = np.random.default_rng(area)
    n_pix, c = 12, 7
    x = rng.integers(-128, 128, size=(1, 2, kernel[1] * n_pix, c)).astype(np.int64)
    for px in range(n_pix):
        block = x[0, :, px * kernel[1]:(px + 1) * kernel[1], :]  # [2, KW, C] view
        for ch in range(c):
            total = int(block[..., ch].sum())
            want = (2 * (px - n_pix // 2) + 1) * area // 2  # odd·area/2: a tie
            block[0, 0, ch] += want - total
            if not -128 <= block[0, 0, ch] <= 127:  # spread the correction over the cells
                block[..., ch] = 0
                block[0, 0, ch] = want // 2
                block[1, 0, ch] = want - want // 2
    x = x.astype(np.int8)
    totals = x.reshape(1, 2, n_pix, kernel[1], c).astype(np.int64).sum(axis=(1, 3))
    assert ((2 * totals) % area == 0).all() and ((2 * totals // area) % 2 != 0).all()  # all ties
    assert (totals < 0).any() and (totals > 0).any()
    got = check_pool(lib, "avg", x, kernel, kernel, (0, 0, 0, 0), zp=0)
    assert set(np.unique(got) % 2) == {0}  # half to even: every result even


def test_avg_pool_count_without_padding_cells(lib):
    """Corner windows: 4 real cells of 9; the two counts give different averages."""
    x = np.full((1, 2, 2, 1), 9, np.int8)
    a = check_pool(lib, "avg", x, (3, 3), (1, 1), (1, 1, 1, 1), include=True)
    b = check_pool(lib, "avg", x, (3, 3), (1, 1), (1, 1, 1, 1), include=False)
    assert (a == 4).all() and (b == 9).all()  # 36/9 and 36/4


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("bad", [
    dict(kernel=(0, 1)), dict(stride=(1, 0)), dict(padding=(1, 0, 0, 0)), dict(padding=(0, 0, -1, 0)),
    dict(out_hw=(3, 3)), dict(out_hw=(2, 2)), dict(out_hw=(4, 2)), dict(act=(5, 4)), dict(zp=128), dict(act=(-129, 0)),
])
def test_pool_rejects_bad_arguments(lib, kind, bad):
    x = np.zeros((1, 3, 3, 2), np.int8)
    args = dict(kernel=(1, 2), stride=(1, 1), padding=(0, 0, 0, 0))
    args.update({k: bad[k] for k in ("kernel", "stride", "padding") if k in bad})
    kw = {k: bad[k] for k in ("out_hw", "act", "zp") if k in bad}
    if "kernel" in bad or "stride" in bad:
        kw.setdefault("out_hw", (3, 2))
    status, _ = pool_call(lib, kind, x, args["kernel"], args["stride"], args["padding"], **kw)
    assert status == EM_NN_ERR_BAD_ARGUMENT


INT32_MAX = 2**31 - 1


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("dims, params", [
    # padded height INT32_MAX + 1 (input + pads): out of int32, though its output formula would hold
    ((1, INT32_MAX - 1, 1, 1, 2**30, 1), (2, 1, 2, 1, 1, 1, 0, 0)),
    # input N·H·W·C = 2^32, output within int32
    ((1, 65536, 65536, 1, 1, 1), (65536, 65536, 1, 1, 0, 0, 0, 0)),
    # output N·OH·OW·C = 2^31: one past INT32_MAX (the input 2^31 too)
    ((2, 32768, 32768, 1, 32768, 32768), (1, 1, 1, 1, 0, 0, 0, 0)),
    # the batch factor alone overflows the partial product N·H
    ((INT32_MAX, 2, 1, 1, 2, 1), (1, 1, 1, 1, 0, 0, 0, 0)),
])
def test_pool_rejects_extents_beyond_int32(lib, kind, dims, params):
    """The shared validator (em_pool_validate_s8.c) refuses padded extents and tensor sizes that
    leave int32 before the kernel reads anything (the buffers here are one byte each)."""
    x = np.zeros(1, np.int8)
    out = np.zeros(1, np.int8)
    p = PoolParams(*params, 1, 0, -128, 127)
    status = getattr(lib, f"em_{kind}_pool_s8")(ctypes.byref(p), ctypes.byref(PoolDims(*dims)), _p(x), _p(out))
    assert status == EM_NN_ERR_BAD_ARGUMENT


def test_avg_pool_rejects_huge_kernel_and_needs_no_scratch(lib):
    x = np.zeros((1, 1, 1, 1), np.int8)
    half = 1100  # kernel 2201 x 2201 > 2^22 cells over one real cell
    status, _ = pool_call(lib, "avg", x, (2201, 2201), (1, 1), (half, half, half, half), out_hw=(1, 1))
    assert status == EM_NN_ERR_BAD_ARGUMENT
    status, _ = pool_call(lib, "max", x, (2201, 2201), (1, 1), (half, half, half, half), out_hw=(1, 1))
    assert status == EM_NN_OK
    dims, params = PoolDims(1, 5, 25, 64, 1, 1), PoolParams(5, 25, 1, 1, 0, 0, 0, 0, 1, 0, -128, 127)
    assert lib.em_avg_pool_s8_get_buffer_size(ctypes.byref(params), ctypes.byref(dims)) == 0


# ---- add ------------------------------------------------------------------------------------

def add_params(rng, *, scale_a=None, scale_b=None, scale_out=None, zps=None):
    """AddOptions as the lowering computes them from real scales (TFLite's scheme)."""
    scale_a = scale_a or float(2.0 ** rng.uniform(-8, 0))
    scale_b = scale_b or float(2.0 ** rng.uniform(-8, 0))
    scale_out = scale_out or float(2.0 ** rng.uniform(-7, 1))
    zp_a, zp_b, zp_out = zps if zps is not None else (int(v) for v in rng.integers(-128, 128, size=3))
    twice = 2 * max(scale_a, scale_b)
    ma, sa = quantize_multiplier(scale_a / twice)
    mb, sb = quantize_multiplier(scale_b / twice)
    mo, so = quantize_multiplier(twice / ((1 << reference.ADD_LEFT_SHIFT) * scale_out))
    return dict(a_offset=-zp_a, a_multiplier=ma, a_shift=sa, b_offset=-zp_b, b_multiplier=mb, b_shift=sb,
                output_offset=zp_out, output_multiplier=mo, output_shift=so, activation_min=-128,
                activation_max=127)


def add_layout(a_shape, b_shape):
    out_shape = np.broadcast_shapes(a_shape, b_shape)
    rank = len(out_shape)

    def aligned(shape):
        return (1,) * (rank - len(shape)) + tuple(shape)
    return out_shape, broadcast_dims(out_shape, aligned(a_shape), aligned(b_shape))


def broadcast_dims(shape, a_shape, b_shape) -> BroadcastDims:
    pad = (0,) * (MAX_RANK - len(shape))
    return BroadcastDims(len(shape), tuple(shape) + pad, tuple(a_shape) + pad, tuple(b_shape) + pad)


def add_call(lib, a, b, params, dims=None):
    out_shape, layout = add_layout(a.shape, b.shape)
    dims = dims or layout
    out = np.full(out_shape, 0x55, np.int8)
    a, b = np.ascontiguousarray(a, np.int8), np.ascontiguousarray(b, np.int8)
    p = AddParams(*(int(params[k]) for k in ADD_FIELDS))
    return lib.em_add_s8(ctypes.byref(p), ctypes.byref(dims), _p(a), _p(b), _p(out)), out


def check_add(lib, a, b, params):
    status, got = add_call(lib, a, b, params)
    want = reference.add_s8(a, b, **params)
    assert status == EM_NN_OK
    np.testing.assert_array_equal(got, want)
    return want


ADD_SHAPES = [
    ((1, 8, 8, 32), (1, 8, 8, 32)),
    ((2, 3, 5, 7), (2, 3, 5, 7)),
    ((1, 1, 1, 1), (1, 1, 1, 1)),
    ((37,), (37,)),
    ((1, 4, 3, 17), (1,)),
    ((1,), (1, 4, 3, 17)),
    ((2, 3, 3, 5), (1, 1, 1, 1)),
    ((1, 1, 1, 1), (2, 3, 3, 5)),
    ((2, 4, 5, 19), (1, 1, 1, 19)),
    ((1, 1, 1, 19), (2, 4, 5, 19)),
    ((3, 6, 33), (33,)),
    ((1, 1, 1, 3), (1, 1, 1, 3)),
    # general broadcasts: both operands broadcast, middle axes, per-row columns, mixed ranks
    ((2, 4, 5, 1), (1, 1, 1, 19)),
    ((1, 8, 1), (1, 1, 8)),
    ((2, 1, 5), (1, 3, 1)),
    ((2, 3, 4, 5), (3, 1, 5)),
    ((2, 3, 4, 5), (2, 3, 4, 1)),
    ((7, 1), (9,)),
    ((1, 3, 1, 4, 1), (2, 1, 5, 1, 6)),
    ((2, 1, 3, 1, 2, 1, 3, 1), (1, 2, 1, 3, 1, 2, 1, 3)),
    ((), (4, 3)),
    ((), ()),
]


@pytest.mark.parametrize("a_shape,b_shape", ADD_SHAPES)
def test_add_broadcast_forms(lib, a_shape, b_shape):
    rng = np.random.default_rng(sum(a_shape) * 13 + sum(b_shape) + len(a_shape))
    a = rng.integers(-128, 128, size=a_shape, dtype=np.int8)
    b = rng.integers(-128, 128, size=b_shape, dtype=np.int8)
    for _ in range(3):
        params = add_params(rng)
        want = check_add(lib, a, b, params)
    assert len(np.unique(want)) > 1 or want.size == 1


@pytest.mark.parametrize("zps", [(-128, -128, -128), (127, 127, 127), (-128, 127, 0), (127, -128, -128)])
def test_add_edge_values_and_zero_points(lib, zps):
    rng = np.random.default_rng(abs(zps[0] + 2 * zps[1]))
    a = np.resize(np.array([-128, 127, 0, -1, 1], np.int8), (2, 3, 4, 5))
    b = np.resize(np.array([127, -128, -128, 127], np.int8), (2, 3, 4, 5))
    for scales in [(0.02, 0.02, 0.04), (0.5, 0.001, 0.3), (0.001, 0.5, 0.0005), (0.1, 0.05, 1e-4)]:
        check_add(lib, a, b, add_params(rng, scale_a=scales[0], scale_b=scales[1], scale_out=scales[2], zps=zps))


def test_add_positive_shifts_and_clamps(lib):
    """Scales giving shift > 0 on every requantization (left shifts that saturate), and clamps."""
    rng = np.random.default_rng(3)
    a = rng.integers(-128, 128, size=(1, 5, 5, 9), dtype=np.int8)
    b = rng.integers(-128, 128, size=(1, 1, 1, 9), dtype=np.int8)
    m = quantize_multiplier(3.0)[0]
    for shift in (1, 2, 10, 30):
        params = dict(a_offset=5, a_multiplier=m, a_shift=shift, b_offset=-7, b_multiplier=m, b_shift=shift,
                      output_offset=-3, output_multiplier=m, output_shift=shift, activation_min=-128,
                      activation_max=127)
        check_add(lib, a, b, params)
    params = add_params(rng)
    params.update(activation_min=-20, activation_max=35)
    check_add(lib, a, b, params)


def test_add_requantize_ties(lib):
    """Multipliers 2^30 (0.5) with shifts -1..-4: many exact ties of each requantization."""
    a = np.arange(-128, 128, dtype=np.int8).reshape(1, 1, 16, 16)
    b = a[:, :, ::-1, :].copy()
    for shift in (-1, -2, -4, -21, -22, -23):
        params = dict(a_offset=1, a_multiplier=1 << 30, a_shift=shift, b_offset=-1, b_multiplier=1 << 30,
                      b_shift=-1, output_offset=0, output_multiplier=1 << 30, output_shift=-20,
                      activation_min=-128, activation_max=127)
        check_add(lib, a, b, params)


def test_add_rejects_bad_arguments(lib):
    a = np.zeros((2, 3), np.int8)
    good = add_params(np.random.default_rng(0))
    for key, value in [("a_offset", 129), ("b_offset", -128), ("output_offset", 128), ("a_shift", 31),
                       # input multipliers may be negative (sub), but not INT32_MIN; the output's never
                       ("output_shift", -32), ("b_multiplier", -(2**31)), ("output_multiplier", -1),
                       ("activation_min", -129),
                       ("activation_max", 128)]:
        status, _ = add_call(lib, a, a, dict(good, **{key: value}))
        assert status == EM_NN_ERR_BAD_ARGUMENT, key
    rank_9, rank_negative = broadcast_dims((2, 3), (2, 3), (2, 3)), broadcast_dims((2, 3), (2, 3), (2, 3))
    rank_9.rank, rank_negative.rank = 9, -1
    bad_dims = [
        broadcast_dims((0, 3), (0, 3), (0, 3)),  # an empty output
        broadcast_dims((-1, 3), (1, 3), (1, 3)),  # a negative dim
        broadcast_dims((2, 3), (2, 3), (2, 2)),  # b's dim neither 1 nor the output's
        broadcast_dims((2, 3), (1, 3), (1, 3)),  # axis 0: both operands 1 under an output of 2
        broadcast_dims((65536, 32768), (65536, 32768), (1, 1)),  # 2^31 elements
        rank_9, rank_negative,
    ]
    for dims in bad_dims:
        status, _ = add_call(lib, a, a, good, dims)
        assert status == EM_NN_ERR_BAD_ARGUMENT, list(dims.shape)


def test_add_general_broadcast_walks_every_axis(lib):
    """A rank-8 broadcast in which consecutive axes alternate between a, b and both (nothing
    merges): the walk's odometer carries over six outer axes."""
    rng = np.random.default_rng(11)
    a_shape, b_shape = (2, 1, 3, 3, 1, 2, 2, 3), (1, 2, 3, 1, 2, 2, 1, 3)
    a = rng.integers(-128, 128, size=a_shape, dtype=np.int8)
    b = rng.integers(-128, 128, size=b_shape, dtype=np.int8)
    check_add(lib, a, b, add_params(rng))
    check_add(lib, b, a, add_params(rng))


class BroadcastWalk(ctypes.Structure):
    """em_nn_broadcast (em_nn_broadcast.h)."""
    _fields_ = [("axes", ctypes.c_int32)] + [(n, ctypes.c_int32 * MAX_RANK) for n in ("size", "a_stride", "b_stride")]


def test_kernel_variants_mirror_the_broadcast_plan(lib):
    """compiler/ops/broadcast.py broadcast_runs (what `inspect` reports) is em_nn_broadcast_plan's
    collapse, on seeded random broadcasts of ranks 0..8; and the plan's strides address each
    operand exactly as NumPy's broadcast does."""
    from compiler.ops.broadcast import broadcast_runs

    lib.em_nn_broadcast_plan.restype = ctypes.c_bool
    rng = np.random.default_rng(5)
    for _ in range(300):
        out = tuple(int(d) for d in rng.integers(1, 4, size=int(rng.integers(0, MAX_RANK + 1))))
        varies = rng.integers(0, 3, size=len(out))
        a = tuple(d if v != 1 else 1 for d, v in zip(out, varies))
        b = tuple(d if v != 0 else 1 for d, v in zip(out, varies))
        walk = BroadcastWalk()
        assert lib.em_nn_broadcast_plan(ctypes.byref(broadcast_dims(out, a, b)), ctypes.byref(walk))
        size = list(walk.size[:walk.axes])
        runs, inner, one, outer = broadcast_runs(a, b, out)
        assert (runs, inner, one, outer) == (int(np.prod(size)) // size[0], size[0],
                                              walk.a_stride[0] == 0 or walk.b_stride[0] == 0, walk.axes - 2)
        for name, shape, strides in (("a", a, walk.a_stride), ("b", b, walk.b_stride)):
            index = np.indices(size[::-1]).reshape(len(size), -1)[::-1]  # innermost axis first, row-major order
            offsets = sum(index[j] * strides[j] for j in range(walk.axes))
            want = np.broadcast_to(np.arange(int(np.prod(shape))).reshape(shape), out).reshape(-1)
            np.testing.assert_array_equal(offsets, want, err_msg=f"{name}: {a} with {b}")
