"""reshape: a program input (the planner aliases the output onto it: nothing moves) and a
constant input (its own output buffer: the memmove), flatten / unsqueeze / squeeze, int8,
int32 and float32, seeded random shapes refactored."""
from __future__ import annotations

import math

from conformance import Case, edge_values, rng_for, single_op, typed_tensor

# input shape, output shape, dtype, input constant?
CASES = [
    ((1, 4, 4, 3), (1, 48), "int8", False),
    ((1, 4, 4, 3), (1, 48), "int8", True),
    ((2, 3, 5), (30,), "int8", True),          # 30 bytes: an odd memmove
    ((7,), (1, 7, 1, 1), "int8", False),       # unsqueeze
    ((1, 1, 9, 1), (9,), "int8", True),        # squeeze
    ((2, 3, 4), (6, 4), "int32", False),
    ((2, 3, 4), (4, 3, 2), "int32", True),
    ((5, 7), (35,), "float32", False),
    ((5, 7), (7, 5), "float32", True),
]

RANDOM = 6  # seeded random shapes of rank 1..5, refactored into another random rank


def random_cases() -> list:
    found = []
    for i in range(RANDOM):
        rng = rng_for("reshape", "random", i)
        shape = tuple(int(d) for d in rng.integers(1, 8, size=int(rng.integers(1, 6))))
        total, out_shape = math.prod(shape), []
        for _ in range(int(rng.integers(0, 4))):
            factors = [f for f in range(1, total + 1) if total % f == 0]
            out_shape.append(int(rng.choice(factors)))
            total //= out_shape[-1]
        found.append((shape, (*out_shape, total), ["int8", "int8", "int32", "float32"][i % 4], bool(i % 2)))
    return found


def cases() -> list[Case]:
    out = []
    for k, (shape, y_shape, dtype, constant) in enumerate(CASES + random_cases()):
        rng = rng_for("reshape", k)
        x = edge_values(rng, dtype, shape)
        name = f"{k}_{dtype}_{'x'.join(map(str, shape))}_to_{'x'.join(map(str, y_shape))}{'_const' if constant else ''}"
        out.append(single_op("reshape", [typed_tensor("x", dtype, shape, data=x if constant else None)],
                             typed_tensor("y", dtype, y_shape), {}, [] if constant else [x], name=name,
                             params={"input": shape, "output": y_shape, "dtype": dtype, "constant_input": constant}))
    return out
