"""dequantize (int8 -> float32): every int8 code against zero points at the ends, odd lengths;
int16 (A16W8, zero point 0): codes across the whole int16 range, -32768 / 32767, scales from
2^-126 to past the integer path's bound (2^111), odd lengths around MVE's 4 lanes."""
from __future__ import annotations

import numpy as np

from conformance import Case, edge_int16, edge_int8, int16_tensor, int8_tensor, rng_for, single_op, zero_point
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
    return out + int16_cases()


INT16_SHAPES = [(1, 1), (1, 4096), (2, 19), (1, 4, 3, 11), (1, 1001), (1, 3), (1, 7)]
INT16_SHAPES += [tuple(int(d) for d in rng_for("dequantize", "int16", i).integers(1, 14, size=1 + i % 4)) for i in range(5)]
# scales: random, then the ends of the integer path's domain and past it
INT16_SCALES = [None, None, 2.0**-126, 2.0**110, 1.9 * 2.0**110, 2.0**111, 2.0**112, 1.3 * 2.0**-20, 0.7]


def int16_cases() -> list[Case]:
    out = []
    for k, shape in enumerate(INT16_SHAPES):
        rng = rng_for("dequantize", "int16", k)
        fixed = INT16_SCALES[k % len(INT16_SCALES)]
        scale = np.float32(fixed if fixed is not None else 2.0 ** rng.uniform(-16, 1))
        q = edge_int16(rng, shape)
        if shape == (1, 4096):  # every 16th code, both ends
            q = np.arange(-(2**15), 2**15, 16, dtype=np.int64).astype(np.int16).reshape(shape)
            q[0, -1] = 2**15 - 1
        out.append(single_op(
            "dequantize", [int16_tensor("q", shape, float(scale))], Tensor("y", "float32", shape),
            {"scale": scale, "zero_point": 0}, [q],
            name=f"int16_{k}_{'x'.join(map(str, shape))}", params={"shape": shape, "scale": float(scale), "dtype": "int16"}))
    return out
