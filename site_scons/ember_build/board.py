"""Board descriptions: `bsp/<name>/board.yaml` loaded into a validated, frozen `Board`.

Schema (every field; see bsp/corstone300/board.yaml for a commented example):

    name              str, equal to the folder name
    description       str
    cpu               str: "cortex-m55", ... or "host", a CPU of compiler/target.py's CPUS: it gives
                      the board's tier (the CPU's best) and the CPU's compile flags
    clock_hz          int > 0: processor clock as the emulator models it (0 allowed for host)
    cc                str: C compiler driver
    cflags            [str]: target flags besides the CPU's (ABI, FPU, sections); optimisation is
                      the build's choice. `Board.cflags` is the CPU's flags for the tier, then these.
    ldflags           [str]
    linker_script     str | null: file name inside bsp/<name>/
    stack_bytes       int | null: main stack size handed to the linker (__em_stack_size)
    sources           [str]: the BSP's C sources, inside bsp/<name>/
    memory            [region]: name, base (int | null on host), size, speed (rank, 0 fastest),
                      access ("r" | "rw" | "rx" | "rwx"), arena (bool: the planner may use it)
    placement         {section kind: region name}: text, rodata, data, bss, stack, program
    console           {kind: "cmsdk_uart" | "sci_b_uart" | "dw_apb_uart" | "stdout",
                       base: int (uart), clock_hz: int (uart: the clock feeding its baud generator)}
    counter           {kind: "systick" | "clock_gettime" | "dwt", unit: str,
                       icount_shift: int, ticks_per_instruction: float (systick only)}
    emulator          [str] | null: command with {elf} and {args} placeholders; null = native
                      (or, with cc a cross compiler, a real board: built, flashed by the user)
    bin               bool, optional (default false): every loadable section lies in one memory
                      region, so `objcopy -O binary` gives a flashable image (firmware.bin)

`Board.tier` is the best the CPU runs; `Board.for_tier()` gives the board built for a lower tier
(`scons tier=dsp`: an M55 without MVE), with the CPU's flags for that tier (compiler/target.py).
`boards()` reads every board of bsp/; `emulated_boards()` and `one_board_per_tier()` are the
lists the benchmarks and tests run on.
"""

from __future__ import annotations

import dataclasses
import math
import types
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Mapping

import yaml

from compiler.target import CPUS, TIERS, Cpu, Tier  # the CPU table is the compiler's

REPO_ROOT = Path(__file__).resolve().parents[2]
BSP_ROOT = REPO_ROOT / "bsp"

ACCESS_MODES = ("r", "rw", "rx", "rwx")
SECTION_KINDS = ("text", "rodata", "data", "bss", "stack", "program")
CONSOLE_KINDS = ("cmsdk_uart", "sci_b_uart", "dw_apb_uart", "stdout")
UART_CONSOLE_KINDS = CONSOLE_KINDS[:-1]
COUNTER_KINDS = ("systick", "clock_gettime", "dwt")
COUNTER_UNITS = ("instructions (QEMU)", "cycles", "ns (host)")


class BoardError(ValueError):
    """A board.yaml that does not follow the schema; the message names the file and field."""


class UnknownBoardError(LookupError):
    """No bsp/<name>/board.yaml; the message lists the known boards."""


class TierOverrideError(ValueError):
    """A tier override (`tier=`) that is no tier, or one the board's CPU cannot run."""


def known_boards(bsp_root: Path = BSP_ROOT) -> list[str]:
    return sorted(p.parent.name for p in bsp_root.glob("*/board.yaml"))


def boards(bsp_root: Path = BSP_ROOT) -> list["Board"]:
    """Every board of bsp/, best tier first, then by name (corstone300, ..., host)."""
    return sorted((load_board(name, bsp_root) for name in known_boards(bsp_root)),
                  key=lambda b: (-b.tier.number, b.name))


def emulated_boards(bsp_root: Path = BSP_ROOT) -> list["Board"]:
    """The boards that run in an emulator (QEMU), counting exact instructions: best tier first."""
    return [b for b in boards(bsp_root) if b.emulator is not None]


def one_board_per_tier(candidates: list["Board"] | None = None) -> list["Board"]:
    """The first of `candidates` (default: the emulated boards) for each tier, best tier first:
    corstone300 (mve), mps2_an386 (dsp), mps2_an385 (scalar)."""
    chosen: dict[Tier, Board] = {}
    for board in emulated_boards() if candidates is None else candidates:
        chosen.setdefault(board.tier, board)
    return list(chosen.values())


@dataclass(frozen=True)
class MemoryRegion:
    name: str
    base: int | None
    size: int
    speed: int
    access: str
    arena: bool

    @property
    def end(self) -> int:
        return (self.base or 0) + self.size


@dataclass(frozen=True)
class Console:
    kind: str
    base: int | None = None
    clock_hz: int | None = None


@dataclass(frozen=True)
class Counter:
    kind: str
    unit: str
    icount_shift: int | None = None
    ticks_per_instruction: float | None = None


@dataclass(frozen=True)
class Board:
    """One board, validated on construction. `directory` is bsp/<name>/."""

    name: str
    description: str
    cpu: str
    clock_hz: int
    cc: str
    board_cflags: tuple[str, ...]  # board.yaml's cflags: ABI, FPU, sections (the CPU's come from CPUS)
    ldflags: tuple[str, ...]
    linker_script: str | None
    stack_bytes: int | None
    sources: tuple[str, ...]
    memory: tuple[MemoryRegion, ...]
    placement: Mapping[str, str]
    console: Console
    counter: Counter
    emulator: tuple[str, ...] | None
    directory: Path = field(compare=False)
    bin: bool = False
    tier: Tier | None = None  # built for: the CPU's best (default), lower in a tier override build

    def __post_init__(self) -> None:
        where = self.directory / "board.yaml"

        def fail(field_name: str, problem: str) -> None:
            raise BoardError(f"{where}: field '{field_name}': {problem}")

        if self.name != self.directory.name:
            fail("name", f"is {self.name!r} but the folder is {self.directory.name!r}")
        if self.cpu not in CPUS:
            fail("cpu", f"{self.cpu!r} is not a CPU of compiler/target.py's CPUS ({', '.join(CPUS)})")
        object.__setattr__(self, "tier", self.cpu_facts.best_tier if self.tier is None else Tier(self.tier))
        cpu_flags = [f for f in self.board_cflags if f.startswith(("-mcpu=", "-march=", "-mtune="))]
        if cpu_flags:
            fail("cflags", f"{' '.join(cpu_flags)}: the CPU's flags come from its cpu ({self.cpu}, "
                           "compiler/target.py CPUS), per tier; remove them here")
        if self.clock_hz < 0 or (self.clock_hz == 0 and self.emulator is not None):
            fail("clock_hz", "must be a positive frequency in Hz")
        if self.linker_script is not None and not (self.directory / self.linker_script).is_file():
            fail("linker_script", f"{self.linker_script!r} does not exist in {self.directory}")
        if self.stack_bytes is not None and (self.stack_bytes <= 0 or self.stack_bytes % 8):
            fail("stack_bytes", "must be a positive multiple of 8")
        for source in self.sources:
            if not (self.directory / source).is_file():
                fail("sources", f"{source!r} does not exist in {self.directory}")
        self._validate_memory(fail)
        self._validate_counter(fail)
        if self.console.kind not in CONSOLE_KINDS:
            fail("console.kind", f"{self.console.kind!r} is not one of {', '.join(CONSOLE_KINDS)}")
        if self.console.kind in UART_CONSOLE_KINDS and (self.console.base is None or not self.console.clock_hz):
            fail("console", f"a {self.console.kind} needs base and clock_hz")
        if self.emulator is not None and not any("{elf}" in word for word in self.emulator):
            fail("emulator", "the command needs an {elf} placeholder")

    def _validate_memory(self, fail) -> None:
        names = [r.name for r in self.memory]
        if not names:
            fail("memory", "at least one region is needed")
        if len(set(names)) != len(names):
            fail("memory", f"duplicate region names in {names}")
        for r in self.memory:
            if r.access not in ACCESS_MODES:
                fail(f"memory.{r.name}.access", f"{r.access!r} is not one of {', '.join(ACCESS_MODES)}")
            if r.size <= 0 or r.speed < 0:
                fail(f"memory.{r.name}", "size must be > 0 and speed a rank >= 0")
            if r.arena and "w" not in r.access:
                fail(f"memory.{r.name}.arena", "an arena region must be writable")
        placed = [r for r in self.memory if r.base is not None]
        placed.sort(key=lambda r: r.base)
        for low, high in zip(placed, placed[1:]):
            if low.end > high.base:
                fail("memory", f"regions {low.name} and {high.name} overlap")
        for kind, region in self.placement.items():
            if kind not in SECTION_KINDS:
                fail(f"placement.{kind}", f"unknown section kind (known: {', '.join(SECTION_KINDS)})")
            if region not in names:
                fail(f"placement.{kind}", f"region {region!r} is not in memory ({', '.join(names)})")

    def _validate_counter(self, fail) -> None:
        c = self.counter
        if c.kind not in COUNTER_KINDS:
            fail("counter.kind", f"{c.kind!r} is not one of {', '.join(COUNTER_KINDS)}")
        if c.unit not in COUNTER_UNITS:
            fail("counter.unit", f"{c.unit!r} is not one of {', '.join(COUNTER_UNITS)}")
        if c.kind != "systick":
            return
        if c.icount_shift is None or c.ticks_per_instruction is None:
            fail("counter", "systick needs icount_shift and ticks_per_instruction")
        expected = self.clock_hz * 2**c.icount_shift / 1e9
        if not math.isclose(expected, c.ticks_per_instruction, rel_tol=1e-12):
            fail("counter.ticks_per_instruction",
                 f"{c.ticks_per_instruction} but clock_hz x 2^icount_shift ns = {expected}")
        if expected <= 2:
            fail("counter", "fewer than 2 ticks per instruction: rounding would not be exact")
        if self.counter_fraction.denominator & (self.counter_fraction.denominator - 1):
            fail("counter", "instructions per tick must reduce to n / 2^k")
        if self.emulator is not None and f"shift={c.icount_shift}" not in self.emulator:
            fail("emulator", f"must run QEMU with -icount shift={c.icount_shift} (counter.icount_shift)")

    @property
    def counter_fraction(self) -> Fraction:
        """Instructions per SysTick tick, exactly: 1e9 / (clock_hz x 2^shift)."""
        return Fraction(10**9, self.clock_hz * 2**self.counter.icount_shift)

    @property
    def cpu_facts(self) -> Cpu:
        """The board's CPU in compiler/target.py's table."""
        return CPUS[self.cpu]

    @property
    def best_tier(self) -> Tier:
        """The best tier the board's CPU runs (its tier unless built for a lower one)."""
        return self.cpu_facts.best_tier

    @property
    def cflags(self) -> tuple[str, ...]:
        """Target compile flags: the CPU's for the tier built for, then board.yaml's."""
        return (*self.cpu_facts.gcc_flags[self.tier], *self.board_cflags)

    @property
    def build_name(self) -> str:
        """The build folder's name: the board's, with the tier appended for a tier override
        (build/corstone300-dsp/), so an override never overwrites the default build."""
        return self.name if self.tier == self.best_tier else f"{self.name}-{self.tier}"

    def for_tier(self, tier: str) -> "Board":
        """This board built for `tier` (default: its own). A lower tier than its CPU's best (an
        M55 without MVE runs dsp) takes the CPU's flags for that tier (compiler/target.py CPUS);
        a higher one (mve on an M4) is a TierOverrideError naming the tiers the board can run."""
        if not tier or tier == self.tier:
            return self
        if tier not in TIERS:
            raise TierOverrideError(f"unknown tier {tier!r} for board {self.name}; "
                                    f"known tiers: {', '.join(TIERS)}")
        runnable = self.cpu_facts.tiers
        if tier not in runnable:
            raise TierOverrideError(
                f"board {self.name} ({self.cpu}) cannot run tier {tier!r}: its best tier is "
                f"'{self.best_tier}'; choose one of: {', '.join(runnable)} (or a board whose CPU has {tier})")
        return dataclasses.replace(self, tier=Tier(tier))

    def region(self, name: str) -> MemoryRegion:
        for r in self.memory:
            if r.name == name:
                return r
        raise KeyError(f"board {self.name} has no memory region {name!r}")

    @property
    def arena_regions(self) -> tuple[MemoryRegion, ...]:
        """Regions the memory planner may use, fastest first."""
        return tuple(sorted((r for r in self.memory if r.arena), key=lambda r: r.speed))

    @property
    def defines(self) -> dict[str, str]:
        """Preprocessor definitions that hand board.yaml's facts to the BSP's C code."""
        d = {
            "EM_BSP_BOARD_NAME": f'"{self.name}"',
            "EM_BSP_CLOCK_HZ": f"{self.clock_hz}u",
            f"EM_BSP_TIER_{self.tier.upper()}": "1",
        }
        if self.console.kind in UART_CONSOLE_KINDS:
            d["EM_BSP_CONSOLE_BASE"] = f"0x{self.console.base:08X}u"
            d["EM_BSP_UART_CLOCK_HZ"] = f"{self.console.clock_hz}u"
        if self.counter.kind == "systick":
            frac = self.counter_fraction
            d["EM_BSP_COUNTER_MUL"] = f"{frac.numerator}u"
            d["EM_BSP_COUNTER_SHIFT"] = str(frac.denominator.bit_length() - 1)
        return d


def _require(data: Mapping[str, Any], key: str, kind, where: Path, prefix: str = "", optional=False):
    if key not in data or data[key] is None:
        if optional:
            return None
        raise BoardError(f"{where}: field '{prefix}{key}' is missing")
    value = data[key]
    if kind is int and isinstance(value, bool) or not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise BoardError(f"{where}: field '{prefix}{key}' should be {names}, got {value!r}")
    return value


def _str_list(data, key, where, optional=False) -> tuple[str, ...] | None:
    value = _require(data, key, list, where, optional=optional)
    if value is None:
        return None
    if not all(isinstance(v, str) for v in value):
        raise BoardError(f"{where}: field '{key}' should be a list of strings, got {value!r}")
    return tuple(value)


def load_board(name: str, bsp_root: Path = BSP_ROOT) -> Board:
    """Reads and validates bsp/<name>/board.yaml."""
    where = bsp_root / name / "board.yaml"
    if not where.is_file():
        raise UnknownBoardError(
            f"unknown board {name!r} (no {where}); known boards: {', '.join(known_boards(bsp_root)) or 'none'}")
    try:
        data = yaml.safe_load(where.read_text())
    except yaml.YAMLError as e:
        raise BoardError(f"{where}: not valid YAML: {e}") from e
    if not isinstance(data, dict):
        raise BoardError(f"{where}: expected a mapping at the top level")

    regions = []
    for i, raw in enumerate(_require(data, "memory", list, where)):
        if not isinstance(raw, dict):
            raise BoardError(f"{where}: field 'memory[{i}]' should be a mapping")
        p = f"memory[{i}]."
        regions.append(MemoryRegion(
            name=_require(raw, "name", str, where, p),
            base=_require(raw, "base", int, where, p, optional=True),
            size=_require(raw, "size", int, where, p),
            speed=_require(raw, "speed", int, where, p),
            access=_require(raw, "access", str, where, p),
            arena=_require(raw, "arena", bool, where, p),
        ))
    console = _require(data, "console", dict, where)
    counter = _require(data, "counter", dict, where)
    tpi = _require(counter, "ticks_per_instruction", (int, float), where, "counter.", optional=True)
    if "tier" in data:
        raise BoardError(f"{where}: field 'tier': a board's tier is its CPU's (cpu: {data.get('cpu')!r}, "
                         "compiler/target.py CPUS); remove it (`scons tier=` builds a lower one)")
    return Board(
        name=_require(data, "name", str, where),
        description=_require(data, "description", str, where),
        cpu=_require(data, "cpu", str, where),
        clock_hz=_require(data, "clock_hz", int, where),
        cc=_require(data, "cc", str, where),
        board_cflags=_str_list(data, "cflags", where),
        ldflags=_str_list(data, "ldflags", where),
        linker_script=_require(data, "linker_script", str, where, optional=True),
        stack_bytes=_require(data, "stack_bytes", int, where, optional=True),
        sources=_str_list(data, "sources", where),
        memory=tuple(regions),
        placement=types.MappingProxyType(dict(_require(data, "placement", dict, where))),
        console=Console(
            kind=_require(console, "kind", str, where, "console."),
            base=_require(console, "base", int, where, "console.", optional=True),
            clock_hz=_require(console, "clock_hz", int, where, "console.", optional=True),
        ),
        counter=Counter(
            kind=_require(counter, "kind", str, where, "counter."),
            unit=_require(counter, "unit", str, where, "counter."),
            icount_shift=_require(counter, "icount_shift", int, where, "counter.", optional=True),
            ticks_per_instruction=None if tpi is None else float(tpi),
        ),
        emulator=_str_list(data, "emulator", where, optional=True),
        directory=where.parent,
        bin=bool(_require(data, "bin", bool, where, optional=True)),
    )
