"""The float pooling ops' cases (float_max_pool2d, float_avg_pool2d): one builder for both."""
from __future__ import annotations

import numpy as np

from cases._float import clamp_for, f32, float_case, randn, rng_for, with_specials
from compiler import reference
from conformance import Case, random_pool_windows

FIXED = [  # name, NHWC input, kernel, stride, padding (top, bottom, left, right)
    ("3x3_s2_pad1", (1, 9, 7, 5), (3, 3), (2, 2), (1, 1, 1, 1)),
    ("2x2_s2", (2, 8, 8, 3), (2, 2), (2, 2), (0, 0, 0, 0)),
    ("asym", (1, 7, 10, 4), (3, 2), (1, 3), (2, 0, 1, 1)),
    ("global", (1, 5, 4, 6), (5, 4), (1, 1), (0, 0, 0, 0)),
    ("1x1_c1", (1, 3, 3, 1), (1, 1), (1, 1), (0, 0, 0, 0)),
    ("overlap_c17", (1, 6, 5, 17), (3, 3), (1, 1), (0, 2, 2, 0)),
]


def _case(op: str, name: str, x: np.ndarray, kernel, stride, padding, attrs: dict) -> Case:
    (kh, kw), (sh, sw), (top, bottom, left, right) = kernel, stride, padding
    y_shape = (x.shape[0], reference.output_size(x.shape[1], kh, sh, 1, top, bottom),
               reference.output_size(x.shape[2], kw, sw, 1, left, right), x.shape[3])
    attrs = {"kernel": tuple(kernel), "stride": tuple(stride), "padding": tuple(padding), **attrs}
    return float_case(op, [f32("x", x.shape)], y_shape, attrs, [x], name, {"input": x.shape, **attrs})


def pool_cases(op: str, attrs: dict, prefix: str = "") -> list[Case]:
    out = []
    for k, (name, shape, kernel, stride, padding) in enumerate(FIXED):
        x = randn(rng_for(op, prefix, name), shape, 3.0)
        out.append(_case(op, prefix + name, x, kernel, stride, padding, {**attrs, **clamp_for(k)}))
    for i, (shape, kernel, stride, padding) in enumerate(random_pool_windows(op + prefix, 3)):
        x = randn(rng_for(op, prefix, "random", i), shape, 3.0)
        out.append(_case(op, f"{prefix}random_{i}", x, kernel, stride, padding, {**attrs, **clamp_for(i + 1)}))
    x = with_specials(rng_for(op, prefix, "special"), (1, 5, 5, 3), share=0.3)
    x[0, :2, :2, 0] = -np.inf  # a window of -inf only
    x[0, 3:, 3:, 1] = -0.0  # a window of -0 only
    out.append(_case(op, prefix + "special_values", x, (2, 2), (1, 1), (1, 0, 0, 1), attrs))
    return out
