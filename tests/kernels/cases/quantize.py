"""quantize (float32 -> int8): rounding ties both ways, saturation, NaN / ±inf / -0.0, zero
points at the ends, lengths around the 4-lane float vectors of MVE."""
from __future__ import annotations

import numpy as np

from conformance import Case, int8_tensor, rng_for, single_op, zero_point
from compiler.ir import Tensor

SHAPES = [(1, 1), (1, 7), (2, 17), (1, 3, 5, 33), (1, 1003)]

SHAPES += [tuple(int(d) for d in rng_for("quantize", "random", i).integers(1, 40, size=1 + i % 4)) for i in range(5)]


def cases() -> list[Case]:
    out = []
    for k, shape in enumerate(SHAPES):
        rng = rng_for("quantize", k)
        inv_scale = np.float32(2.0 ** int(rng.integers(-3, 6)))  # powers of 2: exact .5 ties
        zp = zero_point(rng, k)
        n = int(np.prod(shape))
        codes = rng.integers(-300, 300, size=n) + rng.choice([0.0, 0.5, -0.5, 0.25, 0.75], size=n)
        x = (codes / inv_scale).astype(np.float32)
        specials = np.array([np.nan, np.inf, -np.inf, -0.0, 1e30, -1e30, 0.5 / inv_scale, -0.5 / inv_scale],
                            np.float32)
        x[: min(n, specials.size)] = specials[: min(n, specials.size)]
        out.append(single_op(
            "quantize", [Tensor("x", "float32", shape)], int8_tensor("q", shape, zp, float(1 / inv_scale)),
            {"inv_scale": inv_scale, "zero_point": zp}, [x],
            name=f"{'x'.join(map(str, shape))}_zp{zp}", params={"shape": shape, "inv_scale": float(inv_scale), "zp": zp}))
    return out
