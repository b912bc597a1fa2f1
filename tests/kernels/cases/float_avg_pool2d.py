"""float_avg_pool2d cases: with and without count_include_pad, asymmetric padding (borders
divide by fewer cells), global windows, channel tails, clamps, special values (inf, -inf, NaN)."""
from __future__ import annotations

from cases._float_pool import pool_cases
from conformance import Case

OP = "float_avg_pool2d"


def cases() -> list[Case]:
    return pool_cases(OP, {"count_include_pad": True}) + pool_cases(OP, {"count_include_pad": False}, "excl_")
