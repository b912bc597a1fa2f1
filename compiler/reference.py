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
    c_out, kh, kw, c_per_group = weights.shape
    windows = _windows(_padded(x, padding, input_zero_point), kh, kw, stride, dilation).astype(np.int64)
    n, oh, ow = windows.shape[:3]
    out_per_group = c_out // groups
    acc = np.empty((n, oh, ow, c_out), np.int64)
    for g in range(groups):
        patch = windows[..., g * c_per_group:(g + 1) * c_per_group].reshape(n, oh, ow, -1)
        w = weights[g * out_per_group:(g + 1) * out_per_group].reshape(out_per_group, -1).astype(np.int64)
        acc[..., g * out_per_group:(g + 1) * out_per_group] = patch @ w.T
    return _requantize_clamp(acc + bias.astype(np.int64), multiplier, shift, output_offset,
                             activation_min, activation_max)


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
    kh, kw, channels_out = weights.shape
    windows = _windows(_padded(x, padding, input_zero_point), kh, kw, stride, dilation).astype(np.int64)
    source = np.repeat(windows, depth_multiplier, axis=-1)  # [N, OH, OW, KH, KW, C·M]
    acc = (source * weights.astype(np.int64)).sum(axis=(3, 4))
    return _requantize_clamp(acc + bias.astype(np.int64), multiplier, shift, output_offset,
                             activation_min, activation_max)


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
    their quantization. out = clamp(max, activation_min, activation_max)."""
    windows, valid = _pool_windows(x.astype(np.int32), kernel, stride, padding)
    masked = np.where(valid[None, ..., None], windows, -129)
    return np.clip(masked.max(axis=(3, 4)), activation_min, activation_max).astype(np.int8)


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
    """
    windows, valid = _pool_windows(x.astype(np.int64) - zero_point, kernel, stride, padding)
    total = np.where(valid[None, ..., None], windows, 0).sum(axis=(3, 4))
    cells = np.full(valid.shape[:2], kernel[0] * kernel[1]) if count_include_pad else valid.sum(axis=(2, 3))
    average = rounding_divide(total, cells[None, ..., None]) + zero_point
    return np.clip(average, activation_min, activation_max).astype(np.int8)


def lut_s8(x: np.ndarray, table: np.ndarray) -> np.ndarray:
    """out = table[x + 128]: any int8 → int8 elementwise function, tabulated ahead of time."""
    return np.asarray(table, np.int8)[np.asarray(x, np.int16) + 128]


ADD_LEFT_SHIFT = 20  # headroom bits of the elementwise add (TFLite / CMSIS-NN)


def add_s8(a: np.ndarray, b: np.ndarray, *, a_offset: int, a_multiplier: int, a_shift: int,
           b_offset: int, b_multiplier: int, b_shift: int, output_offset: int, output_multiplier: int,
           output_shift: int, activation_min: int, activation_max: int) -> np.ndarray:
    """Elementwise a + b of int8 tensors with their own scales (NumPy broadcasting).

    Each input is centred (x + offset, offset = −zero point), shifted left by ADD_LEFT_SHIFT and
    requantized onto a common scale (2·max(scale_a, scale_b)); the sum is requantized onto the
    output scale: out = clamp(requantize(sa + sb, out_mult, out_shift) + output_offset).
    """
    def scaled(x: np.ndarray, offset: int, multiplier: int, shift: int) -> np.ndarray:
        return requantize((x.astype(np.int64) + offset) << ADD_LEFT_SHIFT, np.int64(multiplier), np.int64(shift))

    total = scaled(a, a_offset, a_multiplier, a_shift) + scaled(b, b_offset, b_multiplier, b_shift)
    out = requantize(total, np.int64(output_multiplier), np.int64(output_shift)) + output_offset
    return np.clip(out, activation_min, activation_max).astype(np.int8)

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
