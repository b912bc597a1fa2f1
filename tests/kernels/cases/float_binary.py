"""float_binary cases: every function, broadcasting forms up to rank 6 (scalar, row, column,
middle axes, both operands broadcast, the broadcast operand first or second, constants), x op x,
clamps, special values (NaN through minimum / maximum, inf - inf, 0 / 0, x / 0, ±0)."""
from __future__ import annotations

import numpy as np

from cases._float import SPECIAL, clamp_for, f32, float_case, randn, rng_for, with_specials
from compiler import reference
from conformance import Case

OP = "float_binary"
SHAPES = [  # a, b, b constant?
    ((7,), (7,), False), ((1,), (3, 5), False), ((2, 3, 5), (1,), True), ((4, 1), (1, 6), False),
    ((2, 3, 5, 7), (1, 3, 1, 7), False), ((3, 1, 4), (2, 1, 1, 1), True), ((1, 2, 1, 3, 1), (2, 1, 4, 1, 5), False),
    ((2, 1, 3, 1, 2, 3), (1, 2, 1, 2, 1, 3), False), ((1, 1, 1, 1, 1, 5), (2, 3, 1, 2, 2, 1), True),
    ((17,), (3, 2, 17), False), ((), (4, 3), False), ((3, 1), (3, 4), True),
]


def _case(function: str, name: str, a: np.ndarray, b: np.ndarray, b_constant: bool, clamp: dict) -> Case:
    operands = [f32("a", a.shape), f32("b", b.shape, data=b if b_constant else None)]
    attrs = {"function": function, **clamp}
    return float_case(OP, operands, np.broadcast_shapes(a.shape, b.shape), attrs, [a] if b_constant else [a, b],
                      f"{function}_{name}", {"a": a.shape, "b": b.shape, "b_constant": b_constant, **attrs})


def cases() -> list[Case]:
    out = []
    for f, function in enumerate(reference.FLOAT_BINARY_FUNCTIONS):
        for k, (a_shape, b_shape, b_constant) in enumerate(SHAPES):
            if (k + f) % 2:  # each function gets half the forms; together they cover all
                continue
            rng = rng_for(OP, function, k)
            a, b = randn(rng, a_shape, 2.0), randn(rng, b_shape, 2.0)
            name = f"{'x'.join(map(str, a_shape)) or 'rank0'}_{'x'.join(map(str, b_shape))}{'_const' if b_constant else ''}"
            out.append(_case(function, name, a, b, b_constant, clamp_for(k + f)))
        grid_a = np.repeat(SPECIAL, SPECIAL.size)  # every special against every special
        grid_b = np.tile(SPECIAL, SPECIAL.size)
        out.append(_case(function, "special_grid", grid_a, grid_b, False, {}))
        out.append(_case(function, "special_clamped", grid_a, grid_b, True, clamp_for(3)))
        rng = rng_for(OP, function, "twice")
        x = with_specials(rng, (3, 5))
        out.append(float_case(OP, [f32("x", x.shape)] * 2, x.shape, {"function": function}, [x],
                              f"{function}_x_op_x", {"a": x.shape, "b": "the same tensor", "function": function}))
    return out
