"""dequantize (int8 -> float32): every int8 code against zero points at the ends, odd lengths."""
from __future__ import annotations

import numpy as np

from conformance import Case, edge_int8, int8_tensor, rng_for, single_op, zero_point
from compiler.ir import Tensor

SHAPES = [(1, 1), (1, 256), (2, 19), (1, 4, 3, 11), (1, 1001)]

SHAPES += [tuple(int(d) for d in rng_for("dequantize", "random", i).integers(1, 40, size=1 + i % 4)) for i in range(5)]


def cases() -> list[Case]:
    out = []
    for k, shape in enumerate(SHAPES):
        rng = rng_for("dequantize", k)
        scale = np.float32(2.0 ** rng.uniform(-9, 1))
        zp = zero_point(rng, k)
        q = edge_int8(rng, shape)
        if k == 1:
            q = np.arange(-128, 128, dtype=np.int8).reshape(shape)
        out.append(single_op(
            "dequantize", [int8_tensor("q", shape, zp, float(scale))], Tensor("y", "float32", shape),
            {"scale": scale, "zero_point": zp}, [q],
            name=f"{'x'.join(map(str, shape))}_zp{zp}", params={"shape": shape, "scale": float(scale), "zp": zp}))
    return out
