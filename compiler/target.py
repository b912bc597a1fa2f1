"""Targets: which CPU, and so which ISA tier the kernels and weight layouts are for."""
from __future__ import annotations

from dataclasses import dataclass

from compiler.errors import TargetError

TIERS = ("scalar", "dsp", "mve")  # numbered as the schema's Tier enum

# The tier each CPU runs best; a CPU can also run any lower tier.
CPU_TIERS = {
    "cortex-m0": "scalar",
    "cortex-m0plus": "scalar",
    "cortex-m3": "scalar",
    "cortex-m23": "scalar",
    "cortex-m4": "dsp",
    "cortex-m7": "dsp",
    "cortex-m33": "dsp",
    "cortex-m35p": "dsp",
    "cortex-m55": "mve",
    "cortex-m85": "mve",
    "host": "scalar",
}


@dataclass(frozen=True)
class Target:
    """A CPU and the tier to compile for (defaults to the CPU's best)."""

    cpu: str
    tier: str = ""

    def __post_init__(self) -> None:
        if self.cpu not in CPU_TIERS:
            raise TargetError(f"unknown CPU {self.cpu!r}; known: {', '.join(CPU_TIERS)}")
        best = CPU_TIERS[self.cpu]
        if not self.tier:
            object.__setattr__(self, "tier", best)
        if self.tier not in TIERS:
            raise TargetError(f"unknown tier {self.tier!r}; known: {', '.join(TIERS)}")
        if TIERS.index(self.tier) > TIERS.index(best):
            runnable = ", ".join(TIERS[: TIERS.index(best) + 1])
            raise TargetError(f"{self.cpu} cannot run tier {self.tier!r}: its best is {best!r}; "
                              f"choose one of: {runnable}")

    @property
    def tier_index(self) -> int:
        return TIERS.index(self.tier)
