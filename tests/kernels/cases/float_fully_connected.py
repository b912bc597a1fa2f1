"""float_fully_connected cases: odd sizes (1, lane tails, > 128 inputs), leading dims, clamps,
special values (inf * 0 = NaN, overflow to inf, -0 + -0 stays -0)."""
from __future__ import annotations

import numpy as np

from cases._float import clamp_for, f32, float_case, randn, rng_for, with_specials
from conformance import Case

OP = "float_fully_connected"
SHAPES = [  # x shape, outputs
    ((1, 1), 1), ((1, 3), 2), ((2, 7), 5), ((3, 37), 11), ((1, 130), 3), ((2, 3, 9), 4), ((4, 16), 17),
]


def _case(name: str, x: np.ndarray, w: np.ndarray, b: np.ndarray, clamp: dict) -> Case:
    return float_case(OP, [f32("x", x.shape), f32("w", w.shape, data=w), f32("b", b.shape, data=b)],
                      x.shape[:-1] + (w.shape[0],), clamp, [x], name,
                      {"input": x.shape, "weights": w.shape, **clamp})


def cases() -> list[Case]:
    out = []
    for k, (x_shape, n_out) in enumerate(SHAPES):
        rng = rng_for(OP, x_shape, n_out)
        x, w, b = randn(rng, x_shape), randn(rng, (n_out, x_shape[-1])), randn(rng, (n_out,))
        out.append(_case(f"{'x'.join(map(str, x_shape))}_to_{n_out}", x, w, b, clamp_for(k)))
    for i in range(4):  # seeded random sizes
        rng = rng_for(OP, "random", i)
        x_shape = (int(rng.integers(1, 4)), int(rng.integers(1, 70)))
        n_out = int(rng.integers(1, 20))
        x, w, b = randn(rng, x_shape, 3.0), randn(rng, (n_out, x_shape[-1])), randn(rng, (n_out,))
        out.append(_case(f"random_{i}", x, w, b, clamp_for(i + 2)))
    rng = rng_for(OP, "special")
    x, w = with_specials(rng, (3, 9)), with_specials(rng, (5, 9))
    b = np.array([-0.0, 0.0, np.inf, 1e38, -1.0], np.float32)
    out.append(_case("special_values", x, w, b, {}))
    x = np.full((1, 4), -0.0, np.float32)
    out.append(_case("negative_zero_sum", x, np.ones((2, 4), np.float32), np.array([-0.0, 0.0], np.float32), {}))
    return out
