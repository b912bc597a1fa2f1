"""pad: runs that reach each copy path (only C padded: unaligned runs of 1..15 bytes and
aligned word runs of 4..16; H / W padded: whole rows, memcpy), no padding (one run), the batch
padded, ranks 1..8, the border at -128 / 127 / 0, int32 (INT32_MIN) and float32 (-inf, -0.0)
borders, seeded random ranks, sizes and paddings. int16 (A16W8's zero pad 0, and any int16 code:
-32768 / 32767): fills of 1..17 halfwords between runs, odd channel counts (1, 7, 17, 33), fills
starting off a word boundary, ranks 1..5."""
from __future__ import annotations

from conformance import Case, movement_case, rng_for

# input shape, before, after, dtype, value (float_value for float32)
CASES = [
    ((1, 5, 6, 16), (0, 1, 1, 0), (0, 1, 1, 0), "int8", -128),   # H, W by 1: rows of 96 bytes
    ((1, 3, 4, 5), (0, 0, 0, 1), (0, 0, 0, 2), "int8", 127),     # C only: unaligned runs of 5
    ((1, 3, 3, 4), (0, 0, 0, 4), (0, 0, 0, 8), "int8", 0),       # aligned runs of 4 (words)
    ((1, 3, 3, 12), (0, 0, 0, 4), (0, 0, 0, 0), "int8", -128),   # aligned runs of 12
    ((1, 2, 3, 16), (0, 0, 0, 16), (0, 0, 0, 0), "int8", 127),   # aligned runs of 16
    ((1, 2, 3, 8), (0, 0, 0, 0), (0, 0, 0, 8), "int8", 5),       # aligned runs of 8
    ((1, 3, 3, 3), (0, 0, 0, 1), (0, 0, 0, 0), "int8", -7),      # runs of 3
    ((1, 4, 5, 3), (0, 0, 2, 0), (0, 0, 1, 0), "int8", 127),     # W only: rows of 15 bytes (tail 15)
    ((1, 3, 17, 1), (0, 0, 0, 0), (0, 0, 3, 0), "int8", -128),   # rows of 17 (memcpy, 16 + 1)
    ((2, 3, 4, 5), (0, 0, 0, 0), (0, 0, 0, 0), "int8", 0),       # no padding: one run
    ((2, 3, 4, 5), (1, 0, 0, 0), (2, 0, 0, 0), "int8", -128),    # the batch: one run
    ((1, 2, 2, 2), (1, 2, 0, 3), (2, 0, 3, 1), "int8", 127),     # every dimension, asymmetric
    ((7,), (3,), (5,), "int8", -128),                            # rank 1
    ((1, 2, 1, 2, 1, 2, 1, 3), (0, 1, 0, 0, 1, 0, 2, 1), (1, 0, 0, 1, 0, 1, 0, 2), "int8", 127),  # rank 8
    ((1, 3, 3, 3), (0, 1, 1, 1), (0, 1, 1, 0), "int32", -(2**31)),
    ((2, 3, 2), (0, 0, 1), (0, 2, 0), "int32", 2**31 - 1),
    ((1, 3, 4, 3), (0, 1, 2, 0), (0, 1, 0, 0), "float32", float("-inf")),
    ((2, 5), (1, 0), (0, 3), "float32", -0.0),
    ((3, 2, 2), (0, 0, 1), (0, 0, 1), "float32", 2.5),
]

INT16_CASES = [
    ((1, 5, 6, 16), (0, 1, 1, 0), (0, 1, 1, 0), "int16", 0),         # A16W8's zero pad over H, W
    ((1, 3, 4, 7), (0, 0, 0, 1), (0, 0, 0, 2), "int16", -32768),     # C only: odd fills between runs
    ((1, 3, 3, 17), (0, 1, 0, 1), (0, 0, 2, 0), "int16", 32767),
    ((1, 2, 3, 33), (0, 0, 0, 0), (0, 0, 0, 7), "int16", 0),
    ((1, 4, 5, 1), (0, 2, 1, 0), (0, 1, 3, 0), "int16", -1),
    ((1, 3, 3, 3), (0, 0, 0, 1), (0, 0, 0, 0), "int16", 12345),      # fills of one halfword
    ((7,), (3,), (5,), "int16", -32768),                             # rank 1, odd start
    ((2, 3, 4, 5), (1, 0, 0, 0), (2, 0, 0, 0), "int16", 32767),      # the batch: one run
    ((2, 3, 4, 5), (0, 0, 0, 0), (0, 0, 0, 0), "int16", 0),          # no padding
    ((1, 2, 2, 2), (1, 2, 0, 3), (2, 0, 3, 1), "int16", -2),         # every dimension, asymmetric
    ((1, 1, 1, 1), (0, 0, 0, 17), (0, 0, 0, 0), "int16", 7),         # 17 halfwords before one element
]

RANDOM = 12  # seeded random ranks 1..5, sizes 1..7, paddings 0..3 a side; borders and dtypes in turn
INT16_RANDOM = 6  # ... with int16 borders (A16W8)
BORDERS = {  # (rng, case index) -> a border value of the dtype: its ends, 0 and a random one in turn
    "int8": lambda rng, i: [-128, 127, 0, int(rng.integers(-128, 128))][i % 4],
    "int16": lambda rng, i: [0, -32768, 32767, int(rng.integers(-32768, 32768))][i % 4],
    "int32": lambda rng, i: int(rng.integers(-(2**31), 2**31)),
    "float32": lambda rng, i: float(rng.standard_normal()),
}


def random_cases(label: str, count: int, dtypes: list[str]) -> list:
    """`count` seeded random pads (seeds from `label`), their dtypes `dtypes` in turn."""
    found = []
    for i in range(count):
        rng = rng_for("pad", label, i)
        rank = int(rng.integers(1, 6))
        shape = tuple(int(d) for d in rng.integers(1, 8, size=rank))
        before = tuple(int(p) for p in rng.integers(0, 4, size=rank) * (rng.random(rank) < 0.6))
        after = tuple(int(p) for p in rng.integers(0, 4, size=rank) * (rng.random(rank) < 0.6))
        dtype = dtypes[i % len(dtypes)]
        found.append((shape, before, after, dtype, BORDERS[dtype](rng, i)))
    return found


def cases() -> list[Case]:
    out = []
    every = (CASES + random_cases("random", RANDOM, ["int8", "int8", "int32", "float32"]) + INT16_CASES
             + random_cases("int16 random", INT16_RANDOM, ["int16"]))
    for k, (shape, before, after, dtype, value) in enumerate(every):
        y_shape = tuple(b + d + a for b, d, a in zip(before, shape, after))
        attrs = {"before": list(before), "after": list(after),
                 **({"float_value": value} if dtype == "float32" else {"value": value})}
        out.append(movement_case("pad", k, shape, dtype, y_shape, attrs,
                                 f"{'x'.join(map(str, shape))}_to_{'x'.join(map(str, y_shape))}",
                                 {"before": before, "after": after, "value": value}))
    return out
