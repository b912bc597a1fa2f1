"""minimum / maximum's shared shapes: lengths 1..17 around the MVE lanes (16) and DSP words (4),
every broadcast form (scalar, channel row with row tails 1..15, either operand broadcast), one
operand constant, x op x; one quantization for all three tensors (the op has no attrs)."""
from __future__ import annotations

from conformance import Case, elementwise_cases, random_broadcast_shapes

# a shape, b shape, b constant?
SHAPES = [((n,), (n,), n % 2 == 0) for n in (1, 2, 3, 4, 5, 7, 15, 16, 17)]
SHAPES += [((2, 3, c), (c,), c % 2 == 1) for c in (1, 3, 6, 13, 15)]
SHAPES += [((1, 1, 1, c), (1, 2, 3, c), c % 2 == 0) for c in (2, 9, 16)]
SHAPES += [((1, 4, 3, 17), (1,), True), ((1,), (2, 3, 5, 7), False), ((1, 1, 1, 1), (1, 1, 1, 1), False),
           ((2, 3, 3, 5), (1, 1, 1, 1), False), ((1, 1003), (1, 1003), False), ((1, 8, 8, 33), (1, 8, 8, 33), True)]


def min_max_cases(op: str) -> list[Case]:
    shapes = list(dict.fromkeys(SHAPES + random_broadcast_shapes(op, 8)))  # a random one may repeat a fixed one
    return elementwise_cases(op, shapes, lambda rng, k: {}, (1, 5, 5, 13))
