"""upsample_nearest: pixels of 1..3, 4, 8, 12, 16 bytes (aligned word copies on scalar / DSP),
17 and 31 (memcpy; MVE 16 + tails 1 and 15), output rows copied whole for scale_h > 1, scales
1..4 each way, batches, int32 / float32 elements, seeded random shapes and scales."""
from __future__ import annotations

from conformance import Case, movement_case, rng_for

# input NHWC, scale_h, scale_w, dtype
CASES = [
    ((1, 4, 5, 16), 2, 2, "int8"),     # pixels of 16, rows of 160
    ((1, 3, 3, 3), 2, 2, "int8"),      # pixels of 3, unaligned
    ((1, 2, 3, 4), 3, 1, "int8"),      # pixels of 4 (words), rows copied twice
    ((2, 3, 2, 8), 1, 3, "int8"),      # pixels of 8, batches
    ((1, 2, 2, 12), 2, 2, "int8"),     # pixels of 12
    ((1, 3, 4, 1), 4, 4, "int8"),      # pixels of 1, rows of 16
    ((1, 2, 3, 17), 2, 1, "int8"),     # 17: memcpy / 16 + 1
    ((1, 2, 2, 31), 1, 2, "int8"),     # 31: 16 + tail 15
    ((1, 3, 2, 2), 1, 1, "int8"),      # scale 1: a copy
    ((1, 3, 3, 5), 3, 2, "int8"),
    ((1, 3, 2, 3), 2, 2, "int32"),     # pixels of 12 bytes
    ((1, 2, 2, 5), 3, 3, "int32"),     # pixels of 20 bytes
    ((2, 2, 3, 2), 1, 2, "float32"),   # pixels of 8 bytes
    ((1, 2, 2, 1), 2, 3, "float32"),   # pixels of 4 bytes
]

RANDOM = 8  # seeded random N 1..2, H / W 1..6, C 1..20, scales 1..4; dtypes in turn


def random_cases() -> list:
    found = []
    for i in range(RANDOM):
        rng = rng_for("upsample_nearest", "random", i)
        shape = (int(rng.integers(1, 3)), int(rng.integers(1, 7)), int(rng.integers(1, 7)), int(rng.integers(1, 21)))
        found.append((shape, int(rng.integers(1, 5)), int(rng.integers(1, 5)), ["int8", "int8", "int32", "float32"][i % 4]))
    return found


def cases() -> list[Case]:
    return [movement_case("upsample_nearest", k, (n, h, w, c), dtype, (n, h * sh, w * sw, c),
                          {"scale_h": sh, "scale_w": sw}, f"{n}x{h}x{w}x{c}_x{sh}x{sw}", {"scale_h": sh, "scale_w": sw})
            for k, ((n, h, w, c), sh, sw, dtype) in enumerate(CASES + random_cases())]
