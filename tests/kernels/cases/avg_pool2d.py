"""avg_pool2d: with and without padding cells counted, exact .5 ties of both signs, zero points at
the ends, windows of > 256 cells (int16 sums widened), global pooling, channel tails, clamps."""
from __future__ import annotations

import numpy as np

from compiler import reference
from conformance import Case, edge_int8, int8_tensor, random_pool_windows, rng_for, single_op, zero_point

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
    return out
