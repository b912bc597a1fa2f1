"""lut: random and structured 256-entry tables (identity, reversed, constant ends) over every
int8 code, lengths around the 16-byte MVE gather, 4-D and 2-D tensors."""
from __future__ import annotations

import numpy as np

from conformance import Case, edge_int8, int8_tensor, rng_for, single_op

SHAPES = [(1, 1), (1, 256), (2, 17), (1, 3, 5, 33), (1, 1001), (1, 4, 4, 16)]

SHAPES += [tuple(int(d) for d in rng_for("lut", "random", i).integers(1, 12, size=1 + i % 4)) for i in range(6)]


def table(rng, k: int) -> np.ndarray:
    codes = np.arange(-128, 128, dtype=np.int16)
    return [rng.integers(-128, 128, size=256).astype(np.int8), codes.astype(np.int8),
            (-1 - codes).astype(np.int8), np.clip(codes * 3, -128, 127).astype(np.int8)][k % 4]


def cases() -> list[Case]:
    out = []
    for k, shape in enumerate(SHAPES):
        rng = rng_for("lut", k)
        x = edge_int8(rng, shape)
        if shape == (1, 256):
            x = rng.permutation(np.arange(-128, 128, dtype=np.int8)).reshape(shape)
        entries = table(rng, k)
        operands = [int8_tensor("x", shape), int8_tensor("table", (256,), data=entries)]
        out.append(single_op("lut", operands, int8_tensor("y", shape), {}, [x],
                             name=f"{'x'.join(map(str, shape))}_table{k % 4}",
                             params={"shape": shape, "table": ["random", "identity", "reversed", "x3 clamped"][k % 4]}))
    return out
