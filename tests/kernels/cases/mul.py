"""mul: the broadcast forms with fast paths (same shape, scalar, channel row such as an SE gate;
either operand broadcast) and general NumPy broadcasts (outer products such as x.unsqueeze(1) ·
y.unsqueeze(2), both operands broadcast, middle axes, ranks 0..5 mixed), products at ±2^14
(-128 · -128 with zero points at the ends), one operand constant, x · x, clamps, odd lengths;
and int16 (A16W8, zero points 0): the same forms with products at ±2^30 (-32768 · -32768),
multipliers from 2^-17 to past 1 (every output clamped), narrow clamps."""
from __future__ import annotations

import numpy as np

from compiler.fixedpoint import quantize_multiplier
from conformance import Case, edge_values, elementwise_cases, int16_tensor, random_broadcast_shapes, rng_for, single_op

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


# int16: a shape, b shape, b constant? (the forms above, odd lengths around the 4-lane step)
SHAPES_S16 = [((1, 8, 8, 32), (1, 8, 8, 32), False), ((2, 3, 5, 7), (2, 3, 5, 7), True),
              ((1, 4, 3, 17), (1,), True), ((2, 4, 5, 19), (1, 1, 1, 19), False), ((1,), (3, 5, 7), False),
              ((3, 1, 9), (3, 7, 1), False), ((1, 1003), (1, 1003), False), ((1, 1, 1, 1), (1, 1, 1, 1), False),
              ((1, 2, 1, 4, 1), (3, 1, 5, 1, 6), False), ((5,), (5,), False), ((2, 3), (), True)]
SHAPES_S16 += random_broadcast_shapes("mul_s16", 6, general=6)
# real multipliers, log2: outputs across int16 (-17..-13), mostly clamped (-8), all clamped (0.5)
REALS_S16 = [-15.0, -13.5, -17.0, -8.0, -0.5, -14.2]


def int16_cases() -> list[Case]:
    out = []
    for k, (a_shape, b_shape, constant) in enumerate(SHAPES_S16):
        rng = rng_for("mul_s16", k)
        m, s = quantize_multiplier(2.0 ** REALS_S16[k % len(REALS_S16)])
        act = (-32768, 32767) if k % 3 else (-20000, 25001)
        p = dict(a_offset=0, b_offset=0, output_offset=0, output_multiplier=m, output_shift=s,
                 activation_min=act[0], activation_max=act[1])
        a, b = edge_values(rng, "int16", a_shape), edge_values(rng, "int16", b_shape)
        operands = [int16_tensor("a", a_shape), int16_tensor("b", b_shape, data=b if constant else None)]
        name = f"s16_{'x'.join(map(str, a_shape))}_mul_{'x'.join(map(str, b_shape))}{'_const' if constant else ''}"
        out.append(single_op("mul", operands, int16_tensor("y", np.broadcast_shapes(a_shape, b_shape)), p,
                             [a] if constant else [a, b], name=name,
                             params={"a": a_shape, "b": b_shape, "constant": constant, **p}))
    rng = rng_for("mul_s16", "twice")
    x = edge_values(rng, "int16", (1, 5, 5, 13))
    m, s = quantize_multiplier(2.0 ** -15)
    p = dict(a_offset=0, b_offset=0, output_offset=0, output_multiplier=m, output_shift=s,
             activation_min=-32768, activation_max=32767)
    out.append(single_op("mul", [int16_tensor("x", x.shape)] * 2, int16_tensor("y", x.shape), p, [x],
                         name="s16_x_mul_x_1x5x5x13", params={"a": x.shape, "b": "the same tensor", **p}))
    return out


def cases() -> list[Case]:
    return elementwise_cases("mul", SHAPES, params, (1, 5, 5, 13)) + int16_cases()
