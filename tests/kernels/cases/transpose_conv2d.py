"""transpose_conv2d: output channels in blocks of 4 with tails 1..3, input channels around the
MVE lanes (8 / 16) and DSP words (4), strides 1..3, kernels 1..5, crops (padding) and output
padding (negative bottom / right), batches, input zero points at the ends, clamps, shifts > 0,
the requantization's ties and extremes (inputs at the zero point: accumulators = bias); int4
weights (A8W4), rows of KH·KW·C_IN around the 32-element blocks of their packing."""
from __future__ import annotations

import numpy as np

from compiler import reference
from conformance import (Case, edge_int4, edge_int8, int8_tensor, requantization, requantization_edges, rng_for,
                         single_op, weight_tensor, zero_point)
from compiler.ir import Tensor

# name: (input NHWC, C_OUT, kernel (KH, KW), stride, padding (top, bottom, left, right))
CASES = {
    "1x1_s1_c16_o4": ((1, 3, 3, 16), 4, (1, 1), (1, 1), (0, 0, 0, 0)),
    "2x2_s2_c1_o1": ((1, 3, 4, 1), 1, (2, 2), (2, 2), (0, 0, 0, 0)),
    "3x3_s2_p1_op1_c8_o8": ((1, 4, 4, 8), 8, (3, 3), (2, 2), (1, 0, 1, 0)),
    "3x3_s1_p1_c17_o5": ((1, 4, 3, 17), 5, (3, 3), (1, 1), (1, 1, 1, 1)),
    "4x4_s2_p1_c3_o6": ((2, 3, 3, 3), 6, (4, 4), (2, 2), (1, 1, 1, 1)),
    "5x5_s3_op2_c5_o7": ((1, 2, 3, 5), 7, (5, 5), (3, 3), (2, 0, 1, -1)),
    "3x1_s3x1_c15_o3": ((1, 3, 4, 15), 3, (3, 1), (3, 1), (0, -2, 0, 0)),
    "1x5_s1x2_c7_o2": ((1, 2, 5, 7), 2, (1, 5), (1, 2), (0, 0, 2, 1)),
    "2x3_s3x2_c9_o9": ((2, 2, 3, 9), 9, (2, 3), (3, 2), (1, -1, 0, -1)),
    "1x1_s2_c32_o12": ((1, 2, 3, 32), 12, (1, 1), (2, 2), (0, -1, 0, -1)),
    "3x3_s2_c33_o4": ((1, 2, 2, 33), 4, (3, 3), (2, 2), (0, 0, 0, 0)),
    "1x1_c2_o1_single": ((1, 1, 1, 2), 1, (1, 1), (1, 1), (0, 0, 0, 0)),
    "5x4_s1_crop4_c4_o11": ((1, 5, 4, 4), 11, (5, 4), (1, 1), (4, 0, 0, 3)),
}

# int4 weights [C_OUT, KH, KW, C_IN], unpacked into the scratch at every run: rows of KH·KW·C_IN =
# 1, 15, 16, 17, 31, 32, 33, 63, 64, 65 and longer, input zero points at the ends
INT4_CASES = {
    "int4_1x1_c1_o1_r1": ((1, 3, 4, 1), 1, (1, 1), (2, 2), (0, 0, 0, 0)),
    "int4_1x5_s1x2_c3_o2_r15": ((1, 2, 5, 3), 2, (1, 5), (1, 2), (0, 0, 2, 1)),
    "int4_1x1_c16_o4_r16": ((1, 3, 3, 16), 4, (1, 1), (1, 1), (0, 0, 0, 0)),
    "int4_1x1_s2_c17_o5_r17": ((2, 2, 3, 17), 5, (1, 1), (2, 2), (0, -1, 0, -1)),
    "int4_1x1_c31_o3_r31": ((1, 3, 2, 31), 3, (1, 1), (1, 1), (0, 0, 0, 0)),
    "int4_4x4_s2_p1_c2_o6_r32": ((2, 3, 3, 2), 6, (4, 4), (2, 2), (1, 1, 1, 1)),
    "int4_3x1_s3x1_c11_o3_r33": ((1, 3, 4, 11), 3, (3, 1), (3, 1), (0, -2, 0, 0)),
    "int4_3x3_s2_c7_o9_r63": ((1, 4, 4, 7), 9, (3, 3), (2, 2), (1, 0, 1, 0)),
    "int4_2x2_s2_c16_o7_r64": ((1, 3, 2, 16), 7, (2, 2), (2, 2), (0, 0, 0, 0)),
    "int4_5x1_s1_c13_o5_r65": ((1, 3, 3, 13), 5, (5, 1), (1, 1), (2, 2, 0, 0)),
    "int4_3x3_s2_c33_o4_r297": ((1, 2, 2, 33), 4, (3, 3), (2, 2), (0, 0, 0, 0)),
}

RANDOM = 10  # seeded random windows and channel counts
INT4_RANDOM = 6


def random_cases(count: int = RANDOM, prefix: str = "random") -> dict:
    found = {}
    for i in range(count):
        rng = rng_for("transpose_conv2d", prefix, i)
        kernel = tuple(int(k) for k in rng.integers(1, 6, size=2))
        stride = tuple(int(s) for s in rng.integers(1, 4, size=2))
        # crops below the kernel before; after: a crop or an output padding below the stride
        shape = (int(rng.integers(1, 3)), int(rng.integers(1, 5)), int(rng.integers(1, 5)), int(rng.integers(1, 20)))
        padding = []
        for axis in range(2):
            full = (shape[1 + axis] - 1) * stride[axis] + kernel[axis]
            before = int(rng.integers(0, kernel[axis]))
            after = int(rng.integers(1 - stride[axis], kernel[axis]))
            padding += [before, min(after, full - before - 1)]  # at least one output position
        found[f"{prefix}{i}"] = (shape, int(rng.integers(1, 10)), kernel, stride, tuple(padding))
    return found


def tconv_case(name: str, x: np.ndarray, w: np.ndarray, bias: np.ndarray, attrs: dict, weights: str = "int8") -> Case:
    (n, h, wi, _), (c_out, kh, kw, _) = x.shape, w.shape
    (sh, sw), (top, bottom, left, right) = attrs["stride"], attrs["padding"]
    y_shape = (n, reference.transpose_output_size(h, kh, sh, top, bottom),
               reference.transpose_output_size(wi, kw, sw, left, right), c_out)
    operands = [int8_tensor("x", x.shape, -attrs["input_offset"]), weight_tensor("w", w, weights),
                Tensor("b", "int32", (c_out,), data=bias)]
    shown = {"input": x.shape, "kernel": (kh, kw), "c_out": c_out, "weights": weights,
             **{k: attrs[k] for k in ("stride", "padding", "input_offset", "output_offset", "activation_min",
                                      "activation_max")}}
    return single_op("transpose_conv2d", operands, int8_tensor("y", y_shape, attrs["output_offset"]), attrs, [x],
                     name=name, params=shown)


def case(k: int, name: str, shape, c_out, kernel, stride, padding, weights: str = "int8") -> Case:
    rng = rng_for("transpose_conv2d", name)
    taps = -(-kernel[0] // stride[0]) * -(-kernel[1] // stride[1]) * shape[3]  # per output, at most
    int4 = weights == "int4"
    w = (edge_int4 if int4 else edge_int8)(rng, (c_out, *kernel, shape[3]))
    multiplier, shift = requantization(rng, c_out, taps, gain=16.0 if int4 else 1.0)
    bias_range = int(3000 * np.sqrt(taps)) // (16 if int4 else 1)
    bias = rng.integers(-bias_range, bias_range, size=c_out, dtype=np.int32)
    act = (-128, 127) if k % 3 else (-100, 90)
    attrs = dict(stride=stride, padding=padding, input_offset=-zero_point(rng, k), output_offset=zero_point(rng, k + 1),
                 activation_min=act[0], activation_max=act[1], multiplier=multiplier, shift=shift)
    if int4:  # input zero points at the ends in turn
        attrs["input_offset"] = [128, -127][k % 2]
    return tconv_case(name, edge_int8(rng, shape), w, bias, attrs, weights)


def edge_cases() -> list[Case]:
    """Every input at its zero point, so each accumulator is its bias: the requantization's ties
    (both signs) and INT32 extremes per output channel, on full blocks and a channel tail."""
    out = []
    for shape, c_out in (((1, 2, 3, 5), 20), ((1, 2, 2, 16), 23)):
        in_zp = [-128, 127][c_out % 2]
        bias, multiplier, shift = requantization_edges(c_out)
        w = edge_int8(rng_for("transpose_conv2d", "edges", c_out), (c_out, 3, 3, shape[3]))
        attrs = dict(stride=(2, 2), padding=(1, 0, 0, -1), input_offset=-in_zp, output_offset=0, activation_min=-128,
                     activation_max=127, multiplier=multiplier, shift=shift)
        out.append(tconv_case(f"requantize_edges_o{c_out}", np.full(shape, in_zp, np.int8), w, bias, attrs))
    return out


def cases() -> list[Case]:
    specs = {**CASES, **random_cases()}
    int4 = {**INT4_CASES, **random_cases(INT4_RANDOM, "int4_random")}
    return ([case(k, name, *spec) for k, (name, spec) in enumerate(specs.items())] + edge_cases()
            + [case(k, name, *spec, weights="int4") for k, (name, spec) in enumerate(int4.items())])
