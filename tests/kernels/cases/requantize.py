"""requantize: every int8 value through each (multiplier, shift): exact halves, quarters and
eighths (rounding ties of both signs), ratios below and above 1 (shift > 0, saturating), a zero
multiplier, the multiplier / shift extremes; input and output zero points at both ends (mostly at the
same end, so the outputs are not all clamped); counts
1..7 and past 256 for the MVE's 4-lane tails; seeded random ratios and shapes. A16W8's boundaries
(output_type INT16 where the output is int16; int16 zero points 0): int8 -> int16 (every int8
code, ratios up to 2^9 and the multiplier / shift extremes, saturating at ±32767), int16 -> int8
and int16 -> int16 (codes across the whole int16 range with -32768 / 32767, ties at every
right shift, ratios past 1 that saturate), lane tails, seeded random ratios and shapes."""
from __future__ import annotations

import numpy as np

from compiler.fixedpoint import quantize_multiplier
from compiler.schema import program_generated as fb
from conformance import Case, edge_int16, edge_int8, int16_tensor, int8_tensor, rng_for, single_op, zero_point

EVERY = (256,)  # each int8 value once (shuffled)

# shape, (multiplier, shift) or a real ratio scale_in / scale_out
CASES = [
    (EVERY, 0.5),                   # ties at every odd centred value
    (EVERY, (1 << 30, -1)),         # x / 4: ties at 2 mod 4
    (EVERY, (1 << 30, -2)),         # x / 8
    (EVERY, 1.0),                   # shift 1
    (EVERY, 2.0),                   # shift 2: saturates
    (EVERY, 3.7),
    (EVERY, 100.0),                 # shift 7
    (EVERY, 0.3),
    (EVERY, 0.999),
    (EVERY, 1 / 255),
    (EVERY, (0, 0)),                # a zero multiplier: the output zero point
    (EVERY, (2**31 - 1, 30)),       # the largest left shift of the largest multiplier
    (EVERY, (2**31 - 1, -31)),      # the largest right shift
    (EVERY, (1 << 30, -31)),
    ((1,), 0.5), ((2,), 1.5), ((3,), 0.7), ((5,), 0.25), ((7,), 2.5),   # lane tails 1..3
    ((1, 4, 4, 17), 0.8),           # 272 = 68 x 4
    ((1, 3, 3, 5), 1.3),            # 45: tail 1
    ((2, 1, 1, 131), 0.05),         # 262: tail 2
]

RANDOM = 8  # seeded random ratios 2^-8..2^3, shapes of 1..300 elements


def random_cases() -> list:
    found = []
    for i in range(RANDOM):
        rng = rng_for("requantize", "random", i)
        shape = tuple(int(d) for d in rng.integers(1, 9, size=int(rng.integers(1, 5))))
        found.append((shape, float(2.0 ** rng.uniform(-8, 3))))
    return found


def cases() -> list[Case]:
    out = []
    for k, (shape, ratio) in enumerate(CASES + random_cases()):
        rng = rng_for("requantize", k)
        multiplier, shift = ratio if isinstance(ratio, tuple) else quantize_multiplier(ratio)
        zp_in = zero_point(rng, k)
        # the output zero point at the input's end keeps most outputs off the clamps (ties
        # visible); at opposite ends nearly every output clamps
        zp_out = zp_in if k % 4 < 3 else zero_point(rng, k + 1 + k // 4 % 2)
        x = (rng.permutation(np.arange(-128, 128)).astype(np.int8) if shape == EVERY else edge_int8(rng, shape))
        attrs = {"input_offset": -zp_in, "output_offset": zp_out, "output_multiplier": int(multiplier),
                 "output_shift": int(shift)}
        name = f"{k}_{'x'.join(map(str, shape))}_m{multiplier}_s{shift}_zp{zp_in}_{zp_out}"
        out.append(single_op("requantize", [int8_tensor("x", shape, zp_in)], int8_tensor("y", shape, zp_out), attrs,
                             [x.reshape(shape)], name=name,
                             params={"shape": shape, "ratio": ratio, **attrs, "every_int8": shape == EVERY}))
    return out + int16_cases()


SWEEP = (4099,)  # every 16th int16 code and the ends (int16 inputs)
LIMITS = [(0, 0), (2**31 - 1, 30), (2**31 - 1, -31), (1 << 30, -31), (2**31 - 1, 0), (1 << 30, 14)]
# direction, shape, (multiplier, shift) or a real ratio scale_in / scale_out
INT16_CASES = [
    ("s8_s16", EVERY, 256.0), ("s8_s16", EVERY, 255.5), ("s8_s16", EVERY, 1.0), ("s8_s16", EVERY, 0.5),
    ("s8_s16", EVERY, 300.0), ("s8_s16", EVERY, 0.01),
    *[("s8_s16", EVERY, limit) for limit in LIMITS],
    ("s8_s16", (1,), 17.0), ("s8_s16", (2,), 3.0), ("s8_s16", (3,), 99.0), ("s8_s16", (7,), 128.0),
    ("s8_s16", (1, 3, 3, 17), 40.0),
    ("s16_s8", SWEEP, 1 / 256), ("s16_s8", SWEEP, 1 / 255), ("s16_s8", SWEEP, 1 / 512), ("s16_s8", SWEEP, 1 / 128),
    ("s16_s8", SWEEP, (1 << 30, -8)), ("s16_s8", SWEEP, 0.001), ("s16_s8", SWEEP, 1.0),
    *[("s16_s8", SWEEP, limit) for limit in LIMITS],
    ("s16_s8", (1,), 0.3), ("s16_s8", (2,), 0.01), ("s16_s8", (3,), 1 / 300), ("s16_s8", (5,), 0.02),
    ("s16_s8", (1, 3, 3, 33), 0.004),
    ("s16_s16", SWEEP, 0.5), ("s16_s16", SWEEP, (1 << 30, -1)), ("s16_s16", SWEEP, (1 << 30, -2)),
    ("s16_s16", SWEEP, 1.0), ("s16_s16", SWEEP, 2.0), ("s16_s16", SWEEP, 0.999), ("s16_s16", SWEEP, 1.7),
    ("s16_s16", SWEEP, 1 / 3),
    *[("s16_s16", SWEEP, limit) for limit in LIMITS],
    ("s16_s16", (1,), 0.7), ("s16_s16", (2,), 1.3), ("s16_s16", (3,), 0.25), ("s16_s16", (7,), 2.5),
    ("s16_s16", (1, 4, 4, 17), 0.8), ("s16_s16", (2, 1, 1, 131), 0.05),
]
INT16_RANDOM = 9  # seeded random directions, ratios and shapes of 1..300 elements


def int16_cases() -> list[Case]:
    found = list(INT16_CASES)
    for i in range(INT16_RANDOM):
        rng = rng_for("requantize", "int16 random", i)
        shape = tuple(int(d) for d in rng.integers(1, 9, size=int(rng.integers(1, 5))))
        direction = ["s8_s16", "s16_s8", "s16_s16"][i % 3]
        spread = {"s8_s16": (-2, 9), "s16_s8": (-10, 0), "s16_s16": (-4, 2)}[direction]
        found.append((direction, shape, float(2.0 ** rng.uniform(*spread))))
    out = []
    for k, (direction, shape, ratio) in enumerate(found):
        rng = rng_for("requantize", "int16", k)
        multiplier, shift = ratio if isinstance(ratio, tuple) else quantize_multiplier(ratio)
        in16, out16 = direction.startswith("s16"), direction.endswith("s16")
        zp_in = 0 if in16 else zero_point(rng, k)
        zp_out = 0 if out16 else (zp_in if in16 is False else zero_point(rng, k + 1))
        if shape == EVERY:
            x = rng.permutation(np.arange(-128, 128)).astype(np.int8)
        elif shape == SWEEP:
            x = rng.permutation(np.concatenate([np.arange(-(2**15), 2**15, 16), [2**15 - 1, -1, 1]])).astype(np.int16)
        else:
            x = edge_int16(rng, shape) if in16 else edge_int8(rng, shape)
        attrs = {"input_offset": -zp_in, "output_offset": zp_out, "output_multiplier": int(multiplier),
                 "output_shift": int(shift), "output_type": fb.DType.INT16 if out16 else fb.DType.INT8}
        source = int16_tensor("x", shape) if in16 else int8_tensor("x", shape, zp_in)
        target = int16_tensor("y", shape) if out16 else int8_tensor("y", shape, zp_out)
        name = f"{direction}_{k}_{'x'.join(map(str, shape))}_m{multiplier}_s{shift}_zp{zp_in}_{zp_out}"
        out.append(single_op("requantize", [source], target, attrs, [x.reshape(shape)], name=name,
                             params={"direction": direction, "shape": shape, "ratio": ratio, **attrs}))
    return out
