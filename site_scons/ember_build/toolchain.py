"""Compile and link flags for a board, from its board.yaml, and a one-shot firmware build.

SCons and the tests build with the same flags: `firmware_cflags` / `firmware_ldflags` are the
single place that turns a Board into a command line. The optimisation level and link-time
optimisation are the build's choices (default -O2, no LTO), not the board's.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Iterable, Sequence

from .board import BSP_ROOT, Board

DEFAULT_OPTIMIZATION = "-O2"
COMMON_CFLAGS = ("-std=c11", "-g", "-Wall", "-Wextra")
BSP_INCLUDE_DIR = BSP_ROOT / "include"


class BuildError(RuntimeError):
    """The compiler or linker failed; the message carries the command and its output."""


def firmware_cflags(board: Board, optimization: str = DEFAULT_OPTIMIZATION, lto: bool = False) -> list[str]:
    """Compiler flags: the board's target flags, the build's options and board.yaml's defines."""
    defines = [f"-D{key}={value}" for key, value in board.defines.items()]
    return [*board.cflags, optimization, *COMMON_CFLAGS, *defines, *(["-flto"] if lto else [])]


def lto_link_flags(cflags: Sequence[str]) -> list[str]:
    """Link flags of an LTO build: GCC compiles the whole image at link time, so the link gets
    the compile flags again; one partition gives the smallest code and one call-graph dump."""
    return [*cflags, "-flto-partition=one"]


def goal_of(optimization: str) -> str:
    """What the compiler chooses kernel variants for in a build at `optimization`
    (compiler.target.Target.optimize): "size" at -Os / -Oz, else "speed"."""
    return "size" if optimization in ("-Os", "-Oz") else "speed"


def flavour_suffix(optimization: str, lto: bool) -> str:
    """Build folder suffix of a non-default build: "" (-O2), "-Os", "-lto", "-Os-lto" …"""
    name = "".join(c for c in optimization if c.isalnum())  # "-Os" -> "Os"
    return ("" if optimization == DEFAULT_OPTIMIZATION else f"-{name}") + ("-lto" if lto else "")


def firmware_ldflags(board: Board) -> list[str]:
    """Linker flags (passed to the compiler driver): the board's, its script and stack size."""
    flags = list(board.ldflags)
    if board.linker_script is not None:
        flags.append(f"-T{board.directory / board.linker_script}")
    if board.stack_bytes is not None:
        flags.append(f"-Wl,--defsym=__em_stack_size={board.stack_bytes}")
    return flags


def bsp_sources(board: Board) -> list[Path]:
    return [board.directory / source for source in board.sources]


def bsp_include_dirs(board: Board) -> list[Path]:
    return [BSP_INCLUDE_DIR, board.directory]


def compile_firmware(
    board: Board,
    sources: Iterable[Path | str],
    include_dirs: Iterable[Path | str],
    out_elf: Path | str,
    extra_flags: Sequence[str] = (),
    optimization: str = DEFAULT_OPTIMIZATION,
    with_bsp: bool = True,
) -> Path:
    """Compiles and links `sources` (plus the board's BSP sources) into `out_elf` in one
    compiler invocation; writes a link map next to it. Returns the ELF path."""
    out_elf = Path(out_elf)
    out_elf.parent.mkdir(parents=True, exist_ok=True)
    all_sources = [Path(s) for s in sources] + (bsp_sources(board) if with_bsp else [])
    includes = [Path(d) for d in include_dirs] + (bsp_include_dirs(board) if with_bsp else [])
    command = [
        board.cc,
        *firmware_cflags(board, optimization),
        *(f"-I{d}" for d in includes),
        *extra_flags,
        *(str(s) for s in all_sources),
        *firmware_ldflags(board),
        f"-Wl,-Map={out_elf.with_suffix('.map')}",
        "-o", str(out_elf),
    ]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise BuildError(f"build of {out_elf.name} failed:\n$ {' '.join(command)}\n{result.stdout}{result.stderr}")
    return out_elf
