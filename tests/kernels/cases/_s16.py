"""What the int16-activation (A16W8) cases of conv2d, depthwise_conv2d and fully_connected share:
requantizations over the int16 range with
shifts from -31 to 14 (reference.requantize_s64), tie and extreme edges, the conv case builder."""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.fixedpoint import REQUANTIZE_S64_MAX_SHIFT, quantize_multiplier
from compiler.ir import Tensor
from conformance import Case, int16_tensor, single_op, weight_tensor


def requantization_s16(rng: np.random.Generator, n: int, taps: int, big_share: float = 0.1, tiny: bool = True):
    """Per-channel (multiplier, shift) spreading sums of `taps` int16 x int8 products over the int16
    range; about `big_share` of the channels (never the first) at a shift of 14 (they saturate) and,
    with `tiny`, as many at tiny multipliers (shift -31..-18: results near 0, the rounding at 33..46
    bits, which Helium's vector requantization leaves to the 64-bit path: a layer without them
    takes the vector one where its sums fit int32)."""
    spread = float(np.log2(0.008 / np.sqrt(max(taps, 1))))
    reals = 2.0 ** rng.uniform(spread - 1.5, spread + 1.5, size=n)
    pick = rng.random(n)
    later = np.arange(n) > 0
    reals[(pick < big_share) & later] = 2.0 ** (REQUANTIZE_S64_MAX_SHIFT - 1) * 1.5
    small = (pick >= big_share) & (pick < 2 * big_share) & later & tiny
    reals[small] = 2.0 ** rng.uniform(-31, -18, size=int(small.sum()))
    pairs = [quantize_multiplier(float(r)) for r in reals]
    return np.array([m for m, _ in pairs], np.int32), np.array([s for _, s in pairs], np.int32)


def requantization_edges_s16(n: int = 24, vector: bool = False):
    """(bias, multiplier, shift) per channel for accumulators equal to their bias: exact ties of
    the rounding half up (both signs) at shifts -1..-4 (m = 2^30: Q15 2^14), INT32 extremes,
    multipliers that round up to 0x7FFF and past it (capped), a zero multiplier, shifts -31, 0,
    14; channels past 20 repeat the pattern. `vector`: biases of ±2·10^9 and shift -17 in place of
    the extremes and -31, so that a layer of up to 35 taps takes Helium's 32-bit sums and vector
    requantization (em_nn_s16_sum32)."""
    big = 2 * 10**9 if vector else 2**31 - 1
    bias = [(1 if i % 2 else -1) * ((2 * i + 1) << (1 + i % 4)) for i in range(16)] + [-big, big, -5, 7]
    multiplier = [1 << 30] * 16 + [2**31 - 1, 0x7FFF7FFF, 0x7FFEFFFF, 0]
    shift = [-(1 + i % 4) for i in range(16)] + [-17 if vector else -31, 0, REQUANTIZE_S64_MAX_SHIFT, 0]
    pick = [i % 20 for i in range(n)]
    return (np.array([bias[i] for i in pick], np.int32), np.array([multiplier[i] for i in pick], np.int32),
            np.array([shift[i] for i in pick], np.int32))


def activation_s16(k: int) -> tuple[int, int]:
    """The int16 range, a ReLU, a narrower clamp, in turn."""
    return [(-(2**15), 2**15 - 1), (0, 2**15 - 1), (-20000, 15000)][k % 3]


def conv_case_s16(op: str, name: str, x: np.ndarray, weights: np.ndarray, bias: np.ndarray, attrs: dict,
                  params: dict | None = None) -> Case:
    """An int16 conv2d / depthwise_conv2d case (conformance.conv_case for A16W8): input x int16,
    weights int8, attrs the reference's keywords with zero points 0."""
    kh, kw = weights.shape[1:3] if op == "conv2d" else weights.shape[:2]
    c_out = weights.shape[0] if op == "conv2d" else weights.shape[2]
    (sh, sw), (dh, dw), (top, bottom, left, right) = attrs["stride"], attrs["dilation"], attrs["padding"]
    y_shape = (x.shape[0], reference.output_size(x.shape[1], kh, sh, dh, top, bottom),
               reference.output_size(x.shape[2], kw, sw, dw, left, right), c_out)
    operands = [int16_tensor("x", x.shape), weight_tensor("w", weights), Tensor("b", "int32", (c_out,), data=bias)]
    shown = {"input": x.shape, "kernel": (kh, kw), "c_out": c_out, "dtype": "int16",
             **{k: attrs[k] for k in ("groups", "depth_multiplier", "stride", "dilation", "padding", "activation_min",
                                      "activation_max") if k in attrs}}
    attrs = {**attrs, "input_zero_point": 0, "output_offset": 0}
    return single_op(op, operands, int16_tensor("y", y_shape, 0.002), attrs, [x], name=name,
                     params={**shown, **(params or {})})
