"""add (and sub: add with one input multiplier negated): the broadcast forms with fast paths (same
shape, scalar, channel row; either operand broadcast) and general NumPy broadcasts (both operands
broadcast, middle axes, per-row columns, ranks 0..5 mixed, the walk's odometer), both operands
program inputs or one constant (either one), x + x, zero points at the ends, scales far apart, shifts > 0 with
clamps, odd lengths around the SIMD words."""
from __future__ import annotations

from compiler import reference
from compiler.fixedpoint import quantize_multiplier
from conformance import Case, elementwise_cases, random_broadcast_shapes

# a shape, b shape, constant (True: b, "a": a, False: neither)
SHAPES = [((1, 8, 8, 32), (1, 8, 8, 32), False), ((2, 3, 5, 7), (2, 3, 5, 7), True),
          ((1, 4, 3, 17), (1,), True), ((2, 3, 3, 5), (1, 1, 1, 1), False), ((2, 4, 5, 19), (1, 1, 1, 19), True),
          ((3, 6, 33), (33,), False), ((1, 1, 1, 1), (1, 1, 1, 1), False), ((1, 1, 1, 19), (2, 4, 5, 19), False),
          ((1,), (3, 5, 7), True), ((1, 1003), (1, 1003), False)]
ZPS = [(-128, 127, -128), (127, -128, 127), (0, 0, 0), None]
SCALES = [None, (0.5, 0.001, 0.3), (0.02, 0.02, 0.04)]
SHAPES += random_broadcast_shapes("add", 10)
# general broadcasts (after the others, whose seeds follow their index)
GENERAL = [((1, 4, 4, 1), (1, 1, 1, 13), False), ((1, 8, 1), (1, 1, 8), False), ((2, 1, 5), (1, 3, 1), True),
           ((2, 3, 4, 5), (3, 1, 5), False), ((2, 3, 4, 17), (2, 3, 4, 1), True), ((2, 3, 1, 16), (1, 3, 5, 1), False),
           ((5, 1, 1, 3, 1), (1, 4, 2, 1, 7), False), ((9,), (4, 1), True), ((), (3, 5), False),
           ((1, 1, 33), (3, 7, 1), False), ((2, 1, 3, 1, 2), (1, 2, 1, 3, 1), False)]
SHAPES += GENERAL + random_broadcast_shapes("add", 0, general=10)
# the constant as the first operand ("a"), of the same shape, broadcast, or a middle axis
SHAPES += [((2, 3, 5, 7), (2, 3, 5, 7), "a"), ((1,), (1, 4, 3, 17), "a"), ((1, 1, 1, 19), (2, 4, 5, 19), "a"),
           ((33,), (3, 6, 33), "a"), ((1, 3, 1), (2, 3, 4), "a"), ((2, 1, 1), (2, 3, 4), "a")]


def params(rng, k: int) -> dict:
    scale_a, scale_b, scale_out = SCALES[k % 3] or (float(v) for v in 2.0 ** rng.uniform(-8, 0, size=3))
    zps = ZPS[k % 4] or tuple(int(v) for v in rng.integers(-128, 128, size=3))
    twice = 2 * max(scale_a, scale_b)
    ma, sa = quantize_multiplier(scale_a / twice)
    mb, sb = quantize_multiplier(scale_b / twice)
    mo, so = quantize_multiplier(twice / ((1 << reference.ADD_LEFT_SHIFT) * scale_out))
    p = dict(a_offset=-zps[0], a_multiplier=ma, a_shift=sa, b_offset=-zps[1], b_multiplier=mb, b_shift=sb,
             output_offset=zps[2], output_multiplier=mo, output_shift=so, activation_min=-128, activation_max=127)
    if k % 5 == 3:  # shifts > 0 on every requantization, and clamps
        m = quantize_multiplier(3.0)[0]
        p.update(a_multiplier=m, a_shift=2, b_multiplier=m, b_shift=1, output_multiplier=m, output_shift=3,
                 activation_min=-30, activation_max=40)
    return p


# sub is add with input 2's multiplier negated: the same broadcast forms, lane / word tails
SUB_SHAPES = [((1, 4, 4, 16), (1, 4, 4, 16), False), ((1, 1, 1, 15), (1, 1, 1, 15), False),
              ((1, 3, 1, 3), (1, 3, 1, 3), True), ((2, 3, 3, 17), (1,), False), ((1,), (1, 5, 7, 1), True),
              ((2, 3, 4, 13), (1, 1, 1, 13), False), ((1, 1, 1, 9), (3, 2, 2, 9), True), ((1, 1, 1, 1), (1,), False)]
SUB_SHAPES += random_broadcast_shapes("sub", 6)
SUB_SHAPES += [((3, 1, 15), (1, 5, 1), False), ((1, 6, 1, 4), (2, 1, 3, 1), True), ((4,), (3, 1), False),
               ((2, 3, 1, 7), (3, 5, 1), False)] + random_broadcast_shapes("sub", 0, general=6)


def sub_params(rng, k: int) -> dict:
    p = params(rng, k)
    if k % 3 == 2:  # the first operand negated instead: the kernel takes either sign on either input
        return {**p, "a_multiplier": -p["a_multiplier"]}
    return {**p, "b_multiplier": -p["b_multiplier"]}


def sub_cases() -> list[Case]:
    found = elementwise_cases("add", SUB_SHAPES, sub_params, (1, 3, 5, 7))
    for case in found:
        case.name = f"sub_{case.name}"
    return found


def cases() -> list[Case]:
    return elementwise_cases("add", SHAPES, params, (1, 9, 9, 20)) + sub_cases()
