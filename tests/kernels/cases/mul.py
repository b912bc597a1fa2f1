"""mul: the broadcast forms with fast paths (same shape, scalar, channel row such as an SE gate;
either operand broadcast) and general NumPy broadcasts (outer products such as x.unsqueeze(1) ·
y.unsqueeze(2), both operands broadcast, middle axes, ranks 0..5 mixed), products at ±2^14
(-128 · -128 with zero points at the ends), one operand constant, x · x, clamps, odd lengths."""
from __future__ import annotations

from compiler.fixedpoint import quantize_multiplier
from conformance import Case, elementwise_cases, random_broadcast_shapes

# a shape, b shape, b constant?
SHAPES = [((1, 8, 8, 32), (1, 8, 8, 32), False), ((2, 3, 5, 7), (2, 3, 5, 7), True),
          ((1, 4, 3, 17), (1,), True), ((2, 3, 3, 5), (1, 1, 1, 1), False), ((2, 4, 5, 19), (1, 1, 1, 19), False),
          ((3, 6, 33), (33,), True), ((1, 1, 1, 1), (1, 1, 1, 1), False), ((1, 1, 1, 24), (1, 7, 5, 24), False),
          ((1,), (3, 5, 7), False), ((1, 1003), (1, 1003), False)]
ZPS = [(-128, 127, -128), (127, -128, 127), (0, 0, 0), (127, 127, 5), None]
SHAPES += random_broadcast_shapes("mul", 10)
# general broadcasts (after the others, whose seeds follow their index)
SHAPES += [((3, 1, 9), (3, 7, 1), False), ((1, 6, 1, 1), (1, 1, 5, 16), True), ((2, 1, 5), (1, 3, 1), False),
           ((4, 4, 17), (4, 1, 17), True), ((1, 24), (5, 1), False), ((7, 3, 1, 2), (3, 4, 1), False),
           ((1, 2, 1, 4, 1), (3, 1, 5, 1, 6), False), ((), (2, 3), True), ((2, 1, 3, 1, 2), (1, 2, 1, 3, 1), False)]
SHAPES += random_broadcast_shapes("mul", 0, general=10)
# a rank-1 row under a 4-D map, and two 3-D / 4-D operands both broadcast
SHAPES += [((17,), (2, 3, 5, 17), False), ((3, 1, 17), (2, 1, 5, 1), False), ((2, 3, 5, 17), (2, 1, 5, 17), True)]


def params(rng, k: int) -> dict:
    scale_a, scale_b = (float(v) for v in 2.0 ** rng.uniform(-6, -2, size=2))
    scale_out = scale_a * scale_b * float(2.0 ** rng.uniform(4, 9))
    zps = ZPS[k % 5] or tuple(int(v) for v in rng.integers(-128, 128, size=3))
    m, s = quantize_multiplier(scale_a * scale_b / scale_out)
    act = (-128, 127) if k % 3 else (-100, 110)
    return dict(a_offset=-zps[0], b_offset=-zps[1], output_offset=zps[2], output_multiplier=m, output_shift=s,
                activation_min=act[0], activation_max=act[1])


def cases() -> list[Case]:
    return elementwise_cases("mul", SHAPES, params, (1, 5, 5, 13))
