"""depthwise_conv2d: depth multipliers 1..3, channel tails around 4-channel words and 16-lane
blocks, borders fully / partly padded, dilation, stride, asymmetric padding, runs of 1..4
interior columns, input zero points at the ends, clamps, shifts > 0; int4 weights (A8W4), rows
of KW·C·M around the 32-element blocks of their packing, on the fast path (its staged rows after
the unpacked weights in the scratch, its 4-pixel blocks) and the general one; int16 activations
(A16W8): channels around Helium's 4-channel vectors, M > 1, lane sums at their bound with the
bias beyond int32, 529 taps (64-bit sums), shifts -31..14, ReLU and narrower clamps."""
from __future__ import annotations

import numpy as np

from conformance import (Case, edge_int16, conv_case, edge_int4, edge_int8, random_window, requantization, requantization_edges,
                         rng_for)
from compiler.fixedpoint import quantize_multiplier
from cases._s16 import activation_s16, conv_case_s16, requantization_edges_s16, requantization_s16

# name: (input NHWC, kernel (KH, KW), multiplier, stride, dilation, padding (t, b, l, r), input zp)
CASES = {
    "3x3_c64": ((1, 12, 5, 64), (3, 3), 1, (1, 1), (1, 1), (1, 1, 1, 1), -128),
    "3x3_m2_s2_c3": ((2, 7, 9, 3), (3, 3), 2, (2, 2), (1, 1), (0, 1, 1, 0), 127),
    "5x3_m3_c17": ((1, 6, 11, 17), (5, 3), 3, (1, 2), (1, 1), (2, 2, 1, 1), -128),
    "3x3_dil2_c5": ((1, 9, 9, 5), (3, 3), 1, (1, 1), (2, 2), (2, 1, 2, 3), 127),
    "3x3_c32_m2_wide_pad": ((1, 8, 7, 32), (3, 3), 2, (2, 1), (1, 2), (1, 1, 2, 2), -7),
    "all_padding_rows": ((1, 2, 3, 6), (3, 3), 1, (1, 1), (1, 1), (2, 2, 2, 2), 127),
    "10x4_c7": ((1, 10, 4, 7), (10, 4), 1, (2, 1), (1, 1), (4, 5, 1, 2), -128),
    "3x3_c1_runs": ((1, 5, 11, 1), (3, 3), 1, (1, 1), (1, 1), (1, 1, 1, 1), -128),
    "3x3_c15": ((1, 4, 4, 15), (3, 3), 1, (1, 1), (1, 1), (1, 1, 1, 1), 5),
    "3x3_c17_out_zp": ((1, 3, 9, 17), (3, 3), 1, (1, 1), (1, 1), (1, 1, 1, 1), -1),
    "3x3_c33_s2": ((1, 7, 8, 33), (3, 3), 1, (2, 2), (1, 1), (1, 1, 1, 1), 100),
    "1x11_c16_border_columns": ((1, 3, 10, 16), (1, 11), 1, (1, 1), (1, 1), (0, 0, 5, 5), -128),
    "3x3_c16_m2_border": ((1, 5, 6, 16), (3, 3), 2, (1, 1), (1, 1), (2, 1, 2, 1), 3),
    "3x3_c6_m1_tail2": ((1, 6, 9, 6), (3, 3), 1, (1, 1), (1, 1), (0, 2, 2, 0), -128),
    "1x1_c9_m4": ((1, 3, 3, 9), (1, 1), 4, (1, 1), (1, 1), (0, 0, 0, 0), 127),
    "3x3_c16_wide": ((1, 4, 13, 16), (3, 3), 1, (1, 1), (1, 1), (1, 1, 1, 1), 0),
}


# int4 weights [KH, KW, C·M], unpacked into the scratch at every run: rows of KW·C·M = 1, 15, 16,
# 17, 31, 32, 33, 63, 64, 65 and longer; C >= 16 and 3x3 blocks (the fast path, with the padded
# rows staged after the weights on Helium), M > 1, dilation, input zero points at the ends
INT4_CASES = {
    "int4_1x1_c1_r1": ((1, 5, 11, 1), (1, 1), 1, (1, 1), (1, 1), (0, 0, 0, 0), -128),
    "int4_3x3_c5_r15": ((1, 9, 9, 5), (3, 3), 1, (1, 1), (2, 2), (2, 1, 2, 3), 127),
    "int4_3x1_c16_r16": ((1, 6, 5, 16), (3, 1), 1, (1, 1), (1, 1), (1, 1, 0, 0), -128),
    "int4_1x1_c17_r17": ((1, 3, 9, 17), (1, 1), 1, (1, 1), (1, 1), (0, 0, 0, 0), 127),
    "int4_1x1_c31_r31": ((1, 4, 4, 31), (1, 1), 1, (2, 2), (1, 1), (0, 0, 0, 0), -128),
    "int4_2x2_c16_r32": ((1, 5, 6, 16), (2, 2), 1, (1, 1), (1, 1), (1, 0, 1, 0), 127),
    "int4_3x3_c11_r33": ((1, 7, 8, 11), (3, 3), 1, (2, 2), (1, 1), (1, 1, 1, 1), -128),
    "int4_3x3_c21_r63": ((1, 4, 6, 21), (3, 3), 1, (1, 1), (1, 1), (1, 1, 1, 1), 127),
    "int4_1x2_c32_r64": ((1, 3, 7, 32), (1, 2), 1, (1, 1), (1, 1), (0, 0, 1, 0), -128),
    "int4_5x1_c65_r65": ((1, 7, 3, 65), (5, 1), 1, (1, 1), (1, 1), (2, 2, 0, 0), 127),
    "int4_3x3_c8_block4": ((1, 6, 9, 8), (3, 3), 1, (1, 1), (1, 1), (1, 1, 1, 1), -128),
    "int4_3x3_c64_r192": ((1, 12, 5, 64), (3, 3), 1, (1, 1), (1, 1), (1, 1, 1, 1), 127),
    "int4_3x3_m2_s2_c3_r18": ((2, 7, 9, 3), (3, 3), 2, (2, 2), (1, 1), (0, 1, 1, 0), -128),
    "int4_5x3_m3_c17_r153": ((1, 6, 11, 17), (5, 3), 3, (1, 2), (1, 1), (2, 2, 1, 1), 127),
    "int4_1x11_c16_border_columns": ((1, 3, 10, 16), (1, 11), 1, (1, 1), (1, 1), (0, 0, 5, 5), -128),
    # rows too wide to stage (> EM_NN_DWF_ROWS_MAX): Helium's tap tables, the scratch only the weights
    "int4_3x3_c64_w30_taps": ((1, 4, 30, 64), (3, 3), 1, (1, 1), (1, 1), (1, 1, 1, 1), 127),
}

RANDOM = 12  # more cases on seeded random windows, channel counts and multipliers
INT4_RANDOM = 8


def random_cases(count: int = RANDOM, prefix: str = "random") -> dict:
    found = {}
    for i in range(count):
        rng = rng_for("depthwise_conv2d", prefix, i)
        win = random_window(rng)
        m = int(rng.choice([1, 1, 1, 2, 3]))
        shape = (int(rng.integers(1, 3)), *win["size"], int(rng.integers(1, 40)))
        in_zp = [-128, 127, 0, int(rng.integers(-128, 128))][i % 4]
        found[f"{prefix}{i}"] = (shape, win["kernel"], m, win["stride"], win["dilation"], win["padding"], in_zp)
    return found


def case(k: int, name: str, shape, kernel, m, stride, dilation, padding, in_zp, weights: str = "int8") -> Case:
    rng = rng_for("depthwise_conv2d", name)
    c_out = shape[3] * m
    int4 = weights == "int4"
    w = (edge_int4 if int4 else edge_int8)(rng, (*kernel, c_out))
    # int4 blocks of 4 pixels want every shift <= -2 (no left shifts), as Helium's fast path does
    lefts = 0.0 if name.endswith("block4") else 0.1
    multiplier, shift = requantization(rng, c_out, kernel[0] * kernel[1], lefts, gain=16.0 if int4 else 1.0)
    bias_range = int(3000 * np.sqrt(kernel[0] * kernel[1])) // (16 if int4 else 1)
    bias = rng.integers(-bias_range, bias_range, size=c_out, dtype=np.int32)
    out_zp = [-128, 127, 0, int(rng.integers(-128, 128))][k % 4]
    act = (-128, 127) if k % 3 else (-100, 90)
    attrs = dict(stride=stride, dilation=dilation, padding=padding, depth_multiplier=m, input_zero_point=in_zp,
                 output_offset=out_zp, activation_min=act[0], activation_max=act[1], multiplier=multiplier, shift=shift)
    return conv_case("depthwise_conv2d", name, edge_int8(rng, shape), w, bias, attrs, {}, weights)


def edge_cases() -> list[Case]:
    """Every input at the input zero point (padding too), so each accumulator is its bias: the
    requantization's ties (both signs) and extremes, per output channel, on lane tails."""
    out = []
    for shape, m in (((1, 3, 5, 20), 1), ((1, 2, 7, 37), 2)):
        c_out, in_zp = shape[3] * m, [-128, 127][m % 2]
        bias, multiplier, shift = requantization_edges(c_out)
        w = edge_int8(rng_for("depthwise_conv2d", "edges", c_out), (3, 3, c_out))
        attrs = dict(stride=(1, 1), dilation=(1, 1), padding=(1, 1, 1, 1), depth_multiplier=m, input_zero_point=in_zp,
                     output_offset=0, activation_min=-128, activation_max=127, multiplier=multiplier, shift=shift)
        out.append(conv_case("depthwise_conv2d", f"requantize_edges_c{c_out}", np.full(shape, in_zp, np.int8), w, bias,
                             attrs, {"bias": "ties and INT32 extremes"}))
    return out


def cases() -> list[Case]:
    int4 = {**INT4_CASES, **random_cases(INT4_RANDOM, "int4_random")}
    return ([case(k, name, *spec) for k, (name, spec) in enumerate({**CASES, **random_cases()}.items())] + edge_cases()
            + [case(k, name, *spec, weights="int4") for k, (name, spec) in enumerate(int4.items())] + cases_s16())


# ---- int16 activations, int8 weights (A16W8: em_depthwise_conv2d_s16) -----------------------
# name: (input NHWC, kernel (KH, KW), multiplier, stride, dilation, padding (t, b, l, r)).
# KWS's 3x3 on 64 channels, channels 1, 3, 7, 17, 33 around Helium's 4-channel vectors, M > 1
# (the channel-by-channel path), borders fully padded, stride, dilation; 23x23 = 529 taps (past
# the 511 a 32-bit lane sums exactly: 64-bit sums).
S16_CASES = {
    "s16_3x3_c64": ((1, 12, 5, 64), (3, 3), 1, (1, 1), (1, 1), (1, 1, 1, 1)),
    "s16_3x3_c1": ((1, 5, 11, 1), (3, 3), 1, (1, 1), (1, 1), (1, 1, 1, 1)),
    "s16_3x3_c3_s2": ((2, 7, 9, 3), (3, 3), 1, (2, 2), (1, 1), (0, 1, 1, 0)),
    "s16_3x3_c7": ((1, 4, 6, 7), (3, 3), 1, (1, 1), (1, 1), (1, 1, 1, 1)),
    "s16_3x3_c17_s2": ((1, 7, 8, 17), (3, 3), 1, (2, 2), (1, 1), (1, 1, 1, 1)),
    "s16_3x3_c33_dil2": ((1, 9, 9, 33), (3, 3), 1, (1, 1), (2, 2), (2, 1, 2, 3)),
    "s16_5x1_c7": ((1, 9, 6, 7), (5, 1), 1, (1, 1), (1, 1), (2, 2, 0, 0)),
    "s16_1x1_c7": ((1, 3, 4, 7), (1, 1), 1, (1, 1), (1, 1), (0, 0, 0, 0)),
    "s16_10x4_c7": ((1, 10, 4, 7), (10, 4), 1, (2, 1), (1, 1), (4, 5, 1, 2)),
    "s16_3x3_m2_c3": ((2, 7, 9, 3), (3, 3), 2, (2, 2), (1, 1), (0, 1, 1, 0)),
    "s16_5x3_m3_c17": ((1, 6, 11, 17), (5, 3), 3, (1, 2), (1, 1), (2, 2, 1, 1)),
    "s16_1x1_m4_c9": ((1, 3, 3, 9), (1, 1), 4, (1, 1), (1, 1), (0, 0, 0, 0)),
    "s16_all_padding_rows_c6": ((1, 2, 3, 6), (3, 3), 1, (1, 1), (1, 1), (2, 2, 2, 2)),
    "s16_23x23_c5_taps529": ((1, 24, 24, 5), (23, 23), 1, (1, 1), (1, 1), (0, 0, 0, 0)),
}
S16_RANDOM = 8


def random_cases_s16(count: int = S16_RANDOM) -> dict:
    found = {}
    for i in range(count):
        rng = rng_for("depthwise_conv2d", "s16_random", i)
        win = random_window(rng)
        m = int(rng.choice([1, 1, 1, 2, 3]))
        shape = (int(rng.integers(1, 3)), *win["size"], int(rng.integers(1, 40)))
        found[f"s16_random{i}"] = (shape, win["kernel"], m, win["stride"], win["dilation"], win["padding"])
    return found


def case_s16(k: int, name: str, shape, kernel, m, stride, dilation, padding) -> Case:
    rng = rng_for("depthwise_conv2d", name)
    c_out = shape[3] * m
    taps = kernel[0] * kernel[1]
    w = edge_int8(rng, (*kernel, c_out))
    multiplier, shift = requantization_s16(rng, c_out, taps, tiny=k % 2 == 1)  # even k: Helium's 8-channel steps
    bias_range = int(2**21 * np.sqrt(taps))
    bias = rng.integers(-bias_range, bias_range, size=c_out, dtype=np.int64).astype(np.int32)
    act = activation_s16(k)
    attrs = dict(stride=stride, dilation=dilation, padding=padding, depth_multiplier=m, activation_min=act[0],
                 activation_max=act[1], multiplier=multiplier, shift=shift)
    return conv_case_s16("depthwise_conv2d", name, edge_int16(rng, shape), w, bias, attrs)


def extreme_cases_s16() -> list[Case]:
    """Lane sums at their bound (every input -32768, weights -128: taps · 2^22) with a bias at
    the int32 ends (beyond int32 together: 64-bit on every tier), 529 taps of them; inputs 0,
    accumulators = bias: the rounding's ties and extremes (requantization_edges_s16)."""
    out = []
    for name, shape, kernel in (("s16_big_acc_3x3_c9", (1, 4, 5, 9), (3, 3)),
                                ("s16_big_acc_23x23_c6", (1, 23, 24, 6), (23, 23))):
        c = shape[3]
        w = np.full((*kernel, c), -128, np.int8)
        w[..., 1::2] = 127
        taps = kernel[0] * kernel[1]
        pairs = [quantize_multiplier(2.0**15 / (taps * 2.0**22) * f) for f in (0.9, 0.5, 1.7, 0.3, 0.05, 0.01)]
        multiplier = np.array([pairs[i % 6][0] for i in range(c)], np.int32)
        shift = np.array([pairs[i % 6][1] for i in range(c)], np.int32)
        bias = np.array([(2**31 - 1, -(2**31), 0)[i % 3] for i in range(c)], np.int32)
        attrs = dict(stride=(1, 1), dilation=(1, 1), padding=(0, 0, 0, 0), depth_multiplier=1,
                     activation_min=-(2**15), activation_max=2**15 - 1, multiplier=multiplier, shift=shift)
        out.append(conv_case_s16("depthwise_conv2d", name, np.full(shape, -(2**15), np.int16), w, bias, attrs,
                                 {"accumulator": "beyond int32"}))
    for shape, m, vector in (((1, 3, 5, 20), 1, False), ((1, 2, 7, 37), 2, False), ((1, 3, 5, 21), 1, True),
                             ((1, 2, 7, 43), 1, True)):
        c_out = shape[3] * m
        bias, multiplier, shift = requantization_edges_s16(c_out, vector)
        w = edge_int8(rng_for("depthwise_conv2d", "s16_edges", c_out), (3, 3, c_out))
        attrs = dict(stride=(1, 1), dilation=(1, 1), padding=(1, 1, 1, 1), depth_multiplier=m,
                     activation_min=-(2**15), activation_max=2**15 - 1, multiplier=multiplier, shift=shift)
        out.append(conv_case_s16("depthwise_conv2d", f"s16_requantize_edges_c{c_out}", np.zeros(shape, np.int16), w,
                                 bias, attrs, {"bias": "ties and large biases", "sum32": vector}))
    return out


def cases_s16() -> list[Case]:
    return ([case_s16(k, name, *spec) for k, (name, spec) in enumerate({**S16_CASES, **random_cases_s16()}.items())]
            + extreme_cases_s16())
