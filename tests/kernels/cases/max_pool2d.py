"""max_pool2d: channel tails around 16-lane groups, global windows, asymmetric padding (padded
cells never win), strides over and under the kernel, -128 / 127 everywhere, clamps. int16 (A16W8):
the same windows with channel tails around MVE's 8 lanes and the DSP's pairs (1, 3, 7, 9, 17, 33),
-32768 / 32767 everywhere, int16 clamps."""
from __future__ import annotations

from compiler import reference
from conformance import Case, edge_int16, edge_int8, int16_tensor, int8_tensor, random_pool_windows, rng_for, single_op

# (N, H, W, C), kernel, stride, padding (t, b, l, r)
SHAPES = [((1, 9, 7, 17), (3, 3), (1, 1), (1, 1, 1, 1)), ((2, 11, 10, 5), (3, 3), (2, 2), (1, 0, 0, 1)),
          ((1, 10, 9, 33), (3, 2), (3, 1), (2, 1, 0, 1)), ((1, 8, 8, 16), (2, 2), (2, 2), (0, 0, 0, 0)),
          ((1, 5, 25, 3), (5, 25), (1, 1), (0, 0, 0, 0)), ((3, 7, 6, 1), (2, 3), (1, 2), (1, 1, 2, 0)),
          ((1, 6, 6, 32), (1, 1), (3, 2), (0, 0, 0, 0)), ((1, 4, 5, 7), (4, 4), (1, 1), (3, 0, 3, 0)),
          ((1, 20, 20, 24), (20, 20), (1, 1), (0, 0, 0, 0)), ((1, 5, 25, 64), (5, 25), (1, 1), (0, 0, 0, 0)),
          ((1, 3, 300, 15), (2, 300), (1, 1), (1, 0, 0, 0))]  # global, wide and 300-long windows

SHAPES += random_pool_windows("max_pool2d", 10)  # seeded random windows


def cases() -> list[Case]:
    out = []
    for k, (shape, kernel, stride, padding) in enumerate(SHAPES):
        rng = rng_for("max_pool2d", k)
        x = edge_int8(rng, shape, ends=0.3 if k % 2 else 0.05)
        act = (-128, 127) if k % 3 else (-90, 100)
        oh = reference.output_size(shape[1], kernel[0], stride[0], 1, padding[0], padding[1])
        ow = reference.output_size(shape[2], kernel[1], stride[1], 1, padding[2], padding[3])
        attrs = dict(kernel=kernel, stride=stride, padding=padding, activation_min=act[0], activation_max=act[1])
        name = f"{'x'.join(map(str, shape))}_k{kernel[0]}x{kernel[1]}_s{stride[0]}x{stride[1]}"
        out.append(single_op("max_pool2d", [int8_tensor("x", shape)], int8_tensor("y", (shape[0], oh, ow, shape[3])),
                             attrs, [x], name=name,
                             params={"input": shape, "kernel": kernel, "stride": stride, "padding": padding, "act": act}))
    return out + int16_cases()


INT16_SHAPES = SHAPES + [((1, 6, 5, 9), (3, 3), (2, 2), (1, 1, 1, 1)), ((2, 5, 4, 8), (2, 2), (1, 1), (0, 1, 0, 1)),
                         ((1, 4, 4, 2), (3, 3), (1, 1), (2, 2, 2, 2))]
INT16_SHAPES += random_pool_windows("max_pool2d int16", 8)


def int16_cases() -> list[Case]:
    out = []
    for k, (shape, kernel, stride, padding) in enumerate(INT16_SHAPES):
        rng = rng_for("max_pool2d", "int16", k)
        x = edge_int16(rng, shape, ends=0.3 if k % 2 else 0.05)
        act = (-32768, 32767) if k % 3 else (-20000, 25000)
        oh = reference.output_size(shape[1], kernel[0], stride[0], 1, padding[0], padding[1])
        ow = reference.output_size(shape[2], kernel[1], stride[1], 1, padding[2], padding[3])
        attrs = dict(kernel=kernel, stride=stride, padding=padding, activation_min=act[0], activation_max=act[1])
        name = f"int16_{k}_{'x'.join(map(str, shape))}_k{kernel[0]}x{kernel[1]}_s{stride[0]}x{stride[1]}"
        out.append(single_op("max_pool2d", [int16_tensor("x", shape)], int16_tensor("y", (shape[0], oh, ow, shape[3])),
                             attrs, [x], name=name, params={"input": shape, "kernel": kernel, "stride": stride,
                                                            "padding": padding, "act": act, "dtype": "int16"}))
    return out
