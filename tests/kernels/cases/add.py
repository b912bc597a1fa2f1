"""add: every broadcast form the adapter takes (same shape, scalar, channel row; either operand
broadcast), both operands program inputs or one constant, x + x, zero points at the ends, scales
far apart, shifts > 0 with clamps, odd lengths around the SIMD words."""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.fixedpoint import quantize_multiplier
from conformance import Case, edge_int8, int8_tensor, rng_for, single_op

# a shape, b shape, b constant?
SHAPES = [((1, 8, 8, 32), (1, 8, 8, 32), False), ((2, 3, 5, 7), (2, 3, 5, 7), True),
          ((1, 4, 3, 17), (1,), True), ((2, 3, 3, 5), (1, 1, 1, 1), False), ((2, 4, 5, 19), (1, 1, 1, 19), True),
          ((3, 6, 33), (33,), False), ((1, 1, 1, 1), (1, 1, 1, 1), False), ((1, 1, 1, 19), (2, 4, 5, 19), False),
          ((1,), (3, 5, 7), True), ((1, 1003), (1, 1003), False)]
ZPS = [(-128, 127, -128), (127, -128, 127), (0, 0, 0), None]
SCALES = [None, (0.5, 0.001, 0.3), (0.02, 0.02, 0.04)]



def random_shapes(count: int = 10) -> list:
    """Seeded random operand shapes in each broadcast form: same, scalar, channel row; the
    broadcast operand first or second."""
    found = []
    for i in range(count):
        rng = rng_for("add", "random", i)
        full = tuple(int(d) for d in rng.integers(1, 10, size=int(rng.integers(1, 5))))
        other = [full, (1,) * int(rng.integers(1, 5)), (1,) * int(rng.integers(0, 4)) + full[-1:]][i % 3]
        found.append((other, full, bool(i % 2)) if i % 4 >= 2 else (full, other, bool(i % 2)))
    return found


SHAPES += random_shapes()


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


def cases() -> list[Case]:
    out = []
    for k, (a_shape, b_shape, b_constant) in enumerate(SHAPES):
        rng = rng_for("add", k)
        p = params(rng, k)
        a, b = edge_int8(rng, a_shape), edge_int8(rng, b_shape)
        y_shape = np.broadcast_shapes(a_shape, b_shape)
        operands = [int8_tensor("a", a_shape), int8_tensor("b", b_shape, data=b if b_constant else None)]
        inputs = [a] if b_constant else [a, b]
        out.append(single_op("add", operands, int8_tensor("y", y_shape), p, inputs,
                             name=f"{'x'.join(map(str, a_shape))}+{'x'.join(map(str, b_shape))}{'_const' if b_constant else ''}",
                             params={"a": a_shape, "b": b_shape, "b_constant": b_constant, **p}))
    rng = rng_for("add", "twice")
    p = params(rng, 2)
    x = edge_int8(rng, (1, 9, 9, 20))
    out.append(single_op("add", [int8_tensor("x", x.shape)] * 2, int8_tensor("y", x.shape), p, [x],
                         name="x+x_1x9x9x20", params={"a": x.shape, "b": "the same tensor", **p}))
    return out
