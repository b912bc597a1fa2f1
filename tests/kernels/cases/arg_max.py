"""arg_max: every axis of ranks 1 to 4, reduced lengths 1 to 300, outer and inner counts around
the word widths; ties everywhere (all -128, all 127, the maximum twice), the maximum first and
last, zero points at both ends."""
from __future__ import annotations

import numpy as np

from conformance import Case, edge_int8, int8_tensor, rng_for, single_op, typed_tensor, zero_point

# input shape, axis
SHAPES = [((1,), 0), ((7,), 0), ((300,), 0), ((3, 10), 1), ((3, 10), 0), ((1, 17, 5), 1), ((2, 4, 33), 2),
          ((1, 5, 7, 12), 3), ((1, 6, 6, 3), 1), ((2, 3, 4, 5), 0), ((1, 1, 1, 255), 3), ((16, 1), 1)]


def _random(count: int = 8) -> list:
    found = []
    for i in range(count):
        rng = rng_for("arg_max", "random", i)
        rank = int(rng.integers(1, 5))
        shape = tuple(int(d) for d in rng.integers(1, 9, rank))
        found.append((shape, int(rng.integers(0, rank))))
    return found


def _ties(x: np.ndarray, axis: int, k: int) -> np.ndarray:
    """Some rows all -128, all 127, and with the maximum twice (first and last)."""
    rows = np.moveaxis(x, axis, -1).reshape(-1, x.shape[axis])
    if rows.shape[0] > 3 and rows.shape[1] > 1:
        rows[0], rows[1] = -128, 127
        rows[2] = -100
        rows[2, 0] = rows[2, -1] = 50
        rows[3, -1] = 127
    return np.moveaxis(rows.reshape(np.moveaxis(x, axis, -1).shape), -1, axis)


def cases() -> list[Case]:
    out = []
    for k, (shape, axis) in enumerate(SHAPES + _random()):
        rng = rng_for("arg_max", k)
        x = _ties(edge_int8(rng, shape), axis, k)
        y_shape = shape[:axis] + shape[axis + 1:] or (1,)
        out.append(single_op("arg_max", [int8_tensor("x", shape, zero_point(rng, k))], typed_tensor("y", "int32", y_shape),
                             {"axis": axis}, [np.ascontiguousarray(x)],
                             name=f"{k}_{'x'.join(map(str, shape))}_axis{axis}", params={"shape": shape, "axis": axis}))
    return out
