"""float_max_pool2d cases: windows bigger than the stride, asymmetric padding (padding never
wins), global windows, channel tails, clamps, special values (-inf everywhere, NaN, ±0 ties)."""
from __future__ import annotations

from cases._float_pool import pool_cases
from conformance import Case

OP = "float_max_pool2d"


def cases() -> list[Case]:
    return pool_cases(OP, {})
