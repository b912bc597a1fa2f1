"""float_softmax cases (expf: within reference.FLOAT_LIBM_ULPS): rows of 1, lane tails, long
rows, rank 1..4, large magnitudes (exp of the differences underflows), equal values, ±inf."""
from __future__ import annotations

import numpy as np

from cases._float import f32, float_case, randn, rng_for
from conformance import Case

OP = "float_softmax"
SHAPES = [((1,), 1.0), ((1, 1), 1.0), ((3, 10), 5.0), ((2, 3, 17), 5.0), ((1, 2, 2, 33), 20.0), ((4, 130), 3.0),
          ((2, 9), 200.0)]


def cases() -> list[Case]:
    out = []
    for shape, scale in SHAPES:
        x = randn(rng_for(OP, shape, scale), shape, scale)
        out.append(float_case(OP, [f32("x", shape)], shape, {}, [x], f"{'x'.join(map(str, shape))}_scale{scale:g}",
                              {"input": shape, "scale": scale}, libm=True))
    x = np.array([[0.0, -0.0, 0.0, -0.0], [1e30, 1e30, -1e30, 0.0], [3e38, -3e38, 1.0, 2.0],
                  [-np.inf, 0.0, 1.0, -np.inf], [-5.0, -5.0, -5.0, -5.0]], np.float32)
    out.append(float_case(OP, [f32("x", x.shape)], x.shape, {}, [x], "special_values",
                          {"input": x.shape, "values": x.tolist()}, libm=True))
    return out
