"""avg_pool2d: with and without padding cells counted, exact .5 ties of both signs, zero points at
the ends, windows of > 256 cells (int16 sums widened), global pooling, channel tails, clamps.
int16 (A16W8, zero point 0): the same windows, exact .5 ties of both signs, -32768 / 32767
everywhere, int16 clamps, channel tails (1, 3, 7, 9, 17, 33) and a global pool of 2^15 cells
(the kernel's limit) at both ends of the int16 range."""
from __future__ import annotations

import numpy as np

from compiler import reference
from conformance import (Case, edge_int16, edge_int8, int16_tensor, int8_tensor, random_pool_windows, rng_for,
                         single_op, zero_point)

# (N, H, W, C), kernel, stride, padding (t, b, l, r)
SHAPES = [((1, 9, 7, 17), (3, 3), (1, 1), (1, 1, 1, 1)), ((2, 11, 10, 5), (3, 3), (2, 2), (1, 0, 0, 1)),
          ((1, 10, 9, 33), (3, 2), (3, 1), (2, 1, 0, 1)), ((1, 2, 8, 16), (2, 1), (1, 1), (0, 0, 0, 0)),
          ((1, 5, 25, 64), (5, 25), (1, 1), (0, 0, 0, 0)), ((1, 3, 300, 15), (2, 300), (1, 1), (1, 0, 0, 0)),
          ((3, 7, 6, 1), (2, 3), (1, 2), (1, 1, 2, 0)), ((1, 6, 6, 32), (1, 1), (3, 2), (0, 0, 0, 0)),
          ((1, 20, 20, 24), (20, 20), (1, 1), (0, 0, 0, 0))]  # a global pool of 400 cells

SHAPES += random_pool_windows("avg_pool2d", 10)  # seeded random windows


def cases() -> list[Case]:
    out = []
    for k, (shape, kernel, stride, padding) in enumerate(SHAPES):
        for include in (True, False):
            rng = rng_for("avg_pool2d", k, include)
            x = edge_int8(rng, shape)
            if kernel == (2, 1):  # every odd pair sum is an exact .5 tie
                x = np.arange(-128, 128, dtype=np.int8).reshape(shape)
                x[0, 1] = x[0, 1, ::-1] // 3
            zp = zero_point(rng, k + include)
            act = (-128, 127) if k % 3 else (-90, 100)
            oh = reference.output_size(shape[1], kernel[0], stride[0], 1, padding[0], padding[1])
            ow = reference.output_size(shape[2], kernel[1], stride[1], 1, padding[2], padding[3])
            attrs = dict(kernel=kernel, stride=stride, padding=padding, count_include_pad=include, zero_point=zp,
                         activation_min=act[0], activation_max=act[1])
            name = (f"{'x'.join(map(str, shape))}_k{kernel[0]}x{kernel[1]}_s{stride[0]}x{stride[1]}"
                    f"_{'incl' if include else 'excl'}_zp{zp}")
            out.append(single_op("avg_pool2d", [int8_tensor("x", shape, zp)],
                                 int8_tensor("y", (shape[0], oh, ow, shape[3]), zp), attrs, [x], name=name,
                                 params={"input": shape, "kernel": kernel, "stride": stride, "padding": padding,
                                         "count_include_pad": include, "zp": zp, "act": act}))
    return out + int16_cases()


INT16_SHAPES = SHAPES + [((1, 6, 5, 9), (3, 3), (2, 2), (1, 1, 1, 1)), ((2, 5, 4, 7), (2, 2), (1, 1), (0, 1, 0, 1)),
                         ((1, 4, 4, 3), (3, 3), (1, 1), (2, 2, 2, 2))]
INT16_SHAPES += random_pool_windows("avg_pool2d int16", 8)
LARGEST = ((1, 128, 256, 1), (128, 256), (1, 1), (0, 0, 0, 0))  # 2^15 cells: EM_AVG_POOL_S16_MAX_CELLS


def int16_case(k: int, shape, kernel, stride, padding, include: bool, x, act) -> Case:
    oh = reference.output_size(shape[1], kernel[0], stride[0], 1, padding[0], padding[1])
    ow = reference.output_size(shape[2], kernel[1], stride[1], 1, padding[2], padding[3])
    attrs = dict(kernel=kernel, stride=stride, padding=padding, count_include_pad=include, zero_point=0,
                 activation_min=act[0], activation_max=act[1])
    name = (f"int16_{k}_{'x'.join(map(str, shape))}_k{kernel[0]}x{kernel[1]}_s{stride[0]}x{stride[1]}"
            f"_{'incl' if include else 'excl'}")
    return single_op("avg_pool2d", [int16_tensor("x", shape)], int16_tensor("y", (shape[0], oh, ow, shape[3])), attrs,
                     [x], name=name, params={"input": shape, "kernel": kernel, "stride": stride, "padding": padding,
                                             "count_include_pad": include, "act": act, "dtype": "int16"})


def int16_cases() -> list[Case]:
    out = []
    for k, (shape, kernel, stride, padding) in enumerate(INT16_SHAPES):
        for include in (True, False):
            rng = rng_for("avg_pool2d", "int16", k, include)
            x = edge_int16(rng, shape)
            if kernel == (2, 1):  # every odd pair sum is an exact .5 tie, of both signs
                x = (np.arange(-128, 128, dtype=np.int64) * 255).astype(np.int16).reshape(shape)
                x[0, 1] = x[0, 1, ::-1] // 3 + 1
            act = (-32768, 32767) if k % 3 else (-20000, 25000)
            out.append(int16_case(k, shape, kernel, stride, padding, include, x, act))
    for end, value in enumerate((-(2**15), 2**15 - 1)):  # the largest window, the sums' extremes
        rng = rng_for("avg_pool2d", "int16 largest", end)
        x = np.full(LARGEST[0], value, np.int16)
        x.reshape(-1)[rng.random(x.size) < 0.01] = -value - 1  # a few at the other end: not all equal
        out.append(int16_case(len(INT16_SHAPES) + end, *LARGEST, True, x, (-32768, 32767)))
    return out
