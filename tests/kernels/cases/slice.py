"""slice: channel windows whose runs reach each copy path (aligned word runs of 4..16 bytes,
unaligned runs and tails 1..3 / 1..15, memcpy past 16 bytes), steps on the innermost dimension
(MVE 8-byte gathers, tails 1..7) and on outer ones (runs of whole pixels), begins at the ends,
the whole tensor, int32 / float32 elements, seeded random ranks, begins, steps and sizes."""
from __future__ import annotations

import math

from conformance import Case, movement_case, rng_for

# input shape, begin, step, size, dtype
CASES = [
    ((1, 4, 4, 16), (0, 0, 0, 4), (1, 1, 1, 1), (1, 4, 4, 8), "int8"),     # aligned runs of 8 (words)
    ((1, 4, 4, 16), (0, 1, 0, 0), (1, 1, 1, 1), (1, 3, 4, 12), "int8"),    # aligned runs of 12
    ((1, 3, 5, 20), (0, 0, 0, 4), (1, 1, 1, 1), (1, 3, 5, 16), "int8"),    # aligned runs of 16
    ((1, 3, 5, 20), (0, 0, 0, 0), (1, 1, 1, 1), (1, 3, 5, 4), "int8"),     # aligned runs of 4
    ((1, 4, 3, 16), (0, 0, 0, 1), (1, 1, 1, 1), (1, 4, 3, 5), "int8"),     # unaligned runs of 5
    ((1, 4, 3, 16), (0, 0, 0, 13), (1, 1, 1, 1), (1, 4, 3, 3), "int8"),    # tail 3 at the end
    ((1, 4, 3, 16), (0, 0, 0, 2), (1, 1, 1, 1), (1, 4, 3, 1), "int8"),     # runs of 1
    ((1, 3, 3, 40), (0, 0, 0, 3), (1, 1, 1, 1), (1, 3, 3, 17), "int8"),    # 17: memcpy / 16 + 1
    ((1, 3, 3, 40), (0, 0, 0, 9), (1, 1, 1, 1), (1, 3, 3, 31), "int8"),    # 31: 16 + tail 15
    ((1, 3, 4, 40), (0, 0, 0, 1), (1, 1, 1, 2), (1, 3, 4, 20), "int8"),    # gathers at stride 2, 20 = 2 x 8 + 4
    ((1, 2, 3, 40), (0, 0, 0, 0), (1, 1, 1, 3), (1, 2, 3, 13), "int8"),    # stride 3, tail 5
    ((1, 6, 8, 16), (0, 0, 0, 0), (1, 1, 2, 1), (1, 6, 4, 16), "int8"),    # every 2nd 16-byte column
    ((1, 6, 8, 16), (0, 1, 1, 0), (1, 2, 3, 1), (1, 3, 3, 16), "int8"),    # strided H and W
    ((2, 5, 7, 3), (1, 4, 6, 2), (1, 1, 1, 1), (1, 1, 1, 1), "int8"),      # the last element
    ((2, 5, 7, 3), (0, 0, 0, 0), (1, 1, 1, 1), (2, 5, 7, 3), "int8"),      # the whole tensor: one run
    ((9, 31), (2, 5), (3, 7), (3, 4), "int8"),
    ((37,), (3,), (5,), (7,), "int8"),                                     # rank 1 gather, tail 7
    ((1, 3, 4, 8), (0, 0, 0, 1), (1, 1, 1, 2), (1, 3, 4, 4), "int32"),     # strided 4-byte elements
    ((1, 3, 4, 8), (0, 1, 0, 2), (1, 1, 1, 1), (1, 2, 4, 4), "int32"),     # runs of 16 bytes
    ((1, 3, 4, 9), (0, 0, 1, 0), (1, 1, 1, 1), (1, 3, 3, 9), "float32"),   # runs of 108 bytes
    ((5, 6), (1, 3), (2, 1), (2, 3), "float32"),                           # runs of 12 bytes
    ((1, 1536), (0, 512), (1, 1), (1, 1024), "int16"),                     # a streamed front end's audio history
    ((2, 3, 7), (1, 0, 1), (1, 2, 3), (1, 2, 2), "int16"),                 # strided 2-byte elements
]

RANDOM = 12  # seeded random ranks 1..5, sizes 1..12, begins, steps 1..4, sizes that fit


def random_cases() -> list:
    found = []
    for i in range(RANDOM):
        rng = rng_for("slice", "random", i)
        shape = tuple(int(d) for d in rng.integers(1, 13, size=int(rng.integers(1, 6))))
        while len(shape) > 1 and math.prod(shape) > 6000:
            shape = shape[1:]
        begin, step, size = [], [], []
        for d in shape:
            b = int(rng.integers(0, d))
            s = int(rng.integers(1, 5))
            begin.append(b)
            step.append(s)
            size.append(int(rng.integers(1, (d - 1 - b) // s + 2)))
        found.append((shape, tuple(begin), tuple(step), tuple(size), ["int8", "int8", "int32", "float32"][i % 4]))
    return found


def cases() -> list[Case]:
    return [movement_case("slice", k, shape, dtype, size, {"begin": list(begin), "step": list(step), "size": list(size)},
                          f"{'x'.join(map(str, shape))}_to_{'x'.join(map(str, size))}",
                          {"begin": begin, "step": step, "size": size})
            for k, (shape, begin, step, size, dtype) in enumerate(CASES + random_cases())]
