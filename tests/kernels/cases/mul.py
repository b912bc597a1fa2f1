"""mul: every broadcast form the adapter takes (same shape, scalar, channel row such as an SE
gate; either operand broadcast), products at ±2^14 (-128 · -128 with zero points at the ends),
one operand constant, x · x, clamps, odd lengths."""
from __future__ import annotations

import numpy as np

from compiler.fixedpoint import quantize_multiplier
from conformance import Case, edge_int8, int8_tensor, rng_for, single_op

# a shape, b shape, b constant?
SHAPES = [((1, 8, 8, 32), (1, 8, 8, 32), False), ((2, 3, 5, 7), (2, 3, 5, 7), True),
          ((1, 4, 3, 17), (1,), True), ((2, 3, 3, 5), (1, 1, 1, 1), False), ((2, 4, 5, 19), (1, 1, 1, 19), False),
          ((3, 6, 33), (33,), True), ((1, 1, 1, 1), (1, 1, 1, 1), False), ((1, 1, 1, 24), (1, 7, 5, 24), False),
          ((1,), (3, 5, 7), False), ((1, 1003), (1, 1003), False)]
ZPS = [(-128, 127, -128), (127, -128, 127), (0, 0, 0), (127, 127, 5), None]



def random_shapes(count: int = 10) -> list:
    """Seeded random operand shapes in each broadcast form: same, scalar, channel row; the
    broadcast operand first or second."""
    found = []
    for i in range(count):
        rng = rng_for("mul", "random", i)
        full = tuple(int(d) for d in rng.integers(1, 10, size=int(rng.integers(1, 5))))
        other = [full, (1,) * int(rng.integers(1, 5)), (1,) * int(rng.integers(0, 4)) + full[-1:]][i % 3]
        found.append((other, full, bool(i % 2)) if i % 4 >= 2 else (full, other, bool(i % 2)))
    return found


SHAPES += random_shapes()


def params(rng, k: int) -> dict:
    scale_a, scale_b = (float(v) for v in 2.0 ** rng.uniform(-6, -2, size=2))
    scale_out = scale_a * scale_b * float(2.0 ** rng.uniform(4, 9))
    zps = ZPS[k % 5] or tuple(int(v) for v in rng.integers(-128, 128, size=3))
    m, s = quantize_multiplier(scale_a * scale_b / scale_out)
    act = (-128, 127) if k % 3 else (-100, 110)
    return dict(a_offset=-zps[0], b_offset=-zps[1], output_offset=zps[2], output_multiplier=m, output_shift=s,
                activation_min=act[0], activation_max=act[1])


def cases() -> list[Case]:
    out = []
    for k, (a_shape, b_shape, b_constant) in enumerate(SHAPES):
        rng = rng_for("mul", k)
        p = params(rng, k)
        a, b = edge_int8(rng, a_shape), edge_int8(rng, b_shape)
        y_shape = np.broadcast_shapes(a_shape, b_shape)
        operands = [int8_tensor("a", a_shape), int8_tensor("b", b_shape, data=b if b_constant else None)]
        inputs = [a] if b_constant else [a, b]
        out.append(single_op("mul", operands, int8_tensor("y", y_shape), p, inputs,
                             name=f"{'x'.join(map(str, a_shape))}*{'x'.join(map(str, b_shape))}{'_const' if b_constant else ''}",
                             params={"a": a_shape, "b": b_shape, "b_constant": b_constant, **p}))
    rng = rng_for("mul", "twice")
    p = params(rng, 1)
    x = edge_int8(rng, (1, 5, 5, 13))
    out.append(single_op("mul", [int8_tensor("x", x.shape)] * 2, int8_tensor("y", x.shape), p, [x],
                         name="x*x_1x5x5x13", params={"a": x.shape, "b": "the same tensor", **p}))
    return out
