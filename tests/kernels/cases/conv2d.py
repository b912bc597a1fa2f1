"""conv2d: 1x1 (in place and padded), 3x3, wide K (taps without scratch), grouped, dilated,
strided, asymmetric padding, channel tails around SMLAD words / MVE lanes, input zero points at
the ends (padding = the zero point), clamps, shifts > 0; int4 weights (A8W4), rows of
KH·KW·C_IN/groups around the 32-element blocks of their packing; int16 activations (A16W8):
in-place, packed and tap-by-tap columns, output channels around Helium's four-row blocks,
-32768 / 32767 inputs, accumulators beyond int32, shifts -31..14, ReLU and narrower clamps."""
from __future__ import annotations

import numpy as np

from conformance import (Case, edge_int16, conv_case, edge_int4, edge_int8, random_window, requantization, requantization_edges,
                         rng_for)
from compiler.fixedpoint import quantize_multiplier
from cases._s16 import activation_s16, conv_case_s16, requantization_edges_s16, requantization_s16

# name: (input NHWC, kernel (KH, KW), C_OUT, groups, stride, dilation, padding (t, b, l, r), input zp)
CASES = {
    "1x1_c64_o33": ((1, 5, 5, 64), (1, 1), 33, 1, (1, 1), (1, 1), (0, 0, 0, 0), 7),
    "1x1_padded_c17": ((1, 3, 10, 17), (1, 1), 6, 1, (1, 1), (1, 1), (1, 0, 0, 1), -3),
    "1x1_c1": ((1, 5, 4, 1), (1, 1), 3, 1, (1, 1), (1, 1), (0, 0, 0, 0), -128),
    "1x1_s2_c5": ((2, 7, 6, 5), (1, 1), 7, 1, (2, 2), (1, 1), (0, 0, 0, 0), 127),
    "3x3_c3_o16": ((1, 7, 9, 3), (3, 3), 16, 1, (1, 1), (1, 1), (1, 1, 1, 1), -128),
    "3x3_s2_asym": ((2, 9, 8, 3), (3, 3), 5, 1, (2, 2), (1, 1), (0, 1, 0, 1), 127),
    "3x3_c5_o7_s1x2": ((1, 6, 9, 5), (3, 3), 7, 1, (1, 2), (1, 1), (1, 1, 1, 1), 127),
    "3x3_c64_o6": ((1, 5, 4, 64), (3, 3), 6, 1, (1, 1), (1, 1), (1, 1, 1, 1), -128),
    "3x3_c128_no_scratch": ((1, 4, 3, 128), (3, 3), 7, 1, (1, 1), (1, 1), (1, 1, 1, 1), 127),
    "3x3_c260_taps": ((1, 3, 3, 260), (3, 3), 5, 1, (1, 1), (1, 1), (1, 1, 1, 1), 127),  # K = 2340: tap by tap
    "1x3_row": ((1, 4, 9, 17), (1, 3), 7, 1, (1, 1), (1, 1), (0, 0, 1, 1), -128),
    "5x3_dil2": ((1, 9, 8, 17), (5, 3), 9, 1, (1, 1), (2, 2), (2, 3, 1, 2), -128),
    "3x3_dil2x1_s2x1_groups3": ((2, 5, 6, 6), (3, 2), 9, 3, (2, 1), (2, 1), (3, 0, 1, 0), 1),
    "3x3_groups4_c32": ((1, 6, 5, 32), (3, 3), 8, 4, (1, 1), (1, 1), (1, 0, 2, 1), 127),
    "1x1_groups2_c10": ((1, 3, 5, 10), (1, 1), 6, 2, (1, 1), (1, 1), (0, 0, 0, 0), -128),
    "2x2_s3_valid": ((1, 8, 7, 4), (2, 2), 5, 1, (3, 3), (1, 1), (0, 0, 0, 0), 0),
    "7x1_pad_all": ((1, 3, 2, 2), (7, 1), 3, 1, (1, 1), (1, 1), (3, 3, 0, 0), -128),
    # MVE two-column x three-row chunks (up to 60 channels, multiples of 12) and their leftovers;
    # K = 16 (no step after the peeled one), K = 17 (one predicated step), K < 16; odd pixel
    # counts (a last single column). DSP: in-place pairs sign-extended once (K >= 32, K % 4 tail,
    # an odd last row).
    "1x1_c16_o75_px7": ((1, 1, 7, 16), (1, 1), 75, 1, (1, 1), (1, 1), (0, 0, 0, 0), -128),
    "1x1_c17_o29_px9": ((1, 3, 3, 17), (1, 1), 29, 1, (1, 1), (1, 1), (0, 0, 0, 0), 127),
    "1x1_c35_o13": ((1, 2, 5, 35), (1, 1), 13, 1, (1, 1), (1, 1), (0, 0, 0, 0), 127),
    "1x1_c64_o61": ((1, 5, 5, 64), (1, 1), 61, 1, (1, 1), (1, 1), (0, 0, 0, 0), -128),
    "1x1_c8_o12_k8": ((1, 3, 5, 8), (1, 1), 12, 1, (1, 1), (1, 1), (0, 0, 0, 0), 127),
    # windows inside the input packed as KH row runs (dilation_h 2), borders by fill/copy/fill
    "3x3_dil2x1_c5_o26": ((1, 8, 6, 5), (3, 3), 26, 1, (1, 1), (2, 1), (2, 2, 1, 1), 127),
    "3x3_s2_c8_o14": ((1, 9, 9, 8), (3, 3), 14, 1, (2, 2), (1, 1), (1, 1, 1, 1), -128),
    "10x4_s2_c1_o24": ((1, 13, 7, 1), (10, 4), 24, 1, (2, 2), (1, 1), (4, 5, 1, 1), 127),
    # MVE column blocks: K % 16 = 15 (7 outputs), a strided 1x1 of K = 33, K = 288 (9 outputs)
    "1x1_c15_o7": ((1, 3, 7, 15), (1, 1), 7, 1, (1, 1), (1, 1), (0, 0, 0, 0), -128),
    "1x1_s2_c33_o5": ((1, 6, 7, 33), (1, 1), 5, 1, (2, 2), (1, 1), (0, 0, 0, 0), 127),
    "3x3_c32_o9": ((1, 5, 7, 32), (3, 3), 9, 1, (1, 1), (1, 1), (1, 1, 1, 1), -1),
}


# int4 weights, unpacked into the scratch at every run: rows of KH·KW·C_IN/groups = 1, 15, 16, 17,
# 31, 32, 33, 63, 64, 65 and longer (blocks of 32 and their tails), a kernel part of the scratch
# (packed columns) or none, grouped, dilated, input zero points at the ends
INT4_CASES = {
    "int4_1x1_c1_k1": ((1, 5, 4, 1), (1, 1), 3, 1, (1, 1), (1, 1), (0, 0, 0, 0), -128),
    "int4_1x1_c15_k15": ((1, 3, 7, 15), (1, 1), 7, 1, (1, 1), (1, 1), (0, 0, 0, 0), 127),
    "int4_1x1_c16_k16": ((1, 1, 7, 16), (1, 1), 75, 1, (1, 1), (1, 1), (0, 0, 0, 0), -128),
    "int4_1x1_padded_c17_k17": ((1, 3, 10, 17), (1, 1), 6, 1, (1, 1), (1, 1), (1, 0, 0, 1), 127),
    "int4_1x1_c31_k31": ((1, 2, 5, 31), (1, 1), 13, 1, (1, 1), (1, 1), (0, 0, 0, 0), -128),
    "int4_1x1_s2_c32_k32": ((2, 7, 6, 32), (1, 1), 9, 1, (2, 2), (1, 1), (0, 0, 0, 0), 127),
    "int4_1x3_c11_k33": ((1, 4, 9, 11), (1, 3), 7, 1, (1, 1), (1, 1), (0, 0, 1, 1), -128),
    "int4_3x3_c7_k63": ((1, 6, 9, 7), (3, 3), 5, 1, (1, 2), (1, 1), (1, 1, 1, 1), 127),
    "int4_1x1_c64_k64": ((1, 5, 5, 64), (1, 1), 33, 1, (1, 1), (1, 1), (0, 0, 0, 0), -128),
    "int4_1x1_c65_k65": ((1, 3, 3, 65), (1, 1), 4, 1, (1, 1), (1, 1), (0, 0, 0, 0), 127),
    "int4_3x3_c3_o16_k27": ((1, 7, 9, 3), (3, 3), 16, 1, (1, 1), (1, 1), (1, 1, 1, 1), -128),
    "int4_3x3_s2_asym_k27": ((2, 9, 8, 3), (3, 3), 5, 1, (2, 2), (1, 1), (0, 1, 0, 1), 127),
    "int4_3x3_c64_o6_k576": ((1, 5, 4, 64), (3, 3), 6, 1, (1, 1), (1, 1), (1, 1, 1, 1), -128),
    "int4_3x3_c260_taps": ((1, 3, 3, 260), (3, 3), 5, 1, (1, 1), (1, 1), (1, 1, 1, 1), 127),
    "int4_5x3_dil2_c17_k255": ((1, 9, 8, 17), (5, 3), 9, 1, (1, 1), (2, 2), (2, 3, 1, 2), 127),
    "int4_3x2_groups3_k12": ((2, 5, 6, 6), (3, 2), 9, 3, (2, 1), (2, 1), (3, 0, 1, 0), -128),
    "int4_3x3_groups4_c32_k72": ((1, 6, 5, 32), (3, 3), 8, 4, (1, 1), (1, 1), (1, 0, 2, 1), 127),
    "int4_10x4_s2_c1_k40": ((1, 13, 7, 1), (10, 4), 24, 1, (2, 2), (1, 1), (4, 5, 1, 1), -128),
}

RANDOM = 12  # more cases on seeded random windows and channel counts
INT4_RANDOM = 8


def random_cases(count: int = RANDOM, prefix: str = "random") -> dict:
    found = {}
    for i in range(count):
        rng = rng_for("conv2d", prefix, i)
        win = random_window(rng)
        groups = int(rng.choice([1, 1, 1, 2, 3, 4]))
        c_in, c_out = groups * int(rng.integers(1, 13)), groups * int(rng.integers(1, 7))
        shape = (int(rng.integers(1, 3)), *win["size"], c_in)
        in_zp = [-128, 127, 0, int(rng.integers(-128, 128))][i % 4]
        found[f"{prefix}{i}"] = (shape, win["kernel"], c_out, groups, win["stride"], win["dilation"], win["padding"],
                                 in_zp)
    return found


def case(k: int, name: str, shape, kernel, c_out, groups, stride, dilation, padding, in_zp,
         weights: str = "int8") -> Case:
    rng = rng_for("conv2d", name)
    taps = kernel[0] * kernel[1] * (shape[3] // groups)
    int4 = weights == "int4"
    w = (edge_int4 if int4 else edge_int8)(rng, (c_out, *kernel, shape[3] // groups))
    multiplier, shift = requantization(rng, c_out, taps, gain=16.0 if int4 else 1.0)
    bias_range = int(3000 * np.sqrt(taps)) // (16 if int4 else 1)
    bias = rng.integers(-bias_range, bias_range, size=c_out, dtype=np.int32)
    out_zp = [-128, 127, 0, int(rng.integers(-128, 128))][k % 4]
    act = (-128, 127) if k % 3 else (-100, 90)
    attrs = dict(stride=stride, dilation=dilation, padding=padding, groups=groups, input_zero_point=in_zp,
                 output_offset=out_zp, activation_min=act[0], activation_max=act[1], multiplier=multiplier, shift=shift)
    return conv_case("conv2d", name, edge_int8(rng, shape), w, bias, attrs, {}, weights)


def edge_cases() -> list[Case]:
    """Every input at the input zero point (padding too), so each accumulator is its bias: the
    requantization's ties (both signs) and extremes, per output channel, on lane tails."""
    out = []
    for shape, c_out in (((1, 3, 5, 3), 20), ((1, 2, 7, 16), 37)):
        in_zp = [-128, 127][c_out % 2]
        bias, multiplier, shift = requantization_edges(c_out)
        w = edge_int8(rng_for("conv2d", "edges", c_out), (c_out, 3, 3, shape[3]))
        attrs = dict(stride=(1, 1), dilation=(1, 1), padding=(1, 1, 1, 1), groups=1, input_zero_point=in_zp,
                     output_offset=0, activation_min=-128, activation_max=127, multiplier=multiplier, shift=shift)
        out.append(conv_case("conv2d", f"requantize_edges_c{c_out}", np.full(shape, in_zp, np.int8), w, bias, attrs,
                             {"bias": "ties and INT32 extremes"}))
    return out


def cases() -> list[Case]:
    int4 = {**INT4_CASES, **random_cases(INT4_RANDOM, "int4_random")}
    return ([case(k, name, *spec) for k, (name, spec) in enumerate({**CASES, **random_cases()}.items())] + edge_cases()
            + [case(k, name, *spec, weights="int4") for k, (name, spec) in enumerate(int4.items())] + cases_s16())


# ---- int16 activations, int8 weights (A16W8: em_conv2d_s16) ---------------------------------
# name: (input NHWC, kernel (KH, KW), C_OUT, groups, stride, dilation, padding (t, b, l, r)).
# In-place columns (1x1, 1xKW rows), packed ones (borders, 3x3, KWS's 10x4 stride 2 on one
# channel), taps without scratch (K = 2340 > EM_NN_CONV_S16_MAX_COLUMN), grouped, dilated;
# output channels 1, 3, 7, 17, 33, 64 around Helium's four-row blocks, K around its 8 lanes.
S16_CASES = {
    "s16_1x1_c64_o64": ((1, 5, 5, 64), (1, 1), 64, 1, (1, 1), (1, 1), (0, 0, 0, 0)),
    "s16_1x1_c17_o33_padded": ((1, 3, 10, 17), (1, 1), 33, 1, (1, 1), (1, 1), (1, 0, 0, 1)),
    "s16_1x1_c1_o3": ((1, 5, 4, 1), (1, 1), 3, 1, (1, 1), (1, 1), (0, 0, 0, 0)),
    "s16_1x1_s2_c7_o5": ((2, 7, 6, 7), (1, 1), 5, 1, (2, 2), (1, 1), (0, 0, 0, 0)),
    "s16_1x1_c8_o7": ((1, 3, 5, 8), (1, 1), 7, 1, (1, 1), (1, 1), (0, 0, 0, 0)),
    "s16_3x3_c3_o16": ((1, 7, 9, 3), (3, 3), 16, 1, (1, 1), (1, 1), (1, 1, 1, 1)),
    "s16_3x3_s2_asym_c3_o5": ((2, 9, 8, 3), (3, 3), 5, 1, (2, 2), (1, 1), (0, 1, 0, 1)),
    "s16_3x3_c33_o7": ((1, 5, 4, 33), (3, 3), 7, 1, (1, 1), (1, 1), (1, 1, 1, 1)),
    "s16_5x1_c7_o9": ((1, 9, 6, 7), (5, 1), 9, 1, (1, 1), (1, 1), (2, 2, 0, 0)),
    "s16_1x3_row_c17_o7": ((1, 4, 9, 17), (1, 3), 7, 1, (1, 1), (1, 1), (0, 0, 1, 1)),
    "s16_10x4_s2_c1_o24": ((1, 13, 7, 1), (10, 4), 24, 1, (2, 2), (1, 1), (4, 5, 1, 1)),
    "s16_5x3_dil2_c17_o9": ((1, 9, 8, 17), (5, 3), 9, 1, (1, 1), (2, 2), (2, 3, 1, 2)),
    "s16_3x2_groups3_c6_o9": ((2, 5, 6, 6), (3, 2), 9, 3, (2, 1), (2, 1), (3, 0, 1, 0)),
    "s16_1x1_groups2_c10_o6": ((1, 3, 5, 10), (1, 1), 6, 2, (1, 1), (1, 1), (0, 0, 0, 0)),
    "s16_3x3_c260_o5_taps": ((1, 3, 3, 260), (3, 3), 5, 1, (1, 1), (1, 1), (1, 1, 1, 1)),
    "s16_7x1_pad_all_c2_o3": ((1, 3, 2, 2), (7, 1), 3, 1, (1, 1), (1, 1), (3, 3, 0, 0)),
}
S16_RANDOM = 8


def random_cases_s16(count: int = S16_RANDOM) -> dict:
    found = {}
    for i in range(count):
        rng = rng_for("conv2d", "s16_random", i)
        win = random_window(rng)
        groups = int(rng.choice([1, 1, 1, 2, 3]))
        c_in, c_out = groups * int(rng.integers(1, 13)), groups * int(rng.integers(1, 10))
        shape = (int(rng.integers(1, 3)), *win["size"], c_in)
        found[f"s16_random{i}"] = (shape, win["kernel"], c_out, groups, win["stride"], win["dilation"], win["padding"])
    return found


def case_s16(k: int, name: str, shape, kernel, c_out, groups, stride, dilation, padding) -> Case:
    rng = rng_for("conv2d", name)
    taps = kernel[0] * kernel[1] * (shape[3] // groups)
    w = edge_int8(rng, (c_out, *kernel, shape[3] // groups))
    multiplier, shift = requantization_s16(rng, c_out, taps, tiny=k % 2 == 1)  # even k: Helium's 32-bit sums
    bias_range = int(2**21 * np.sqrt(taps))
    bias = rng.integers(-bias_range, bias_range, size=c_out, dtype=np.int64).astype(np.int32)
    act = activation_s16(k)
    attrs = dict(stride=stride, dilation=dilation, padding=padding, groups=groups, activation_min=act[0],
                 activation_max=act[1], multiplier=multiplier, shift=shift)
    return conv_case_s16("conv2d", name, edge_int16(rng, shape), w, bias, attrs)


def big_accumulator_requantization(taps: int, n: int):
    """Multipliers that bring sums of `taps` products of 2^22 (beyond int32) back near the int16
    range (shifts about -17..-21: both sides of Helium's E <= 32 vector form)."""
    pairs = [quantize_multiplier(2.0**15 / (taps * 2.0**22) * f) for f in (0.9, 0.5, 1.7, 0.3, 0.05, 0.01)[:n]]
    return np.array([m for m, _ in pairs], np.int32), np.array([s for _, s in pairs], np.int32)


def extreme_cases_s16() -> list[Case]:
    """Accumulators beyond int32 (every input -32768, weights ±128 / 127: K · 2^22), on Helium's
    64-bit sums; a bias at the int32 ends; then inputs 0, accumulators = bias: the rounding's
    ties and extremes (requantization_edges_s16)."""
    out = []
    for name, shape, kernel, c_out in (("s16_big_acc_1x1_c600_o5", (1, 2, 2, 600), (1, 1), 5),
                                        ("s16_big_acc_3x3_c64_o6", (1, 4, 3, 64), (3, 3), 6)):
        rng = rng_for("conv2d", name)
        w = np.where(rng.random((c_out, *kernel, shape[3])) < 0.5, -128, 127).astype(np.int8)
        w[0] = -128  # row 0: K · 2^22 exactly
        taps = kernel[0] * kernel[1] * shape[3]
        multiplier, shift = big_accumulator_requantization(taps, c_out)
        bias = np.array([2**31 - 1, -(2**31)] + [0] * (c_out - 2), np.int32)
        attrs = dict(stride=(1, 1), dilation=(1, 1), padding=(1, 1, 1, 1) if kernel != (1, 1) else (0, 0, 0, 0),
                     groups=1, activation_min=-(2**15), activation_max=2**15 - 1, multiplier=multiplier, shift=shift)
        out.append(conv_case_s16("conv2d", name, np.full(shape, -(2**15), np.int16), w, bias, attrs,
                                 {"accumulator": "beyond int32"}))
    for shape, c_out, vector in (((1, 3, 5, 3), 20, False), ((1, 2, 7, 16), 37, False), ((1, 3, 5, 3), 21, True),
                                 ((1, 2, 7, 1), 38, True)):
        bias, multiplier, shift = requantization_edges_s16(c_out, vector)
        w = edge_int8(rng_for("conv2d", "s16_edges", c_out), (c_out, 3, 3, shape[3]))
        attrs = dict(stride=(1, 1), dilation=(1, 1), padding=(1, 1, 1, 1), groups=1, activation_min=-(2**15),
                     activation_max=2**15 - 1, multiplier=multiplier, shift=shift)
        out.append(conv_case_s16("conv2d", f"s16_requantize_edges_c{c_out}", np.zeros(shape, np.int16), w, bias,
                                 attrs, {"bias": "ties and large biases", "sum32": vector}))
    # pointwise (every column in place, each 4 channels over all pixels on Helium) at the edges
    bias, multiplier, shift = requantization_edges_s16(23, True)
    attrs = dict(stride=(1, 1), dilation=(1, 1), padding=(0, 0, 0, 0), groups=1, activation_min=-(2**15),
                 activation_max=2**15 - 1, multiplier=multiplier, shift=shift)
    out.append(conv_case_s16("conv2d", "s16_requantize_edges_1x1_c23", np.zeros((1, 3, 4, 9), np.int16),
                             edge_int8(rng_for("conv2d", "s16_edges_1x1"), (23, 1, 1, 9)), bias, attrs,
                             {"bias": "ties and large biases", "sum32": True}))
    return out


def cases_s16() -> list[Case]:
    return ([case_s16(k, name, *spec) for k, (name, spec) in enumerate({**S16_CASES, **random_cases_s16()}.items())]
            + extreme_cases_s16())
