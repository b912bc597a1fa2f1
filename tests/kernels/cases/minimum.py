"""minimum: see _min_max.py (the shapes it shares with maximum)."""
from __future__ import annotations

from cases._min_max import min_max_cases
from conformance import Case


def cases() -> list[Case]:
    return min_max_cases("minimum")
