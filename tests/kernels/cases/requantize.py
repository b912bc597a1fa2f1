"""requantize: every int8 value through each (multiplier, shift): exact halves, quarters and
eighths (rounding ties of both signs), ratios below and above 1 (shift > 0, saturating), a zero
multiplier, the multiplier / shift extremes; input and output zero points at both ends (mostly at the
same end, so the outputs are not all clamped); counts
1..7 and past 256 for the MVE's 4-lane tails; seeded random ratios and shapes."""
from __future__ import annotations

import numpy as np

from compiler.fixedpoint import quantize_multiplier
from conformance import Case, edge_int8, int8_tensor, rng_for, single_op, zero_point

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
    return out
