"""float_conv2d cases (tiny: the M3 runs them in soft-float): 1x1, groups, depthwise with a
multiplier, strides, dilation, asymmetric padding, clamps, special values."""
from __future__ import annotations

import numpy as np

from cases._float import clamp_for, f32, float_case, randn, rng_for, with_specials
from compiler import reference
from conformance import Case, random_window

OP = "float_conv2d"
FIXED = [  # name, NHWC input, C_OUT, kernel, stride, dilation, padding (top, bottom, left, right), groups
    ("1x1", (1, 3, 4, 5), 3, (1, 1), (1, 1), (1, 1), (0, 0, 0, 0), 1),
    ("3x3_same", (1, 5, 6, 3), 4, (3, 3), (1, 1), (1, 1), (1, 1, 1, 1), 1),
    ("groups_3", (2, 4, 5, 6), 9, (2, 3), (2, 1), (1, 2), (1, 0, 2, 1), 3),
    ("depthwise", (1, 6, 5, 4), 4, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), 4),
    ("depthwise_x2", (1, 5, 7, 3), 6, (3, 2), (1, 3), (1, 1), (2, 0, 1, 0), 3),
    ("asym_pad", (1, 4, 4, 2), 3, (3, 3), (1, 2), (1, 1), (0, 2, 2, 0), 1),
    ("whole_input", (1, 3, 3, 2), 1, (3, 3), (1, 1), (1, 1), (0, 0, 0, 0), 1),
    ("dilated", (1, 7, 6, 2), 2, (2, 2), (1, 1), (3, 2), (1, 1, 0, 2), 2),
]


def _case(name: str, x: np.ndarray, w: np.ndarray, b: np.ndarray, attrs: dict) -> Case:
    (sh, sw), (dh, dw), (top, bottom, left, right) = attrs["stride"], attrs["dilation"], attrs["padding"]
    y_shape = (x.shape[0], reference.output_size(x.shape[1], w.shape[1], sh, dh, top, bottom),
               reference.output_size(x.shape[2], w.shape[2], sw, dw, left, right), w.shape[0])
    return float_case(OP, [f32("x", x.shape), f32("w", w.shape, data=w), f32("b", b.shape, data=b)], y_shape,
                      attrs, [x], name, {"input": x.shape, "weights": w.shape, **attrs})


def cases() -> list[Case]:
    out = []
    for k, (name, shape, c_out, kernel, stride, dilation, padding, groups) in enumerate(FIXED):
        rng = rng_for(OP, name)
        attrs = {"stride": stride, "dilation": dilation, "padding": padding, "groups": groups, **clamp_for(k)}
        x = randn(rng, shape)
        w, b = randn(rng, (c_out, *kernel, shape[3] // groups)), randn(rng, (c_out,))
        out.append(_case(name, x, w, b, attrs))
    for i in range(4):  # seeded random windows and group counts
        rng = rng_for(OP, "random", i)
        win = random_window(rng, max_kernel=3, max_stride=2, max_extra=3)
        groups = int(rng.integers(1, 4))
        c_in, c_out = groups * int(rng.integers(1, 3)), groups * int(rng.integers(1, 3))
        x = randn(rng, (1, *win["size"], c_in), 2.0)
        w, b = randn(rng, (c_out, *win["kernel"], c_in // groups)), randn(rng, (c_out,))
        attrs = {k: win[k] for k in ("stride", "dilation", "padding")} | {"groups": groups, **clamp_for(i + 1)}
        out.append(_case(f"random_{i}", x, w, b, attrs))
    rng = rng_for(OP, "special")
    x = with_specials(rng, (1, 4, 4, 2))
    w, b = with_specials(rng, (2, 2, 2, 2)), np.array([-0.0, np.inf], np.float32)
    out.append(_case("special_values", x, w, b, {"stride": (1, 1), "dilation": (1, 1), "padding": (1, 0, 0, 1),
                                                  "groups": 1}))
    x = np.full((1, 2, 2, 1), -0.0, np.float32)  # padding adds nothing: a -0 bias stays -0 at the borders
    out.append(_case("negative_zero_padding", x, np.ones((1, 2, 2, 1), np.float32), np.array([-0.0], np.float32),
                     {"stride": (1, 1), "dilation": (1, 1), "padding": (1, 1, 1, 1), "groups": 1}))
    return out
