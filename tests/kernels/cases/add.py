"""add (and sub: add with one input multiplier negated): the broadcast forms with fast paths (same
shape, scalar, channel row; either operand broadcast) and general NumPy broadcasts (both operands
broadcast, middle axes, per-row columns, ranks 0..5 mixed, the walk's odometer), both operands
program inputs or one constant (either one), x + x, zero points at the ends, scales far apart, shifts > 0 with
clamps, odd lengths around the SIMD words. int16 (A16W8, zero points 0, headroom shift 13): the
same broadcast forms (same shape, scalar, channel rows of 1, 7, 17, 33, general broadcasts, a
constant operand), sub, -32768 / 32767 everywhere, scales far apart, shifts > 0 with int16 clamps,
lengths not a multiple of 4 or 8."""
from __future__ import annotations

from compiler import reference
from compiler.fixedpoint import quantize_multiplier
import numpy as np

from conformance import (Case, edge_int16, elementwise_cases, int16_tensor, random_broadcast_shapes, rng_for,
                         single_op)

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


INT16_SHAPES = [((1, 8, 8, 32), (1, 8, 8, 32), False), ((2, 3, 5, 7), (2, 3, 5, 7), True),
                ((1, 4, 3, 17), (1,), True), ((2, 3, 3, 5), (1, 1, 1, 1), False), ((2, 4, 5, 33), (1, 1, 1, 33), True),
                ((3, 6, 7), (7,), False), ((1, 1, 1, 1), (1, 1, 1, 1), False), ((1, 1, 1, 17), (2, 4, 5, 17), False),
                ((1,), (3, 5, 7), True), ((1, 1003), (1, 1003), False), ((1, 1, 1, 1), (2, 3, 1, 1), False),
                ((2, 3, 4, 5), (3, 1, 5), False), ((2, 3, 1, 16), (1, 3, 5, 1), False), ((9,), (4, 1), True),
                ((), (3, 5), False), ((1, 1, 33), (3, 7, 1), False), ((5, 1, 1, 3, 1), (1, 4, 2, 1, 7), False),
                ((2, 3, 5, 7), (2, 3, 5, 7), "a"), ((33,), (3, 6, 33), "a"), ((1, 13), (1, 13), False)]
INT16_SHAPES += random_broadcast_shapes("add int16", 6, general=6)


def int16_params(rng, k: int) -> dict:
    scale_a, scale_b, scale_out = SCALES[k % 3] or (float(v) for v in 2.0 ** rng.uniform(-14, -6, size=3))
    twice = 2 * max(scale_a, scale_b)
    ma, sa = quantize_multiplier(scale_a / twice)
    mb, sb = quantize_multiplier(scale_b / twice)
    mo, so = quantize_multiplier(twice / ((1 << reference.ADD_LEFT_SHIFT_S16) * scale_out))
    p = dict(a_offset=0, a_multiplier=ma, a_shift=sa, b_offset=0, b_multiplier=mb, b_shift=sb, output_offset=0,
             output_multiplier=mo, output_shift=so, activation_min=-32768, activation_max=32767)
    if k % 5 == 3:  # shifts > 0 on every requantization, and clamps
        m = quantize_multiplier(3.0)[0]
        p.update(a_multiplier=m, a_shift=2, b_multiplier=m, b_shift=1, output_multiplier=m, output_shift=3,
                 activation_min=-9000, activation_max=12000)
    if k % 4 == 2:  # sub: one input's multiplier negated
        p["b_multiplier" if k % 8 == 2 else "a_multiplier"] *= -1
    return p


def int16_cases() -> list[Case]:
    out = []
    for k, (a_shape, b_shape, constant) in enumerate(INT16_SHAPES):
        rng = rng_for("add", "int16", k)
        p = int16_params(rng, k)
        a, b = edge_int16(rng, a_shape), edge_int16(rng, b_shape)
        a_constant, b_constant = constant == "a", constant is True
        operands = [int16_tensor("a", a_shape, data=a if a_constant else None),
                    int16_tensor("b", b_shape, data=b if b_constant else None)]
        suffix = "_const_a" if a_constant else "_const" if b_constant else ""
        name = f"int16_{k}_{'x'.join(map(str, a_shape))}_add_{'x'.join(map(str, b_shape))}{suffix}"
        out.append(single_op("add", operands, int16_tensor("y", np.broadcast_shapes(a_shape, b_shape)), p,
                             [b] if a_constant else [a] if b_constant else [a, b], name=name,
                             params={"a": a_shape, "b": b_shape, "constant": constant, "dtype": "int16", **p}))
    rng = rng_for("add", "int16 twice")
    p = int16_params(rng, 1)
    x = edge_int16(rng, (1, 5, 5, 9))
    out.append(single_op("add", [int16_tensor("x", x.shape)] * 2, int16_tensor("y", x.shape), p, [x],
                         name="int16_x_add_x_1x5x5x9", params={"a": x.shape, "b": "the same tensor", "dtype": "int16", **p}))
    return out


def cases() -> list[Case]:
    return elementwise_cases("add", SHAPES, params, (1, 9, 9, 20)) + sub_cases() + int16_cases()
