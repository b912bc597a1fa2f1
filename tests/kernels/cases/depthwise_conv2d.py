"""depthwise_conv2d: depth multipliers 1..3, channel tails around 4-channel words and 16-lane
blocks, borders fully / partly padded, dilation, stride, asymmetric padding, runs of 1..4
interior columns, input zero points at the ends, clamps, shifts > 0."""
from __future__ import annotations

import numpy as np

from conformance import Case, conv_case, edge_int8, random_window, requantization, requantization_edges, rng_for

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


RANDOM = 12  # more cases on seeded random windows, channel counts and multipliers


def random_cases() -> dict:
    found = {}
    for i in range(RANDOM):
        rng = rng_for("depthwise_conv2d", "random", i)
        win = random_window(rng)
        m = int(rng.choice([1, 1, 1, 2, 3]))
        shape = (int(rng.integers(1, 3)), *win["size"], int(rng.integers(1, 40)))
        in_zp = [-128, 127, 0, int(rng.integers(-128, 128))][i % 4]
        found[f"random{i}"] = (shape, win["kernel"], m, win["stride"], win["dilation"], win["padding"], in_zp)
    return found


def case(k: int, name: str, shape, kernel, m, stride, dilation, padding, in_zp) -> Case:
    rng = rng_for("depthwise_conv2d", name)
    c_out = shape[3] * m
    w = edge_int8(rng, (*kernel, c_out))
    multiplier, shift = requantization(rng, c_out, kernel[0] * kernel[1])
    bias_range = int(3000 * np.sqrt(kernel[0] * kernel[1]))
    bias = rng.integers(-bias_range, bias_range, size=c_out, dtype=np.int32)
    out_zp = [-128, 127, 0, int(rng.integers(-128, 128))][k % 4]
    act = (-128, 127) if k % 3 else (-100, 90)
    attrs = dict(stride=stride, dilation=dilation, padding=padding, depth_multiplier=m, input_zero_point=in_zp,
                 output_offset=out_zp, activation_min=act[0], activation_max=act[1], multiplier=multiplier, shift=shift)
    return conv_case("depthwise_conv2d", name, edge_int8(rng, shape), w, bias, attrs, {})


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
    return [case(k, name, *spec) for k, (name, spec) in enumerate({**CASES, **random_cases()}.items())] + edge_cases()
