"""minimum / maximum's shared shapes: lengths 1..17 around the MVE lanes (16) and DSP words (4),
the forms with fast paths (scalar, channel row with row tails 1..15, either operand broadcast),
general NumPy broadcasts (both operands broadcast, middle axes, runs of a repeated value 1..33
long, ranks 0..5 mixed), either operand constant, x op x; one quantization for all three tensors
(the op has no attrs)."""
from __future__ import annotations

from conformance import Case, elementwise_cases, random_broadcast_shapes

# a shape, b shape, b constant?
SHAPES = [((n,), (n,), n % 2 == 0) for n in (1, 2, 3, 4, 5, 7, 15, 16, 17)]
SHAPES += [((2, 3, c), (c,), c % 2 == 1) for c in (1, 3, 6, 13, 15)]
SHAPES += [((1, 1, 1, c), (1, 2, 3, c), c % 2 == 0) for c in (2, 9, 16)]
SHAPES += [((1, 4, 3, 17), (1,), True), ((1,), (2, 3, 5, 7), False), ((1, 1, 1, 1), (1, 1, 1, 1), False),
           ((2, 3, 3, 5), (1, 1, 1, 1), False), ((1, 1003), (1, 1003), False), ((1, 8, 8, 33), (1, 8, 8, 33), True)]
# general broadcasts: runs of two arrays, of a repeated a and of a repeated b, lane / word tails
GENERAL = [((1, 3, 17), (2, 1, 17), False), ((4, 1), (1, 33), False), ((2, 5, 1), (1, 1, 15), True),
           ((3, 16), (2, 1, 1), False), ((2, 1, 4), (2, 3, 1), False), ((1, 5, 1, 3), (2, 1, 4, 1), True),
           ((2, 1, 3, 1, 2), (1, 2, 1, 3, 1), False), ((), (4, 5), False), ((6, 1, 7), (5, 1), True)]
# after the random ones (seeds follow the index): one run of 510 (DSP words, a tail of 2 bytes;
# MVE 31 steps and a tail of 14), and 30 runs of 17 (16 and a tail of 1) against a row broadcast
# from either side, the rank-1 row a constant first operand
RUNS = [((2, 3, 5, 17), (2, 3, 5, 17), False), ((2, 3, 5, 17), (1, 1, 1, 17), False), ((17,), (2, 3, 5, 17), "a")]


def min_max_cases(op: str) -> list[Case]:
    # a random one may repeat a fixed one
    shapes = list(dict.fromkeys(SHAPES + random_broadcast_shapes(op, 8) + GENERAL
                                + random_broadcast_shapes(op, 0, general=8) + RUNS))
    return elementwise_cases(op, shapes, lambda rng, k: {}, (1, 5, 5, 13))
