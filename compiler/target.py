"""Targets: which CPU, and so which ISA tier the kernels and weight layouts are for.

The one table of CPUs and tiers. `Tier` is the ISA tier (its value the name users type, its
`number` the schema's Tier enum); `CPUS` gives each CPU the best tier it runs and the GCC 12
flags that build it for each tier it can run (a board's tier and compile flags come from its
board.yaml `cpu:` through this table: site_scons/ember_build/board.py).
"""
from __future__ import annotations

import enum
import types
from dataclasses import dataclass
from typing import Mapping

from compiler.errors import TargetError
from compiler.schema import program_generated as fb


class Tier(enum.StrEnum):
    """An ISA tier. A str ("scalar", "dsp", "mve": what users type, what reports print), ordered
    and numbered as the schema's Tier enum (`number`), the order in which each includes the last."""

    SCALAR = "scalar"
    DSP = "dsp"
    MVE = "mve"

    @property
    def number(self) -> int:
        """The schema's Tier value (Program.tier; the runtime's EM_TIER_*)."""
        return getattr(fb.Tier, self.name)

    @classmethod
    def parse(cls, name: str | Tier) -> Tier:
        """The tier called `name`; a TargetError listing the tiers otherwise."""
        try:
            return cls(name)
        except ValueError:
            raise TargetError(f"unknown tier {name!r}; known: {', '.join(cls)}") from None

    @classmethod
    def of_number(cls, number: int) -> Tier:
        """The tier the schema numbers `number` (a program's Program.tier)."""
        for tier in cls:
            if tier.number == number:
                return tier
        raise TargetError(f"unknown tier number {number}; known: "
                          f"{', '.join(f'{t.number} ({t})' for t in cls)}")

    def __lt__(self, other: object) -> bool:  # by number, not as strings
        return self.number < other.number if isinstance(other, Tier) else NotImplemented

    def __le__(self, other: object) -> bool:
        return self.number <= other.number if isinstance(other, Tier) else NotImplemented

    def __gt__(self, other: object) -> bool:
        return self.number > other.number if isinstance(other, Tier) else NotImplemented

    def __ge__(self, other: object) -> bool:
        return self.number >= other.number if isinstance(other, Tier) else NotImplemented


TIERS = tuple(sorted(Tier))  # scalar, dsp, mve: numbered as the schema's Tier enum
OPTIMIZE = ("speed", "size")  # what Target.optimize chooses kernel variants for


@dataclass(frozen=True)
class Cpu:
    """A CPU: the best tier it runs (it runs every lower one too) and, per tier it runs, the GCC
    flags that select it (board.yaml's cflags add the ABI, FPU and section flags)."""

    name: str
    best_tier: Tier
    gcc_flags: Mapping[Tier, tuple[str, ...]]

    def __post_init__(self) -> None:
        if set(self.gcc_flags) != set(self.tiers):
            raise TargetError(f"{self.name}: GCC flags for tiers {', '.join(sorted(self.gcc_flags))}, "
                              f"but it runs {', '.join(self.tiers)}")
        object.__setattr__(self, "gcc_flags", types.MappingProxyType(dict(self.gcc_flags)))

    @property
    def tiers(self) -> tuple[Tier, ...]:
        """The tiers this CPU runs, lowest first."""
        return tuple(t for t in TIERS if t <= self.best_tier)


S, D, M = Tier.SCALAR, Tier.DSP, Tier.MVE
# GCC 12 (Debian's arm-none-eabi) has no `-mcpu=cortex-m85`: Armv8.1-M Mainline with MVE (integer
# and float) and the double-precision FPU, tuned for the M55. cortex-m4/m7 have no `+nodsp`, and
# -march=armv7-m with a hard-float FPU has no newlib multilib: their scalar build keeps the CPU
# and asks em_nn_tier.h for the kernels' scalar path.
_M85 = ("-march=armv8.1-m.main", "-mtune=cortex-m55")
CPUS: Mapping[str, Cpu] = types.MappingProxyType({cpu.name: cpu for cpu in (
    Cpu("cortex-m0", S, {S: ("-mcpu=cortex-m0",)}),
    Cpu("cortex-m0plus", S, {S: ("-mcpu=cortex-m0plus",)}),
    Cpu("cortex-m3", S, {S: ("-mcpu=cortex-m3",)}),
    Cpu("cortex-m23", S, {S: ("-mcpu=cortex-m23",)}),
    Cpu("cortex-m4", D, {D: ("-mcpu=cortex-m4",), S: ("-mcpu=cortex-m4", "-DEM_NN_FORCE_SCALAR")}),
    Cpu("cortex-m7", D, {D: ("-mcpu=cortex-m7",), S: ("-mcpu=cortex-m7", "-DEM_NN_FORCE_SCALAR")}),
    Cpu("cortex-m33", D, {D: ("-mcpu=cortex-m33",), S: ("-mcpu=cortex-m33+nodsp",)}),
    Cpu("cortex-m35p", D, {D: ("-mcpu=cortex-m35p",), S: ("-mcpu=cortex-m35p+nodsp",)}),
    Cpu("cortex-m55", M, {M: ("-mcpu=cortex-m55",), D: ("-mcpu=cortex-m55+nomve",),
                          S: ("-mcpu=cortex-m55+nomve+nodsp",)}),
    Cpu("cortex-m85", M, {M: (_M85[0] + "+mve.fp+fp.dp", _M85[1]), D: (_M85[0] + "+dsp+fp.dp", _M85[1]),
                          S: (_M85[0] + "+fp.dp", _M85[1])}),
    Cpu("host", S, {S: ()}),  # the native build: the compiler's default flags
)})
del S, D, M

# The tier each CPU runs best (a CPU can also run any lower tier).
CPU_TIERS: Mapping[str, Tier] = types.MappingProxyType({name: cpu.best_tier for name, cpu in CPUS.items()})


def cpu(name: str) -> Cpu:
    """The CPU called `name`; a TargetError listing the known ones otherwise."""
    if name not in CPUS:
        raise TargetError(f"unknown CPU {name!r}; known: {', '.join(CPUS)}")
    return CPUS[name]


@dataclass(frozen=True)
class Target:
    """A CPU and the tier to compile for (defaults to the CPU's best). `tier` may be given by
    name ("dsp"); it is a Tier after construction. `optimize` is what the kernel variants are
    chosen for (compiler/kernel_variants.py): "speed", or "size", the compact variants where
    they save code (the build's opt=-Os)."""

    cpu: str
    tier: Tier | str = ""
    optimize: str = "speed"

    def __post_init__(self) -> None:
        if self.optimize not in OPTIMIZE:
            raise TargetError(f"optimize={self.optimize!r}: choose one of {', '.join(OPTIMIZE)}")
        best = cpu(self.cpu).best_tier
        tier = Tier.parse(self.tier) if self.tier else best
        if tier > best:
            runnable = ", ".join(CPUS[self.cpu].tiers)
            raise TargetError(f"{self.cpu} cannot run tier {str(tier)!r}: its best is {str(best)!r}; "
                              f"choose one of: {runnable}")
        object.__setattr__(self, "tier", tier)

    @property
    def tier_index(self) -> int:
        return self.tier.number
