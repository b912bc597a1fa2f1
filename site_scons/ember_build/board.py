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

BOARD_SCHEMA (a JSON Schema, checked by ember_build/config_schema.py) holds the types, the keys
and the ranges; `Board.__post_init__` the rest (the CPU is one of CPUS, the files exist, regions
do not overlap, the counter's figures agree). Either way an error is one line with the file, the
line and the field: `bsp/x/board.yaml:24: stack_bytes: expected an integer > 0 ...`.

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
from typing import Mapping

from compiler.target import CPUS, TIERS, Cpu, Tier  # the CPU table is the compiler's
from ember_build.config_schema import SettingsFile, read_settings, shown_path

REPO_ROOT = Path(__file__).resolve().parents[2]
BSP_ROOT = REPO_ROOT / "bsp"

ACCESS_MODES = ("r", "rw", "rx", "rwx")
SECTION_KINDS = ("text", "rodata", "data", "bss", "stack", "program")
CONSOLE_KINDS = ("cmsdk_uart", "sci_b_uart", "dw_apb_uart", "stdout")
UART_CONSOLE_KINDS = CONSOLE_KINDS[:-1]
COUNTER_KINDS = ("systick", "clock_gettime", "dwt")
COUNTER_UNITS = ("instructions (QEMU)", "cycles", "ns (host)")


class BoardError(ValueError):
    """A board.yaml that does not follow the schema; the message is one line: the file, the
    line and the field."""


class UnknownBoardError(LookupError):
    """No bsp/<name>/board.yaml; the message lists the known boards."""


class TierOverrideError(ValueError):
    """A tier override (`tier=`) that is no tier, or one the board's CPU cannot run."""


_INT = {"type": "integer"}
_STRINGS = {"type": "array", "items": {"type": "string"}}


def _mapping(properties: dict, required: tuple = ()) -> dict:
    return {"type": "object", "properties": properties, "required": list(required), "additionalProperties": False}


BOARD_SCHEMA = _mapping({
    "name": {"type": "string", "minLength": 1},
    "description": {"type": "string"},
    "cpu": {"type": "string"},
    "clock_hz": {**_INT, "minimum": 0},
    "cc": {"type": "string", "minLength": 1},
    "cflags": _STRINGS,
    "ldflags": _STRINGS,
    "linker_script": {"type": ["string", "null"], "minLength": 1},
    "stack_bytes": {"type": ["integer", "null"], "exclusiveMinimum": 0, "multipleOf": 8},
    "sources": _STRINGS,
    "memory": {"type": "array", "minItems": 1, "items": _mapping({
        "name": {"type": "string", "minLength": 1},
        "base": {"type": ["integer", "null"], "minimum": 0},
        "size": {**_INT, "exclusiveMinimum": 0},
        "speed": {**_INT, "minimum": 0},
        "access": {"enum": list(ACCESS_MODES)},
        "arena": {"type": "boolean"},
    }, required=("name", "size", "speed", "access", "arena"))},
    "placement": _mapping({kind: {"type": "string"} for kind in SECTION_KINDS}),
    "console": _mapping({
        "kind": {"enum": list(CONSOLE_KINDS)},
        "base": {**_INT, "minimum": 0},
        "clock_hz": {**_INT, "exclusiveMinimum": 0},
    }, required=("kind",)),
    "counter": _mapping({
        "kind": {"enum": list(COUNTER_KINDS)},
        "unit": {"enum": list(COUNTER_UNITS)},
        "icount_shift": {**_INT, "minimum": 0},
        "ticks_per_instruction": {"type": "number", "exclusiveMinimum": 0},
    }, required=("kind", "unit")),
    "emulator": {"type": ["array", "null"], "minItems": 1, "items": {"type": "string"}},
    "bin": {"type": "boolean"},
}, required=("name", "description", "cpu", "clock_hz", "cc", "cflags", "ldflags", "sources", "memory",
             "placement", "console", "counter"))


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
    source: SettingsFile | None = field(default=None, compare=False, repr=False)  # the board.yaml read: its lines

    def __post_init__(self) -> None:
        source = self.source or SettingsFile(self.directory / "board.yaml", None)

        def fail(field_name: str, problem: str) -> None:
            raise BoardError(source.problem(field_name, problem))

        if self.name != self.directory.name:
            fail("name", f"is {self.name!r} but the folder is {self.directory.name!r}")
        if self.cpu not in CPUS:
            fail("cpu", f"{self.cpu!r} is not a CPU of compiler/target.py's CPUS ({', '.join(CPUS)})")
        object.__setattr__(self, "tier", self.cpu_facts.best_tier if self.tier is None else Tier(self.tier))
        cpu_flags = [f for f in self.board_cflags if f.startswith(("-mcpu=", "-march=", "-mtune="))]
        if cpu_flags:
            fail("cflags", f"{' '.join(cpu_flags)}: the CPU's flags come from its cpu ({self.cpu}, "
                           "compiler/target.py CPUS), per tier; remove them here")
        if self.clock_hz == 0 and self.emulator is not None:
            fail("clock_hz", "must be a positive frequency in Hz (0 only for a board that runs natively)")
        if self.linker_script is not None and not (self.directory / self.linker_script).is_file():
            fail("linker_script", f"{self.linker_script!r} does not exist in {shown_path(self.directory)}")
        for i, file in enumerate(self.sources):
            if not (self.directory / file).is_file():
                fail(f"sources[{i}]", f"{file!r} does not exist in {shown_path(self.directory)}")
        self._validate_memory(fail)
        self._validate_counter(fail)
        if self.console.kind in UART_CONSOLE_KINDS and (self.console.base is None or not self.console.clock_hz):
            fail("console", f"a {self.console.kind} needs base and clock_hz")
        if self.emulator is not None and not any("{elf}" in word for word in self.emulator):
            fail("emulator", "the command needs an {elf} placeholder")

    def _validate_memory(self, fail) -> None:
        names = [r.name for r in self.memory]
        twice = [n for i, n in enumerate(names) if n in names[:i]]
        if twice:
            fail(f"memory.{twice[0]}", "a second region of this name")
        for r in self.memory:
            if r.arena and "w" not in r.access:
                fail(f"memory.{r.name}.arena", "an arena region must be writable")
        placed = [r for r in self.memory if r.base is not None]
        placed.sort(key=lambda r: r.base)
        for low, high in zip(placed, placed[1:]):
            if low.end > high.base:
                fail(f"memory.{high.name}", f"overlaps region {low.name} (0x{low.base:08X}..0x{low.end:08X})")
        for kind, region in self.placement.items():
            if region not in names:
                fail(f"placement.{kind}", f"region {region!r} is not in memory ({', '.join(names)})")

    def _validate_counter(self, fail) -> None:
        c = self.counter
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


def load_board(name: str, bsp_root: Path = BSP_ROOT) -> Board:
    """Reads and validates bsp/<name>/board.yaml (BOARD_SCHEMA, then Board's own checks)."""
    where = bsp_root / name / "board.yaml"
    if not where.is_file():
        raise UnknownBoardError(
            f"unknown board {name!r} (no {shown_path(where)}); known boards: {', '.join(known_boards(bsp_root)) or 'none'}")
    source = read_settings(where, BoardError)
    data = source.data
    if "tier" in data:
        raise BoardError(source.problem("tier", f"a board's tier is its CPU's (cpu: {data.get('cpu')!r}, "
                                                "compiler/target.py CPUS); remove it (`scons tier=` builds a lower one)"))
    source.check(BOARD_SCHEMA, BoardError)
    console, counter = data["console"], data["counter"]
    tpi = counter.get("ticks_per_instruction")
    return Board(
        name=data["name"],
        description=data["description"],
        cpu=data["cpu"],
        clock_hz=data["clock_hz"],
        cc=data["cc"],
        board_cflags=tuple(data["cflags"]),
        ldflags=tuple(data["ldflags"]),
        linker_script=data.get("linker_script"),
        stack_bytes=data.get("stack_bytes"),
        sources=tuple(data["sources"]),
        memory=tuple(MemoryRegion(r["name"], r.get("base"), r["size"], r["speed"], r["access"], r["arena"])
                     for r in data["memory"]),
        placement=types.MappingProxyType(dict(data["placement"])),
        console=Console(kind=console["kind"], base=console.get("base"), clock_hz=console.get("clock_hz")),
        counter=Counter(kind=counter["kind"], unit=counter["unit"], icount_shift=counter.get("icount_shift"),
                        ticks_per_instruction=None if tpi is None else float(tpi)),
        emulator=None if data.get("emulator") is None else tuple(data["emulator"]),
        directory=where.parent,
        bin=bool(data.get("bin", False)),
        source=source,
    )
