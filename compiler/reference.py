"""The executable specification of every Ember op: integer arithmetic in NumPy.

Each `*_s8` function below defines, byte for byte, what the C kernels of every tier compute.
`run` interprets a whole Ember IR graph with them. Float appears only where the program
boundary converts to or from float32 (quantize / dequantize), in float32 exactly as C does.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from compiler import int4
from compiler.fixedpoint import (
    quantize_multiplier,
    requantize,
    requantize_s64,
    rounding_divide_by_pot,
    saturating_rounding_doubling_high_mul,
    wrap_int32,
)

if TYPE_CHECKING:
    from compiler.ir import Graph

INT8_MIN, INT8_MAX = -128, 127
INT16_MIN, INT16_MAX = -32768, 32767
# A16W8 (int16 activations, symmetric: zero point 0; int8 weights): the `*_s16` functions below
# follow the TFLite 16x8 convention: weighted ops accumulate in int64 and requantize by
# requantize_s64; the others compute as their int8 twins on int16 codes.


def quantize_f32_s8(x: np.ndarray, inv_scale: np.float32, zero_point: int) -> np.ndarray:
    """q = clamp(round_half_even(x * inv_scale) + zero_point, -128, 127), all in float32.

    The product and the rounding are float32 operations (C: nearbyintf(x * inv_scale) under the
    default rounding mode); the clamp happens before conversion to an integer. NaN maps to the
    zero point.
    """
    return _quantize_f32(x, inv_scale, zero_point, np.int8)


def quantize_f32_s16(x: np.ndarray, inv_scale: np.float32, zero_point: int) -> np.ndarray:
    """quantize_f32_s8 onto int16: clamp(round_half_even(x * inv_scale) + zero_point, -32768, 32767)."""
    return _quantize_f32(x, inv_scale, zero_point, np.int16)


def _quantize_f32(x: np.ndarray, inv_scale: np.float32, zero_point: int, dtype: type) -> np.ndarray:
    x32 = np.asarray(x, dtype=np.float32)
    rounded = np.rint(x32 * np.float32(inv_scale)) + np.float32(zero_point)
    rounded = np.where(np.isnan(rounded), np.float32(zero_point), rounded)
    limits = np.iinfo(dtype)
    return np.clip(rounded, limits.min, limits.max).astype(dtype)


def dequantize_s8_f32(q: np.ndarray, scale: np.float32, zero_point: int) -> np.ndarray:
    """x = float32(q - zero_point) * scale, in float32 (int8 or int16 codes q: the same formula)."""
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


def fully_connected_s16(x: np.ndarray, weights: np.ndarray, bias: np.ndarray, multiplier: np.ndarray,
                        shift: np.ndarray, activation_min: int, activation_max: int) -> np.ndarray:
    """A16W8 fully connected: out[b, o] = clamp(requantize_s64(Σ_i x[b, i]·w[o, i] + bias[o])).

    x [B, I] int16 (zero point 0); weights [O, I] int8; bias [O] int32; the accumulator is int64.
    """
    acc = x.astype(np.int64) @ weights.astype(np.int64).T + bias.astype(np.int64)
    return _requantize_clamp_s16(acc, multiplier, shift, activation_min, activation_max)


def _requantize_clamp_s16(acc: np.ndarray, multiplier: np.ndarray, shift: np.ndarray,
                          activation_min: int, activation_max: int) -> np.ndarray:
    """clamp(requantize_s64(acc)) per output channel (the last axis) → int16 (zero point 0)."""
    scaled = requantize_s64(acc, multiplier, shift)
    return np.clip(scaled, activation_min, activation_max).astype(np.int16)


def _requantize_clamp(acc: np.ndarray, multiplier: np.ndarray, shift: np.ndarray, output_offset: int,
                      activation_min: int, activation_max: int) -> np.ndarray:
    """clamp(requantize(acc) + output_offset) per output channel (the last axis) → int8."""
    scaled = requantize(wrap_int32(acc), multiplier, shift) + output_offset
    return np.clip(scaled, activation_min, activation_max).astype(np.int8)


def _padded(x: np.ndarray, padding: tuple[int, int, int, int], value: int) -> np.ndarray:
    """x [N, H, W, C] padded by (top, bottom, left, right) with `value`."""
    top, bottom, left, right = padding
    return np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)), constant_values=value)


def output_size(size: int, kernel: int, stride: int, dilation: int, pad_before: int, pad_after: int) -> int:
    """Output positions along one spatial axis (PyTorch's and TFLite's formula)."""
    return (size + pad_before + pad_after - dilation * (kernel - 1) - 1) // stride + 1


def _windows(x: np.ndarray, kh: int, kw: int, stride: tuple[int, int], dilation: tuple[int, int]) -> np.ndarray:
    """Sliding windows of an already padded x [N, H, W, C] → [N, OH, OW, KH, KW, C]."""
    (sh, sw), (dh, dw) = stride, dilation
    n, h, w, c = x.shape
    oh = (h - dh * (kh - 1) - 1) // sh + 1
    ow = (w - dw * (kw - 1) - 1) // sw + 1
    rows = (np.arange(oh) * sh)[:, None] + np.arange(kh) * dh  # [OH, KH]
    cols = (np.arange(ow) * sw)[:, None] + np.arange(kw) * dw  # [OW, KW]
    return x[:, rows[:, None, :, None], cols[None, :, None, :], :]


def conv2d_s8(
    x: np.ndarray,
    weights: np.ndarray,
    bias: np.ndarray,
    multiplier: np.ndarray,
    shift: np.ndarray,
    *,
    stride: tuple[int, int],
    dilation: tuple[int, int],
    padding: tuple[int, int, int, int],
    groups: int,
    input_zero_point: int,
    output_offset: int,
    activation_min: int,
    activation_max: int,
) -> np.ndarray:
    """Grouped 2-D convolution, NHWC.

    x [N, H, W, C_IN] int8; weights [C_OUT, KH, KW, C_IN / groups] int8; bias [C_OUT] int32 with
    the input zero point folded in (b − zp_in·Σw). Padding (top, bottom, left, right) holds
    `input_zero_point`, the int8 code of real 0, so that the folded bias stays exact at the
    borders. Output channel o reads input channels of its group g = o // (C_OUT / groups).
    out [N, OH, OW, C_OUT] = clamp(requantize(Σ x·w + bias, mult[o], shift[o]) + out_off).
    """
    acc = _conv_accumulate(x, weights, bias, stride, dilation, padding, groups, input_zero_point)
    return _requantize_clamp(acc, multiplier, shift, output_offset, activation_min, activation_max)


def conv2d_s16(x: np.ndarray, weights: np.ndarray, bias: np.ndarray, multiplier: np.ndarray,
               shift: np.ndarray, *, stride: tuple[int, int], dilation: tuple[int, int],
               padding: tuple[int, int, int, int], groups: int, activation_min: int,
               activation_max: int) -> np.ndarray:
    """A16W8 conv2d_s8: x int16 (zero point 0, so padding holds 0), int64 accumulator,
    out int16 = clamp(requantize_s64(Σ x·w + bias))."""
    acc = _conv_accumulate(x, weights, bias, stride, dilation, padding, groups, 0)
    return _requantize_clamp_s16(acc, multiplier, shift, activation_min, activation_max)


def _conv_accumulate(x: np.ndarray, weights: np.ndarray, bias: np.ndarray, stride: tuple[int, int],
                     dilation: tuple[int, int], padding: tuple[int, int, int, int], groups: int,
                     pad_value: int) -> np.ndarray:
    """Σ x·w + bias of a grouped NHWC convolution, int64 [N, OH, OW, C_OUT]."""
    c_out, kh, kw, c_per_group = weights.shape
    windows = _windows(_padded(x, padding, pad_value), kh, kw, stride, dilation).astype(np.int64)
    n, oh, ow = windows.shape[:3]
    out_per_group = c_out // groups
    acc = np.empty((n, oh, ow, c_out), np.int64)
    for g in range(groups):
        patch = windows[..., g * c_per_group:(g + 1) * c_per_group].reshape(n, oh, ow, -1)
        w = weights[g * out_per_group:(g + 1) * out_per_group].reshape(out_per_group, -1).astype(np.int64)
        acc[..., g * out_per_group:(g + 1) * out_per_group] = patch @ w.T
    return acc + bias.astype(np.int64)


def depthwise_conv2d_s8(
    x: np.ndarray,
    weights: np.ndarray,
    bias: np.ndarray,
    multiplier: np.ndarray,
    shift: np.ndarray,
    *,
    stride: tuple[int, int],
    dilation: tuple[int, int],
    padding: tuple[int, int, int, int],
    depth_multiplier: int,
    input_zero_point: int,
    output_offset: int,
    activation_min: int,
    activation_max: int,
) -> np.ndarray:
    """Depthwise 2-D convolution, NHWC, TFLite weight layout.

    x [N, H, W, C] int8; weights [KH, KW, C·M] int8 (M = depth_multiplier); bias [C·M] int32 with
    the input zero point folded in. Output channel o = c·M + m reads input channel c only.
    Padding holds `input_zero_point`. out [N, OH, OW, C·M].
    """
    acc = _depthwise_accumulate(x, weights, bias, stride, dilation, padding, depth_multiplier, input_zero_point)
    return _requantize_clamp(acc, multiplier, shift, output_offset, activation_min, activation_max)


def depthwise_conv2d_s16(x: np.ndarray, weights: np.ndarray, bias: np.ndarray, multiplier: np.ndarray,
                         shift: np.ndarray, *, stride: tuple[int, int], dilation: tuple[int, int],
                         padding: tuple[int, int, int, int], depth_multiplier: int, activation_min: int,
                         activation_max: int) -> np.ndarray:
    """A16W8 depthwise_conv2d_s8: x int16 (zero point 0), int64 accumulator, out int16."""
    acc = _depthwise_accumulate(x, weights, bias, stride, dilation, padding, depth_multiplier, 0)
    return _requantize_clamp_s16(acc, multiplier, shift, activation_min, activation_max)


def _depthwise_accumulate(x: np.ndarray, weights: np.ndarray, bias: np.ndarray, stride: tuple[int, int],
                          dilation: tuple[int, int], padding: tuple[int, int, int, int],
                          depth_multiplier: int, pad_value: int) -> np.ndarray:
    """Σ x·w + bias of a depthwise NHWC convolution, int64 [N, OH, OW, C·M]."""
    kh, kw, channels_out = weights.shape
    windows = _windows(_padded(x, padding, pad_value), kh, kw, stride, dilation).astype(np.int64)
    source = np.repeat(windows, depth_multiplier, axis=-1)  # [N, OH, OW, KH, KW, C·M]
    return (source * weights.astype(np.int64)).sum(axis=(3, 4)) + bias.astype(np.int64)


def _pool_windows(x: np.ndarray, kernel: tuple[int, int], stride: tuple[int, int],
                  padding: tuple[int, int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Windows [N, OH, OW, KH, KW, C] of x and a mask [OH, OW, KH, KW] of real (unpadded) cells."""
    kh, kw = kernel
    windows = _windows(_padded(x, padding, 0), kh, kw, stride, (1, 1))
    ones = np.ones((1,) + x.shape[1:3] + (1,), np.int8)
    valid = _windows(_padded(ones, padding, 0), kh, kw, stride, (1, 1))[0, ..., 0].astype(bool)
    return windows, valid


def max_pool_s8(x: np.ndarray, *, kernel: tuple[int, int], stride: tuple[int, int],
                padding: tuple[int, int, int, int], activation_min: int, activation_max: int) -> np.ndarray:
    """Max over each window's real cells (padding never wins), NHWC; input and output share
    their quantization. out = clamp(max, activation_min, activation_max). int8, or int16 (A16W8:
    the same, max_pool_s16)."""
    windows, valid = _pool_windows(x.astype(np.int32), kernel, stride, padding)
    masked = np.where(valid[None, ..., None], windows, INT16_MIN - 1)
    return np.clip(masked.max(axis=(3, 4)), activation_min, activation_max).astype(x.dtype)


def rounding_divide(total: np.ndarray, count: np.ndarray) -> np.ndarray:
    """total / count rounded to nearest, ties to even (as PyTorch rounds the float average)."""
    total = np.asarray(total, np.int64)
    count = np.asarray(count, np.int64)
    quotient = np.floor_divide(total, count)
    remainder = total - quotient * count  # 0 <= remainder < count
    twice = 2 * remainder
    up = (twice > count) | ((twice == count) & (quotient % 2 != 0))
    return quotient + up


def avg_pool_s8(x: np.ndarray, *, kernel: tuple[int, int], stride: tuple[int, int],
                padding: tuple[int, int, int, int], count_include_pad: bool, zero_point: int,
                activation_min: int, activation_max: int) -> np.ndarray:
    """Average of each window, NHWC; input and output share scale and zero point.

    out = clamp(zp + round_half_even(Σ (x − zp) / count)); padded cells hold real 0 and count
    only when `count_include_pad` (PyTorch's avg_pool2d default), else count = real cells.
    int8, or int16 (A16W8: the same, avg_pool_s16).
    """
    windows, valid = _pool_windows(x.astype(np.int64) - zero_point, kernel, stride, padding)
    total = np.where(valid[None, ..., None], windows, 0).sum(axis=(3, 4))
    cells = np.full(valid.shape[:2], kernel[0] * kernel[1]) if count_include_pad else valid.sum(axis=(2, 3))
    average = rounding_divide(total, cells[None, ..., None]) + zero_point
    return np.clip(average, activation_min, activation_max).astype(x.dtype)


max_pool_s16 = max_pool_s8  # the same on int16 codes
avg_pool_s16 = avg_pool_s8  # the same on int16 codes (a window sums in int32: at most 2^15 cells)


def mul_s8(a: np.ndarray, b: np.ndarray, *, a_offset: int, b_offset: int, output_offset: int,
           output_multiplier: int, output_shift: int, activation_min: int, activation_max: int) -> np.ndarray:
    """Elementwise a · b of int8 tensors (NumPy broadcasting): the centred product
    (a + a_offset)(b + b_offset) (offsets = −zero points, |product| <= 2^16) requantized by
    scale_a · scale_b / scale_out: out = clamp(requantize(product) + output_offset).
    int16 inputs (A16W8, mul_s16; zero points 0) give int16: |product| <= 2^30, and requantize's
    pre-shift saturates only where the output clamps anyway (|a·b·real| >= 2^28)."""
    product = (np.asarray(a, np.int64) + a_offset) * (np.asarray(b, np.int64) + b_offset)
    out = requantize(product, np.int64(output_multiplier), np.int64(output_shift)) + output_offset
    return np.clip(out, activation_min, activation_max).astype(np.asarray(a).dtype)


mul_s16 = mul_s8


def concat_s8(inputs: list[np.ndarray], *, axis: int) -> np.ndarray:
    """Concatenation along `axis` of int8 tensors sharing one quantization (a pure copy)."""
    return np.concatenate([np.asarray(x, np.int8) for x in inputs], axis=axis)


def concat_s16(inputs: list[np.ndarray], *, axis: int) -> np.ndarray:
    """Concatenation along `axis` of int16 tensors (a stream's raw audio samples: a pure copy)."""
    return np.concatenate([np.asarray(x, np.int16) for x in inputs], axis=axis)


# Data movement: pad, transpose, slice, upsample_nearest and reshape move elements and compute
# nothing, so they hold for any dtype (int8 codes sharing one quantization, int32, float32).

def pad(x: np.ndarray, *, before: list[int], after: list[int], value) -> np.ndarray:
    """x with before[d] / after[d] (>= 0) cells of `value` on each side of dimension d."""
    x = np.asarray(x)
    return np.pad(x, list(zip(before, after)), constant_values=np.asarray(value, x.dtype))


def transpose(x: np.ndarray, *, perm: list[int]) -> np.ndarray:
    """Output dimension k is input dimension perm[k] (NumPy's transpose)."""
    return np.ascontiguousarray(np.transpose(np.asarray(x), perm))


def slice_(x: np.ndarray, *, begin: list[int], step: list[int], shape: tuple[int, ...]) -> np.ndarray:
    """out[i] = x[begin + i·step] along every dimension, `shape` elements (begin >= 0, step >= 1)."""
    index = tuple(slice(b, b + (n - 1) * s + 1, s) for b, s, n in zip(begin, step, shape))
    out = np.asarray(x)[index]
    if out.shape != tuple(shape):
        raise ValueError(f"slice of {np.shape(x)} from {begin} by {step} cannot give {tuple(shape)}")
    return np.ascontiguousarray(out)


def upsample_nearest(x: np.ndarray, *, scale_h: int, scale_w: int) -> np.ndarray:
    """[N, H, W, C] → [N, H·scale_h, W·scale_w, C]: out[n, y, x, c] = x[n, y // scale_h, x // scale_w, c]."""
    return np.repeat(np.repeat(np.asarray(x), scale_h, axis=1), scale_w, axis=2)


def requantize_s8(x: np.ndarray, *, input_offset: int, output_offset: int, output_multiplier: int,
                  output_shift: int, output_dtype: type = np.int8) -> np.ndarray:
    """int8 or int16 onto another scale and zero point, int8 or int16 (`output_dtype`; A16W8's
    boundaries between int8 and int16 regions): out = clamp(requantize(x + input_offset) +
    output_offset), input_offset = −zp_in (|x + input_offset| <= 65535), the multiplier / shift
    encode scale_in / scale_out (requantize's pre-shift saturates only where the output clamps)."""
    centred = np.asarray(x, np.int64) + input_offset
    out = requantize(centred, np.int64(output_multiplier), np.int64(output_shift)) + output_offset
    limits = np.iinfo(output_dtype)
    return np.clip(out, limits.min, limits.max).astype(output_dtype)


def unpack_s4(packed: bytes | np.ndarray, rows: int, row_elements: int) -> np.ndarray:
    """em_unpack_s4(): int4 weights as a program stores them (compiler/int4.py: rows of
    ceil(row_elements / 2) bytes, blocks of 32 with low / high nibbles 16 apart) -> [rows,
    row_elements] int8, -8..7. What an A8W4 layer's adapter computes into its scratch before its
    int8 kernel runs; the layer's bytes are then its int8 reference's on these weights."""
    return int4.unpack(packed, (rows, row_elements))


LUT_ENTRIES = 256  # one entry per int8 code


def lut_s8(x: np.ndarray, table: np.ndarray, axis: int = -1) -> np.ndarray:
    """out = table[x + 128]: any int8 → int8 elementwise function, tabulated ahead of time.

    `table` is int8 [256], one table for every element (`axis` ignored), or [C, 256], one per
    channel: element e maps through row e's index along `axis` (-rank..rank-1, negative from
    the end as in NumPy; the default is the last axis), and C is x's size along it.
    """
    x, table = np.asarray(x), np.asarray(table, np.int8)
    codes = np.asarray(x, np.int16) + 128
    if table.shape == (LUT_ENTRIES,):
        return table[codes]
    if table.ndim != 2 or table.shape[1] != LUT_ENTRIES:
        raise ValueError(f"lut: a table is [256] or [C, 256], not {list(table.shape)}")
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"lut: axis {axis} is outside a rank-{x.ndim} input")
    axis %= x.ndim
    if table.shape[0] != x.shape[axis]:
        raise ValueError(f"lut: {table.shape[0]} tables for the {x.shape[axis]} channels of axis {axis}")
    channel = np.arange(table.shape[0]).reshape([-1 if d == axis else 1 for d in range(x.ndim)])
    return table[channel, codes]


# An int16 table (A16W8, lut_s16) samples the function every 2^k codes, k = LUT_S16_MIN_STEP_LOG2..7:
# 65536 / 2^k + 1 entries (513 .. 8193), the compiler taking the coarsest that keeps every code
# within 1 LSB of PyTorch's computation.
LUT_S16_STEP_LOG2 = range(7, 2, -1)


def lut_s16_step_log2(entries: int) -> int | None:
    """k of an int16 table of `entries` (2^(16 − k) + 1), or None for a length no k gives."""
    return next((k for k in LUT_S16_STEP_LOG2 if entries == (1 << (16 - k)) + 1), None)


def lut_s16(x: np.ndarray, table: np.ndarray, axis: int = -1) -> np.ndarray:
    """Any int16 → int16 elementwise function (A16W8) from a table sampled every 2^k codes,
    interpolated: with u = x + 32768, i = u >> k, f = u & (2^k − 1),
    out = T[i] + (((T[i+1] − T[i]) · f + 2^(k−1)) >> k) (the shift arithmetic: floor), between
    two int16 entries so always int16. `table` is int16 [E] (one table) or [C, E] (one per channel
    along `axis`, as lut_s8), E = 2^(16 − k) + 1 for k in LUT_S16_STEP_LOG2."""
    x, table = np.asarray(x), np.asarray(table, np.int64)
    k = lut_s16_step_log2(table.shape[-1])
    if k is None or table.ndim not in (1, 2):
        raise ValueError(f"lut: an int16 table is [2^(16-k) + 1] or [C, 2^(16-k) + 1], not {list(table.shape)}")
    u = np.asarray(x, np.int64) + 32768
    i, f = u >> k, u & ((1 << k) - 1)
    if table.ndim == 1:
        low, high = table[i], table[i + 1]
    else:
        axis %= x.ndim
        if table.shape[0] != x.shape[axis]:
            raise ValueError(f"lut: {table.shape[0]} tables for the {x.shape[axis]} channels of axis {axis}")
        channel = np.arange(table.shape[0]).reshape([-1 if d == axis else 1 for d in range(x.ndim)])
        low, high = table[channel, i], table[channel, i + 1]
    return (low + (((high - low) * f + (1 << (k - 1))) >> k)).astype(np.int16)


ADD_LEFT_SHIFT = 20  # headroom bits of the elementwise add (TFLite / CMSIS-NN)
# int16: requantize's pre-shift of up to 2 bits (multipliers <= 1/2) must keep 2^15 · 2^13 · 4
# inside int32 (TFLite's 16x8 add shifts by 15 with its double rounding; Ember rounds once).
ADD_LEFT_SHIFT_S16 = 13


def add_s8(a: np.ndarray, b: np.ndarray, *, a_offset: int, a_multiplier: int, a_shift: int,
           b_offset: int, b_multiplier: int, b_shift: int, output_offset: int, output_multiplier: int,
           output_shift: int, activation_min: int, activation_max: int) -> np.ndarray:
    """Elementwise a + b of int8 tensors with their own scales (NumPy broadcasting).

    Each input is centred (x + offset, offset = −zero point), shifted left by ADD_LEFT_SHIFT and
    requantized onto a common scale (2·max(scale_a, scale_b)); the sum is requantized onto the
    output scale: out = clamp(requantize(sa + sb, out_mult, out_shift) + output_offset).
    An input multiplier may be negative: a − b is this op with b's multiplier negated (sub).
    int16 inputs (A16W8, add_s16; zero points 0) give int16 and shift by ADD_LEFT_SHIFT_S16 (add_left_shift).
    """
    left = add_left_shift(np.asarray(a).dtype)

    def scaled(x: np.ndarray, offset: int, multiplier: int, shift: int) -> np.ndarray:
        return requantize((x.astype(np.int64) + offset) << left, np.int64(multiplier), np.int64(shift))

    total = scaled(a, a_offset, a_multiplier, a_shift) + scaled(b, b_offset, b_multiplier, b_shift)
    out = requantize(total, np.int64(output_multiplier), np.int64(output_shift)) + output_offset
    return np.clip(out, activation_min, activation_max).astype(np.asarray(a).dtype)


add_s16 = add_s8


def add_left_shift(dtype) -> int:
    """The add's headroom bits for int8 or int16 codes."""
    return ADD_LEFT_SHIFT_S16 if np.dtype(dtype) == np.int16 else ADD_LEFT_SHIFT


# Softmax: the TFLite / CMSIS-NN int8 algorithm (gemmlowp fixed point). Scaled differences are
# Q5.26, the sum of exponentials Q12.19, exponentials and the reciprocal Q0.31.
SOFTMAX_DIFF_INTEGER_BITS = 5
SOFTMAX_ACCUMULATION_INTEGER_BITS = 12
_EXP_BARREL = ((-2, 1672461947), (-1, 1302514674), (0, 790015084), (1, 290630308), (2, 39332535),
               (3, 720401), (4, 242))  # exp(-2^k) in Q0.31


def _srdhm(a, b):
    return saturating_rounding_doubling_high_mul(a, b)


def _saturating_shift_left(x: np.ndarray, bits: int) -> np.ndarray:
    return np.clip(np.asarray(x, np.int64) << bits, -(1 << 31), (1 << 31) - 1)


def _exp_on_interval_between_negative_one_quarter_and_0_excl(a: np.ndarray) -> np.ndarray:
    """exp(a) for a in [-1/4, 0), Q0.31 in and out: Taylor series around -1/8."""
    constant_term, one_third = 1895147668, 715827883
    x = a + (1 << 28)
    x2 = _srdhm(x, x)
    x3 = _srdhm(x2, x)
    x4 = _srdhm(x2, x2)
    x4_over_4 = rounding_divide_by_pot(x4, 2)
    tail = rounding_divide_by_pot(_srdhm(x4_over_4 + x3, one_third) + x2, 1)
    return constant_term + _srdhm(constant_term, x + tail)


def exp_on_negative_values(a: np.ndarray) -> np.ndarray:
    """exp(a) for a <= 0 given in Q5.26, as Q0.31 (gemmlowp's exp_on_negative_values)."""
    a = np.asarray(a, np.int64)
    fractional_bits = 31 - SOFTMAX_DIFF_INTEGER_BITS
    quarter = 1 << (fractional_bits - 2)
    a_mod_quarter_minus_quarter = (a & (quarter - 1)) - quarter
    result = _exp_on_interval_between_negative_one_quarter_and_0_excl(
        _saturating_shift_left(a_mod_quarter_minus_quarter, SOFTMAX_DIFF_INTEGER_BITS))
    remainder = a_mod_quarter_minus_quarter - a
    for exponent, multiplier in _EXP_BARREL:
        if SOFTMAX_DIFF_INTEGER_BITS > exponent:
            bit = (remainder >> (fractional_bits + exponent)) & 1
            result = np.where(bit != 0, _srdhm(result, multiplier), result)
    return np.where(a == 0, (1 << 31) - 1, result)


def _one_over_one_plus_x_for_x_in_0_1(a: np.ndarray) -> np.ndarray:
    """1 / (1 + a) for a in [0, 1), Q0.31 in and out: Newton–Raphson in Q2.29."""
    total = np.asarray(a, np.int64) + ((1 << 31) - 1)
    half_denominator = (total + np.where(total >= 0, 1, -1)) // 2  # RoundingHalfSum(a, One)
    x = 1515870810 + _srdhm(half_denominator, -1010580540)  # 48/17 − 32/17 · d
    for _ in range(3):
        one_minus = (1 << 29) - _srdhm(half_denominator, x)
        x = x + _saturating_shift_left(_srdhm(x, one_minus), 2)
    return _saturating_shift_left(x, 1)


def softmax_s8(x: np.ndarray, *, input_multiplier: int, input_left_shift: int, diff_min: int,
               masked: np.ndarray | None = None) -> np.ndarray:
    """Softmax over the last axis, int8 in, int8 out with scale 1/256 and zero point −128.

    Per row: d = x − max(x); where d >= diff_min, e = exp(SRDHM(d·2^left_shift, multiplier) as
    Q5.26) in Q0.31; the sum of e in Q12.19 (each rounded by 2^12); out = clamp(
    RoundingDivideByPOT(SRDHM(1/sum, e), bits_over_unit + 23) − 128); elsewhere −128.
    `input_multiplier` / `input_left_shift` encode beta · input_scale · 2^26 (> 1).
    `masked` (bool, broadcast to x): positions that take no part (an attention mask's -inf): the
    max and the sum run over the others, a masked position gives −128 (probability 0), and a row
    masked whole gives −128 throughout (as scaled_dot_product_attention gives 0, not NaN).
    """
    x = np.asarray(x, np.int64)
    keep = np.ones(x.shape, bool) if masked is None else ~np.broadcast_to(np.asarray(masked, bool), x.shape)
    diff = x - np.where(keep, x, -128).max(axis=-1, keepdims=True)
    active = (diff >= diff_min) & keep
    scaled = _srdhm(np.clip(diff << input_left_shift, -(1 << 31), (1 << 31) - 1), input_multiplier)
    exps = np.where(active, exp_on_negative_values(np.where(active, scaled, 0)), 0)
    total = rounding_divide_by_pot(exps, SOFTMAX_ACCUMULATION_INTEGER_BITS).sum(axis=-1, keepdims=True)
    headroom = 32 - np.floor(np.log2(np.maximum(total, 1))).astype(np.int64) - 1  # leading zeros of uint32
    bits_over_unit = SOFTMAX_ACCUMULATION_INTEGER_BITS - headroom
    shifted = ((total << headroom) & 0xFFFFFFFF) - (1 << 31)
    reciprocal = _one_over_one_plus_x_for_x_in_0_1(shifted)
    out = rounding_divide_by_pot(_srdhm(reciprocal, exps), bits_over_unit + 31 - 8) - 128
    return np.where(active, np.clip(out, -128, 127), -128).astype(np.int8)


def softmax_mask(shape: tuple[int, ...], mask_rows: int, causal: bool, mask: np.ndarray | None) -> np.ndarray | None:
    """The positions a masked softmax over the last axis of `shape` leaves out (None: none). Row r
    (of the [rows, row] view) takes mask row r mod mask_rows: with `causal`, position j is masked
    when j > r mod mask_rows (PyTorch's is_causal, top-left aligned); else where mask[r mod
    mask_rows, j] != 0 (`mask` [mask_rows, row])."""
    if mask_rows <= 0:
        return None
    row = shape[-1]
    rows = int(np.prod(shape[:-1], dtype=np.int64))
    query = np.arange(rows) % mask_rows
    if causal:
        masked = np.arange(row)[None, :] > query[:, None]
    else:
        masked = np.asarray(mask).reshape(mask_rows, row)[query] != 0
    return masked.reshape(shape)


def softmax_parameters(input_scale: float, beta: float = 1.0) -> dict:
    """input_multiplier, input_left_shift, diff_min of softmax_s8 (TFLite's PreprocessSoftmaxScaling
    and CalculateInputRadius with 5 integer bits)."""
    real = min(beta * input_scale * (1 << (31 - SOFTMAX_DIFF_INTEGER_BITS)), (1 << 31) - 1.0)
    multiplier, shift = quantize_multiplier(real)
    left_shift = max(shift, 0)
    radius = ((1 << SOFTMAX_DIFF_INTEGER_BITS) - 1) * (1 << (31 - SOFTMAX_DIFF_INTEGER_BITS)) / (1 << left_shift)
    return {"input_multiplier": multiplier, "input_left_shift": left_shift, "diff_min": -int(np.floor(radius))}

def minimum_s8(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Elementwise min of int8 tensors that share one quantization with the output (NumPy
    broadcasting): min commutes with the monotone map code → real, so it is exact on the codes."""
    return np.minimum(np.asarray(a, np.int8), np.asarray(b, np.int8))


def maximum_s8(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Elementwise max, as minimum_s8."""
    return np.maximum(np.asarray(a, np.int8), np.asarray(b, np.int8))


def transpose_output_size(size: int, kernel: int, stride: int, pad_before: int, pad_after: int) -> int:
    """Output positions of a transposed convolution along one axis: the full scatter extent
    (size − 1)·stride + kernel, less the cropped pads (pad_after < 0 adds positions)."""
    return (size - 1) * stride + kernel - pad_before - pad_after


def transpose_conv2d_s8(
    x: np.ndarray,
    weights: np.ndarray,
    bias: np.ndarray,
    multiplier: np.ndarray,
    shift: np.ndarray,
    *,
    stride: tuple[int, int],
    padding: tuple[int, int, int, int],
    input_offset: int,
    output_offset: int,
    activation_min: int,
    activation_max: int,
) -> np.ndarray:
    """Transposed 2-D convolution (PyTorch's ConvTranspose2d, groups 1, dilation 1), NHWC, in
    its scatter form: every centred input pixel x[n, iy, ix] + input_offset adds its product with
    the kernel into the full output at rows iy·sh + ky, columns ix·sw + kx; the output is the full
    map cropped by padding (top, bottom, left, right) — bottom / right < 0 extend it with
    positions no input reaches (PyTorch's output_padding).

    x [N, H, W, C_IN] int8; weights [C_OUT, KH, KW, C_IN] int8; bias [C_OUT] int32 (the zero point
    is NOT folded in: border outputs receive fewer taps); input_offset = −zp_in.
    out [N, OH, OW, C_OUT] = clamp(requantize(acc + bias, mult[o], shift[o]) + output_offset).
    """
    n, h, w, _ = x.shape
    c_out, kh, kw, _ = weights.shape
    (sh, sw), (top, bottom, left, right) = stride, padding
    oh = transpose_output_size(h, kh, sh, top, bottom)
    ow = transpose_output_size(w, kw, sw, left, right)
    full = np.zeros((n, max((h - 1) * sh + kh, top + oh), max((w - 1) * sw + kw, left + ow), c_out), np.int64)
    centred = np.asarray(x, np.int64) + input_offset
    for ky in range(kh):
        for kx in range(kw):
            tap = centred @ weights[:, ky, kx, :].astype(np.int64).T  # [N, H, W, C_OUT]
            full[:, ky:ky + (h - 1) * sh + 1:sh, kx:kx + (w - 1) * sw + 1:sw, :] += tap
    acc = full[:, top:top + oh, left:left + ow, :] + bias.astype(np.int64)
    return _requantize_clamp(acc, multiplier, shift, output_offset, activation_min, activation_max)


def batch_matmul_s8(a: np.ndarray, b: np.ndarray, *, a_offset: int, b_offset: int, output_offset: int,
                    output_multiplier: int, output_shift: int, activation_min: int,
                    activation_max: int) -> np.ndarray:
    """Batched matrix product of two int8 activations: a [B, M, K] × b [B, K, N] → [B, M, N]
    (rank 2: one batch). The centred products (a + a_offset)(b + b_offset) (offsets = −zero
    points; both operands are activations, so nothing folds ahead of time) accumulate in int32
    (wrapping as C) and are requantized once by scale_a · scale_b / scale_out:
    out = clamp(requantize(Σ_k …, output_multiplier, output_shift) + output_offset)."""
    acc = wrap_int32((np.asarray(a, np.int64) + a_offset) @ (np.asarray(b, np.int64) + b_offset))
    out = requantize(acc, np.int64(output_multiplier), np.int64(output_shift)) + output_offset
    return np.clip(out, activation_min, activation_max).astype(np.int8)


# int8 layer norm and RMS norm over the last axis (norm_s8). The row's statistics are exact
# integers, the reciprocal square root a Newton iteration on fixed point seeded from a table;
# every step below is what the C kernels do, on every tier.
NORM_MODES = ("layer", "rms")  # schema NormMode: the centre is the row's mean, or real 0
NORM_MAX_DEPTH = 32767  # Σq² < 2^31 and 255·D·2^A in 31 bits (em_norm_s8)
NORM_RSQRT_ITERATIONS = 3
# Seeds of 2^29 / sqrt(m / 2^30) for m in [j·2^25, (j+1)·2^25), j = 8..31, at the interval's
# midpoint: isqrt(2^64 // (2j + 1)) (the C table em_nn_rsqrt_seed holds these numbers).
NORM_RSQRT_SEEDS = tuple(__import__("math").isqrt((1 << 64) // (2 * j + 1)) for j in range(8, 32))


def norm_rsqrt_q29(m: np.ndarray) -> np.ndarray:
    """≈ 2^29 / sqrt(m / 2^30) for m in [2^28, 2^30): the seed NORM_RSQRT_SEEDS[(m >> 25) − 8],
    then NORM_RSQRT_ITERATIONS Newton steps y ← y·(3 − a·y²)/2, each product floored:
    y2 = (Y·Y) >> 29, ay2 = (m·y2) >> 29, Y = (Y·(3·2^30 − ay2)) >> 31 (all below 2^62, unsigned).
    The result is within a few units of Q29 of the true value (Newton approaches from below)."""
    m = np.asarray(m, np.int64)
    y = np.asarray(NORM_RSQRT_SEEDS, np.int64)[(m >> 25) - 8]
    for _ in range(NORM_RSQRT_ITERATIONS):
        y2 = (y * y) >> 29
        ay2 = (m * y2) >> 29
        y = (y * ((3 << 30) - ay2)) >> 31
    return y


def norm_input_shift(depth: int) -> int:
    """A: the left shift that puts D·q − C (|·| <= 255·D) in 31 bits: 31 − bit length of 255·D."""
    return 31 - (255 * depth).bit_length()


def _rounding_shift_left(x: np.ndarray, s: np.ndarray) -> np.ndarray:
    """x · 2^s for s >= 0; x / 2^−s rounded half up for s < 0 (Helium's VRSHL), s >= −32."""
    right = np.maximum(-s, 1)
    return np.where(s >= 0, x << np.maximum(s, 0), (x + (np.int64(1) << (right - 1))) >> right)


def norm_s8(x: np.ndarray, multiplier: np.ndarray, bias: np.ndarray, *, mode: str, input_zero_point: int,
            epsilon_high: int, epsilon_low: int, epsilon_shift: int, norm_bits: int, output_shift: int) -> np.ndarray:
    """Layer norm (mode "layer") or RMS norm ("rms") of each row of int8 x [..., D], then the
    per-channel affine and the output quantization, all in integers.

    Per row: S = Σq, SS = Σq² (int32); the centre C = S (layer) or D·zp (rms);
    V = D·SS − 2·C·S + C² = D²·var(q) (layer) or D·Σ(q − zp)² (rms), exact in int64;
    T = V·2^F + E with F = epsilon_shift (even) and E = epsilon_high·2^31 + epsilon_low
    = D²·eps / scale_in² · 2^F (the compiler's rounding: the input scale enters here only).
    1/sqrt(T) = 2^−k · r · 2^−44 with T = m·4^k, m in [2^28, 2^30) (k = ⌊(bitlen(T) − 29) / 2⌋,
    m = T >> 2k, exact for k <= 0) and r = norm_rsqrt_q29(m).
    Per element: d = q·(D·2^A) − C·2^A (int32, A = norm_input_shift(D)); the normalised value
    (x − mean) / sqrt(var + eps) = d / sqrt(V + E/2^F) as n = VRSHL(VRMULH(d, r), s) in
    Q(norm_bits), s = N + F/2 − k − A − 12 (n = 0 where T = 0: then every d is 0);
    acc = sat32(VRMULH(n, multiplier[i]) + bias[i]); out = clamp((acc + 2^(H−1)) >> H) with
    H = output_shift (1..24). VRMULH(a, b) = (a·b + 2^31) >> 32. multiplier = gamma / scale_out ·
    2^(32 + H − N), bias = (beta / scale_out + zp_out) · 2^H (ops/norm.py)."""
    q = np.asarray(x, np.int64)
    depth = q.shape[-1]
    rows = q.reshape(-1, depth)
    s_sum = rows.sum(axis=1)
    ss_sum = (rows * rows).sum(axis=1)
    centre = s_sum if mode == "layer" else np.full_like(s_sum, depth * int(input_zero_point))
    variance = depth * ss_sum - 2 * centre * s_sum + centre * centre
    total = (variance << epsilon_shift) + ((int(epsilon_high) << 31) + int(epsilon_low))
    bits = np.array([int(t).bit_length() for t in total], np.int64)
    k = (bits - 29) // 2
    m = np.where(k >= 0, total >> np.maximum(2 * k, 0), total << np.maximum(-2 * k, 0))
    r = np.where(total > 0, norm_rsqrt_q29(np.where(total > 0, m, 1 << 28)), 0)
    a = norm_input_shift(depth)
    s = np.clip(norm_bits + epsilon_shift // 2 - k - a - 12, -32, 31)
    d = rows * (depth << a) - (centre << a)[:, None]
    t = (d * r[:, None] + (1 << 31)) >> 32
    n = _rounding_shift_left(t, s[:, None])
    product = (n * np.asarray(multiplier, np.int64) + (1 << 31)) >> 32
    acc = np.clip(product + np.asarray(bias, np.int64), -(1 << 31), (1 << 31) - 1)
    out = (acc + (1 << (output_shift - 1))) >> output_shift
    return np.clip(out, INT8_MIN, INT8_MAX).astype(np.int8).reshape(q.shape)


def reset_state(graph: "Graph") -> dict[str, np.ndarray]:
    """Each persistent tensor's value after em_program_reset_state(): its zero point (a real 0)."""
    from compiler.ir import NUMPY_DTYPES

    values = {}
    for state in graph.state:
        t = graph.tensors[state.tensor]
        zero = int(t.quant.zero_point[0]) if t.quant is not None else 0
        values[state.tensor] = np.full(t.shape, zero, NUMPY_DTYPES[t.dtype])
    return values


def run(graph: "Graph", inputs: list[np.ndarray], keep_all: bool = False,
        state: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """Interprets a lowered graph. Returns the outputs by name (every tensor with `keep_all`).
    `state`: the persistent tensors' values (reset_state's, then what each run leaves), which the
    run reads and replaces with their next values, as an invoke does; None: from a reset."""
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
    if state is None:
        state = {}
    for name, value in reset_state(graph).items():
        values[name] = state.setdefault(name, value)
    for op in graph.ops:
        results = OP_TABLE[op.kind].reference(op, [values[t] for t in op.inputs])
        for name, result in zip(op.outputs, results):
            values[name] = result.reshape(graph.tensors[name].shape)
    for s in graph.state:
        state[s.tensor] = values[s.next].copy()
    wanted = values if keep_all else {name: values[name] for name in graph.outputs}
    return dict(wanted)


# Float fallback (em_nn_float.h): float32 throughout, in the C kernels' order of operations.
# Sums are sequential (np.cumsum accumulates in index order; np.sum would sum pairwise), so the
# ops built from + - * / and sqrt are bit-exact with the C; those that call libm (exp, log,
# tanh, erf) agree within FLOAT_LIBM_ULPS units in the last place, or FLOAT_LIBM_ABS absolute
# (where the formula cancels: GELU's 1 + tanh(u) for u near -1 leaves only libm's last bits).
FLOAT_LIBM_ULPS = 8
FLOAT_LIBM_ABS = 2.0 ** -20
FLOAT_BINARY_FUNCTIONS = ("add", "sub", "mul", "div", "minimum", "maximum")  # schema FloatBinaryFunction
FLOAT_UNARY_FUNCTIONS = ("clamp", "sigmoid", "tanh", "exp", "log", "sqrt", "rsqrt", "abs", "neg", "gelu",
                         "gelu_tanh", "silu", "hardswish", "hardsigmoid", "leaky_relu")  # FloatUnaryFunction
FLOAT_LIBM_FUNCTIONS = ("sigmoid", "tanh", "exp", "log", "gelu", "gelu_tanh", "silu")
_F32 = np.float32


def _clamp_f32(v: np.ndarray, low: float, high: float) -> np.ndarray:
    """v < low ? low : v, then v > high ? high : v (NaN passes), as em_nn_float_clamp."""
    v = np.where(v < _F32(low), _F32(low), v)
    return np.where(v > _F32(high), _F32(high), v).astype(_F32)


def _sequential_sum(first: np.ndarray, terms: np.ndarray) -> np.ndarray:
    """first + terms[..., 0] + terms[..., 1] + … in float32, in that order."""
    stacked = np.concatenate([np.asarray(first, _F32)[..., None], terms.astype(_F32)], axis=-1)
    return np.cumsum(stacked, axis=-1, dtype=_F32)[..., -1]


def float_fully_connected_f32(x: np.ndarray, weights: np.ndarray, bias: np.ndarray, *,
                              activation_min: float = -np.inf, activation_max: float = np.inf) -> np.ndarray:
    """out[b, o] = clamp(bias[o] + x[b, 0]·w[o, 0] + x[b, 1]·w[o, 1] + …), float32, in order.
    x [B, I], weights [O, I], bias [O]."""
    x, weights = np.asarray(x, _F32), np.asarray(weights, _F32)
    products = x[:, None, :] * weights[None, :, :]  # [B, O, I], each product rounded to float32
    acc = _sequential_sum(np.broadcast_to(np.asarray(bias, _F32), products.shape[:2]), products)
    return _clamp_f32(acc, activation_min, activation_max)


def float_conv2d_f32(x: np.ndarray, weights: np.ndarray, bias: np.ndarray, *, stride: tuple[int, int],
                     dilation: tuple[int, int], padding: tuple[int, int, int, int], groups: int,
                     activation_min: float = -np.inf, activation_max: float = np.inf) -> np.ndarray:
    """Grouped 2-D convolution, NHWC float32: x [N, H, W, C_IN], weights [C_OUT, KH, KW, C_IN / groups],
    bias [C_OUT]. Each output starts at its bias and adds the taps in (ky, kx, i) order, skipping
    those in the padding (they add nothing: not even a zero, which would turn −0 into +0)."""
    x, weights = np.asarray(x, _F32), np.asarray(weights, _F32)
    c_out, kh, kw, c_per_group = weights.shape
    windows = _windows(_padded(x, padding, 0), kh, kw, stride, dilation)  # [N, OH, OW, KH, KW, C]
    ones = np.ones((1,) + x.shape[1:3] + (1,), np.int8)
    valid = _windows(_padded(ones, padding, 0), kh, kw, stride, dilation)[0, ..., 0].astype(bool)
    channel = (np.arange(c_out) // (c_out // groups)) * c_per_group  # first input channel of o's group
    acc = np.broadcast_to(np.asarray(bias, _F32), windows.shape[:3] + (c_out,)).copy()
    for ky in range(kh):
        for kx in range(kw):
            inside = valid[None, :, :, ky, kx, None]
            for i in range(c_per_group):
                taps = windows[:, :, :, ky, kx, channel + i] * weights[:, ky, kx, i]
                acc = np.where(inside, acc + taps, acc)
    return _clamp_f32(acc, activation_min, activation_max)


def float_binary_f32(a: np.ndarray, b: np.ndarray, *, function: str, activation_min: float = -np.inf,
                     activation_max: float = np.inf) -> np.ndarray:
    """clamp(function(a, b)) with NumPy broadcasting, float32; minimum / maximum propagate NaN."""
    a, b = np.asarray(a, _F32), np.asarray(b, _F32)
    with np.errstate(all="ignore"):
        out = {
            "add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b, "div": lambda: a / b,
            "minimum": lambda: np.where((a < b) | np.isnan(a), a, b),
            "maximum": lambda: np.where((a > b) | np.isnan(a), a, b),
        }[function]()
    return _clamp_f32(np.asarray(out, _F32), activation_min, activation_max)


def _erf_f32(x: np.ndarray) -> np.ndarray:
    import math
    return np.vectorize(math.erf, otypes=[np.float64])(x.astype(np.float64)).astype(_F32)


def float_unary_f32(x: np.ndarray, *, function: str, alpha: float = 0.0, min: float = -np.inf,
                    max: float = np.inf) -> np.ndarray:
    """function(x) elementwise, float32, with the C's constants and order of operations
    (em_nn_float.h lists the formulas). libm functions: within FLOAT_LIBM_ULPS of the C."""
    x = np.asarray(x, _F32)
    one, half, three, six = _F32(1), _F32(0.5), _F32(3), _F32(6)
    with np.errstate(all="ignore"):
        if function == "clamp":
            return _clamp_f32(x, min, max)
        out = {
            "sigmoid": lambda: one / (one + np.exp(-x)),
            "tanh": lambda: np.tanh(x),
            "exp": lambda: np.exp(x),
            "log": lambda: np.log(x),
            "sqrt": lambda: np.sqrt(x),
            "rsqrt": lambda: one / np.sqrt(x),
            "abs": lambda: np.abs(x),
            "neg": lambda: -x,
            "gelu": lambda: x * half * (one + _erf_f32(x * _F32(0.70710678118654752))),
            "gelu_tanh": lambda: half * x * (one + np.tanh(_F32(0.79788456080286536) * (x + _F32(0.044715) * x * x * x))),
            "silu": lambda: x / (one + np.exp(-x)),
            "hardswish": lambda: x * _clamp_f32(x + three, 0.0, 6.0) / six,
            "hardsigmoid": lambda: _clamp_f32(x + three, 0.0, 6.0) / six,
            "leaky_relu": lambda: np.where(x > 0, x, x * _F32(alpha)),
        }[function]()
    return np.asarray(out, _F32)


def float_softmax_f32(x: np.ndarray) -> np.ndarray:
    """Softmax over the last axis: e = exp(x − max), sum in order, e / sum (float32)."""
    x = np.asarray(x, _F32)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    total = _sequential_sum(np.zeros(x.shape[:-1], _F32), e)
    return (e / total[..., None]).astype(_F32)


def float_layer_norm_f32(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, *, epsilon: float,
                         rms: bool = False) -> np.ndarray:
    """Layer norm over the last axis (D): mean = Σx / D, var = Σ(x − mean)² / D (sums in order),
    inv = 1 / sqrt(var + epsilon), out = (x − mean) · inv · weight + bias, all float32. RMS norm
    (`rms`): mean = 0."""
    x = np.asarray(x, _F32)
    n = _F32(x.shape[-1])
    zeros = np.zeros(x.shape[:-1], _F32)
    mean = zeros[..., None] if rms else (_sequential_sum(zeros, x) / n)[..., None]
    d = x - mean
    var = _sequential_sum(zeros, d * d) / n
    inv = (_F32(1) / np.sqrt(var + _F32(epsilon)))[..., None]
    return (d * inv * np.asarray(weight, _F32) + np.asarray(bias, _F32)).astype(_F32)


def float_max_pool_f32(x: np.ndarray, *, kernel: tuple[int, int], stride: tuple[int, int],
                       padding: tuple[int, int, int, int], activation_min: float = -np.inf,
                       activation_max: float = np.inf) -> np.ndarray:
    """Max pool, NHWC float32: from −inf, m = x > m ? x : m over the window's cells inside the
    input in (ky, kx) order (padding never wins); then the output clamp."""
    windows, valid = _pool_windows(np.asarray(x, _F32), kernel, stride, padding)
    m = np.full(windows.shape[:3] + windows.shape[5:], -np.inf, _F32)
    for ky in range(kernel[0]):
        for kx in range(kernel[1]):
            cell = windows[:, :, :, ky, kx]
            m = np.where(valid[None, :, :, ky, kx, None] & (cell > m), cell, m)
    return _clamp_f32(m, activation_min, activation_max)


def float_avg_pool_f32(x: np.ndarray, *, kernel: tuple[int, int], stride: tuple[int, int],
                       padding: tuple[int, int, int, int], count_include_pad: bool,
                       activation_min: float = -np.inf, activation_max: float = np.inf) -> np.ndarray:
    """Average pool, NHWC float32: the window's cells inside the input summed from 0 in (ky, kx)
    order, divided by float32(KH·KW) (count_include_pad) or by their number; then the clamp."""
    windows, valid = _pool_windows(np.asarray(x, _F32), kernel, stride, padding)
    total = np.zeros(windows.shape[:3] + windows.shape[5:], _F32)
    for ky in range(kernel[0]):
        for kx in range(kernel[1]):
            total = np.where(valid[None, :, :, ky, kx, None], total + windows[:, :, :, ky, kx], total)
    cells = np.full(valid.shape[:2], kernel[0] * kernel[1]) if count_include_pad else valid.sum(axis=(2, 3))
    return _clamp_f32(total / cells[None, :, :, None].astype(_F32), activation_min, activation_max)


# Recurrent layers (GRU, LSTM): after the TFLite / CMSIS-NN integer LSTM. int8 input and
# outputs; int8 weights (symmetric per gate row); each gate's pre-activation int16 in Q3.12
# (real = q / 2^12, -8..8), the nonlinearities int16 Q3.12 -> Q0.15 by a 257-entry table with
# linear interpolation (every tier reads the same table, runtime/kernels/em_nn_rnn_s16.c), the
# LSTM's cell state int16 at a power-of-two scale 2^-cell_bits that the compiler picks from the
# calibrated range. The hidden state carried from step to step is int16 at 2^-hidden_bits:
# Q0.15 (15) by default, since a GRU's and an LSTM's h lie in (-1, 1) by construction, fewer
# bits where a given initial state reaches further. No calibrated int8 range can clip it, and
# its rounding is far below an int8 output's LSB, so the recurrence tracks PyTorch's float one;
# y and h_n are int8 views of it at their own quantizations.
GATE_FRACTION_BITS = 12  # gate pre-activations are Q3.12
HIDDEN_BITS_MIN, HIDDEN_BITS_MAX = 8, 15  # hidden state int16 at 2^-hidden_bits, |h| <= 32767
RNN_TABLE_STEP_BITS = 7  # table entries every 2^7 Q3.12 codes (1/32); 256 steps cover 0..8
RNN_TABLE_ENTRIES = 257
CELL_BITS_MIN, CELL_BITS_MAX = 8, 15  # cell state Q(15 − b).b: |c| < 128 .. < 1
RNN_HIDDEN_MAX = 512  # Σ w_hh·h over H int8 × Q0.15 products (each < 2^22) stays within int32
Q15_MAX = 32767


def _q15_table(function) -> np.ndarray:
    x = np.arange(RNN_TABLE_ENTRIES, dtype=np.float64) / (1 << (GATE_FRACTION_BITS - RNN_TABLE_STEP_BITS))
    return np.minimum(np.round(function(x) * 32768.0), 32767).astype(np.int64)


SIGMOID_Q15_TABLE = _q15_table(lambda x: 1.0 / (1.0 + np.exp(-x)))  # sigmoid(k/32), k = 0..256, Q0.15
TANH_Q15_TABLE = _q15_table(np.tanh)  # tanh(k/32), Q0.15


def _interpolate_q15(x: np.ndarray, table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(table interpolated at |x|, x < 0): |x| / 2^7 picks the entry, its low 7 bits interpolate
    (rounded half up); |x| = 32768 (x = -32768) reads the last entry."""
    x = np.asarray(x, np.int64)
    a = np.abs(x)
    index = np.minimum(a >> RNN_TABLE_STEP_BITS, RNN_TABLE_ENTRIES - 2)
    fraction = np.where(a >> RNN_TABLE_STEP_BITS >= RNN_TABLE_ENTRIES - 1, 1 << RNN_TABLE_STEP_BITS,
                        a & ((1 << RNN_TABLE_STEP_BITS) - 1))
    low, high = table[index], table[index + 1]
    y = low + (((high - low) * fraction + (1 << (RNN_TABLE_STEP_BITS - 1))) >> RNN_TABLE_STEP_BITS)
    return y, x < 0


def sigmoid_s16(x: np.ndarray) -> np.ndarray:
    """sigmoid of Q3.12 int16 codes as Q0.15, 1..32767: the table for |x|, 32768 − it for x < 0."""
    y, negative = _interpolate_q15(x, SIGMOID_Q15_TABLE)
    return np.where(negative, 32768 - y, y)


def tanh_s16(x: np.ndarray) -> np.ndarray:
    """tanh of Q3.12 int16 codes as Q0.15, -32767..32767 (odd: −table(|x|) for x < 0)."""
    y, negative = _interpolate_q15(x, TANH_Q15_TABLE)
    return np.where(negative, -y, y)


def _sat16(x: np.ndarray) -> np.ndarray:
    return np.clip(x, -32768, 32767)


def _round_shift(x: np.ndarray, bits: int) -> np.ndarray:
    """x / 2^bits rounded half up (arithmetic shift), bits >= 1."""
    return (np.asarray(x, np.int64) + (1 << (bits - 1))) >> bits


def _gate_preactivations(x: np.ndarray, h: np.ndarray, p: dict, w_ih: np.ndarray, w_hh: np.ndarray,
                         b_ih: np.ndarray, b_hh: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(input part, recurrent part) of every gate row as Q3.12 int16. Input part: the int32 dot
    product of int8 x (bias with x's zero point folded in, wrapping) requantized and saturated.
    Recurrent part: the dot product of the int16 h (exact in int32: H <= RNN_HIDDEN_MAX)
    requantized, plus b_hh (Q3.12 codes: h has no zero point to fold, and a bias at the
    accumulator's scale s_hh·2^-15 could overflow int32 for a row of tiny weights), saturated."""
    acc_x = wrap_int32(b_ih + w_ih @ x)
    acc_h = w_hh @ h
    def column(name: str) -> np.ndarray:
        return np.asarray(p[name], np.int64)[:, None]  # per gate row, over the batch's columns

    return (_sat16(requantize(acc_x, column("input_multiplier"), column("input_shift"))),
            _sat16(requantize(acc_h, column("recurrent_multiplier"), column("recurrent_shift")) + b_hh))


def _int8_of(value: np.ndarray, p: dict, prefix: str) -> np.ndarray:
    """An int8 view of a hidden value (GRU: h, LSTM: the Q0.30 o·tanh(c)) or the cell state:
    sat8(<prefix>_offset + requantize(value, <prefix>_multiplier, <prefix>_shift))."""
    out = p[f"{prefix}_offset"] + requantize(np.asarray(value, np.int64), p[f"{prefix}_multiplier"],
                                             p[f"{prefix}_shift"])
    return np.clip(out, -128, 127)


def _state_in(state: np.ndarray | None, batch: int, hidden: int, p: dict, prefix: str, low: int) -> np.ndarray:
    """The initial state (int8 at its own quantization) in the kernel's units, saturated to
    [low, 32767], as [H, B]; 0 for none."""
    if state is None:
        return np.zeros((hidden, batch), np.int64)
    centred = np.asarray(state, np.int64).reshape(batch, hidden) - p[f"{prefix}_offset"]
    return np.clip(requantize(centred, p[f"{prefix}_multiplier"], p[f"{prefix}_shift"]), low, 32767).T


def _time_major(x: np.ndarray, batch_first: bool) -> np.ndarray:
    return np.swapaxes(x, 0, 1) if batch_first else x


def _recurrent_operands(x, w_ih, w_hh, b_ih, b_hh, p):
    xs = _time_major(np.asarray(x, np.int64), p["batch_first"])
    if w_hh.shape[1] > RNN_HIDDEN_MAX:
        raise ValueError(f"recurrent layer with hidden size {w_hh.shape[1]} (at most {RNN_HIDDEN_MAX})")
    return (xs, np.asarray(w_ih, np.int64), np.asarray(w_hh, np.int64), np.asarray(b_ih, np.int64)[:, None],
            np.asarray(b_hh, np.int64)[:, None])


def gru_s8(x: np.ndarray, w_ih: np.ndarray, w_hh: np.ndarray, b_ih: np.ndarray, b_hh: np.ndarray,
           h0: np.ndarray | None, p: dict) -> tuple[np.ndarray, np.ndarray]:
    """One GRU layer (PyTorch's gate order r, z, n) over T steps; returns (y, h_n).

    x [B, T, I] (batch_first) or [T, B, I] int8; w_ih [3H, I], w_hh [3H, H] int8 (H <= 512);
    b_ih [3H] int32 (b_ih − zp_x·Σ w_ih, at the accumulator's scale), b_hh [3H] int32 Q3.12
    codes; h0 [B, H] int8 or None (zero state), entering by state_* (saturated to ±32767). The
    hidden state h is int16 at 2^-b (b = hidden_bits, 8..15). Per step, with gx, gh the gates'
    Q3.12 input and recurrent parts:
      r = σ(sat16(gx_r + gh_r)), z = σ(sat16(gx_z + gh_z))                         Q0.15
      n = tanh(sat16(gx_n + round(r·gh_n / 2^15)))                                 Q0.15
      m = round(n / 2^(15 − b)) (n for b = 15);  h' = m + round(z·(h − m) / 2^15)  2^-b
    (|h'| <= 32767: a convex combination of h and m). y [as x, H] holds every h' as int8
    (hidden_*: offset, h -> y codes), h_n [B, H] the last one at h_n's (hn_*)."""
    xs, w_ih, w_hh, b_ih, b_hh = _recurrent_operands(x, w_ih, w_hh, b_ih, b_hh, p)
    steps, batch, _ = xs.shape
    hidden = w_hh.shape[1]
    bits = p.get("hidden_bits", HIDDEN_BITS_MAX)
    h = _state_in(h0, batch, hidden, p, "state", -Q15_MAX)  # [H, B]
    ys = np.zeros((steps, batch, hidden), np.int64)
    for t in range(steps):
        gx, gh = _gate_preactivations(xs[t].T, h, p, w_ih, w_hh, b_ih, b_hh)  # [3H, B]
        r = sigmoid_s16(_sat16(gx[:hidden] + gh[:hidden]))
        z = sigmoid_s16(_sat16(gx[hidden:2 * hidden] + gh[hidden:2 * hidden]))
        n = tanh_s16(_sat16(gx[2 * hidden:] + _round_shift(r * gh[2 * hidden:], 15)))
        m = n if bits == HIDDEN_BITS_MAX else _round_shift(n, HIDDEN_BITS_MAX - bits)
        h = m + _round_shift(z * (h - m), 15)
        ys[t] = _int8_of(h, p, "hidden").T
    y = _time_major(ys, p["batch_first"]).astype(np.int8)
    return y, _int8_of(h.T, p, "hn").astype(np.int8)


def lstm_s8(x: np.ndarray, w_ih: np.ndarray, w_hh: np.ndarray, b_ih: np.ndarray, b_hh: np.ndarray,
            h0: np.ndarray | None, c0: np.ndarray | None, p: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One LSTM layer (PyTorch's gate order i, f, g, o) over T steps; returns (y, h_n, c_n).

    Operands as gru_s8's with 4H gate rows; c0 [B, H] int8 or None. The cell state c is int16 at
    scale 2^-b (b = cell_bits, 8..15), the hidden state int16 at 2^-hb (hb = hidden_bits). Per
    step, g = sat16(gx + gh) per gate row:
      i, f, o = σ(g_i), σ(g_f), σ(g_o); u = tanh(g_g)                              Q0.15
      c' = sat16(round(f·c / 2^15) + round(i·u / 2^(30 − b)))
      q = o·tanh(c' in Q3.12)                                                      Q0.30
      h' = round(q / 2^(30 − hb))                                                  2^-hb
    where c in Q3.12 is round(c / 2^(b − 12)) for b > 12, c for b = 12, sat16(c·2^(12 − b)) below.
    y holds every q as int8 (hidden_*: Q0.30 -> y codes), h_n the last q at h_n's (hn_*), c_n
    the last c at c_n's (cn_*); c0 enters by cell_in_*."""
    xs, w_ih, w_hh, b_ih, b_hh = _recurrent_operands(x, w_ih, w_hh, b_ih, b_hh, p)
    steps, batch, _ = xs.shape
    hidden = w_hh.shape[1]
    bits, hidden_bits = p["cell_bits"], p.get("hidden_bits", HIDDEN_BITS_MAX)
    h = _state_in(h0, batch, hidden, p, "state", -Q15_MAX)
    c = _state_in(c0, batch, hidden, p, "cell_in", -32768)
    ys = np.zeros((steps, batch, hidden), np.int64)
    for t in range(steps):
        gx, gh = _gate_preactivations(xs[t].T, h, p, w_ih, w_hh, b_ih, b_hh)
        g = _sat16(gx + gh)
        i, f = sigmoid_s16(g[:hidden]), sigmoid_s16(g[hidden:2 * hidden])
        u, o = tanh_s16(g[2 * hidden:3 * hidden]), sigmoid_s16(g[3 * hidden:])
        c = _sat16(_round_shift(f * c, 15) + _round_shift(i * u, 30 - bits))
        c12 = _round_shift(c, bits - 12) if bits > 12 else c if bits == 12 else _sat16(c << (12 - bits))
        product = o * tanh_s16(c12)
        h = _round_shift(product, 30 - hidden_bits)
        ys[t] = _int8_of(product, p, "hidden").T
    y = _time_major(ys, p["batch_first"]).astype(np.int8)
    return y, _int8_of(product.T, p, "hn").astype(np.int8), _int8_of(c.T, p, "cn").astype(np.int8)
