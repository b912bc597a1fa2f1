"""transpose: the kernel's paths through em_strided_copy: a contiguous innermost run (MVE
16-byte predicated steps with tails 1..15; scalar / DSP word copies when aligned and <= 16
bytes, bytes when unaligned, memcpy beyond), a strided innermost run of bytes (MVE 8-byte
gathers with tails, strides at and past the 16-bit offset limit 9362), 4-byte elements (int32,
float32), size-1 dimensions dropped (all of them: one element) and chained ones merged, ranks
1..8, seeded random perms."""
from __future__ import annotations

import numpy as np

from conformance import Case, movement_case, rng_for

# input shape, perm, dtype
CASES = [
    ((1, 5, 7, 16), (0, 3, 1, 2), "int8"),     # NHWC -> NCHW: gathers at stride 16, 35 = 4 x 8 + 3
    ((1, 4, 6, 3), (0, 3, 1, 2), "int8"),      # gathers at stride 3, 24 = 3 x 8
    ((2, 3, 4, 5), (0, 2, 1, 3), "int8"),      # runs of 5 bytes, unaligned
    ((3, 4, 2, 8), (1, 0, 2, 3), "int8"),      # (2, 8) merge: aligned runs of 16
    ((3, 5, 4), (1, 0, 2), "int8"),            # aligned runs of 4 (words)
    ((3, 5, 12), (1, 0, 2), "int8"),           # aligned runs of 12
    ((3, 5, 2), (1, 0, 2), "int8"),            # runs of 2
    ((2, 3, 17), (1, 0, 2), "int8"),           # 17: memcpy / 16 + tail 1
    ((4, 3, 31), (1, 0, 2), "int8"),           # 31: memcpy / 16 + tail 15
    ((9, 9363), (1, 0), "int8"),               # stride past 9362 (7 x 9363 > 65535): byte gathers on MVE too
    ((9, 9362), (1, 0), "int8"),               # the largest stride of 16-bit gather offsets, 8 + tail 1
    ((7, 1), (1, 0), "int8"),                  # a size-1 dimension: one run
    ((2, 3, 4, 5), (0, 1, 2, 3), "int8"),      # identity: one run of 120 bytes
    ((1, 7, 1, 9), (3, 2, 1, 0), "int8"),      # size-1 dimensions dropped
    ((2, 1, 2, 3, 1, 2, 2, 3), (7, 6, 5, 4, 3, 2, 1, 0), "int8"),  # rank 8
    ((11,), (0,), "int8"),                     # rank 1
    ((2, 3, 5), (2, 0, 1), "int32"),           # strided 4-byte elements
    ((3, 4, 6), (1, 0, 2), "int32"),           # runs of 24 bytes
    ((4, 5, 3), (2, 1, 0), "float32"),
    ((2, 2, 2), (1, 0, 2), "float32"),         # aligned runs of 8
    ((1, 3, 4, 5), (0, 3, 1, 2), "float32"),
]

RANDOM = 12  # seeded random ranks 1..6, sizes 1..9, perms; dtypes in turn


def random_cases() -> list:
    found = []
    for i in range(RANDOM):
        rng = rng_for("transpose", "random", i)
        shape = tuple(int(d) for d in rng.integers(1, 10, size=int(rng.integers(1, 7))))
        while int(np.prod(shape)) > 4096:
            shape = shape[1:]
        found.append((shape, tuple(int(p) for p in rng.permutation(len(shape))), ["int8", "int8", "int32", "float32"][i % 4]))
    return found


# after the random ones (seeds follow the index): one element, every dimension of size 1 (nothing
# left once they are dropped)
LATE = [((1, 1, 1, 1), (3, 2, 1, 0), "int8")]


def cases() -> list[Case]:
    return [movement_case("transpose", k, shape, dtype, tuple(shape[p] for p in perm), {"perm": list(perm)},
                          f"{'x'.join(map(str, shape))}_perm{''.join(map(str, perm))}", {"perm": perm})
            for k, (shape, perm, dtype) in enumerate(CASES + random_cases() + LATE)]
