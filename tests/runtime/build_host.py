"""Builds of the runtime in variants the SCons build does not make: the kernels as a shared
library for ctypes, em_run with extra defines (e.g. -DEM_NN_FORCE_SCALAR), the sanitized
libFuzzer target, and em_run firmware with test-chosen placement. tests/runtime/test_scons_em_run.py
checks the SCons-built runner itself.

Flags: C11, -O2, all warnings as errors, and -ffp-contract=off so that no float product is fused
into an FMA that the reference (NumPy float32) does not perform.

Every build compiles its sources one per compiler call on all cores, then links (`build`); the
kernels library and the host and firmware em_run of given flags are built once per test run,
shared by its pytest-xdist workers (`_shared`: a folder per build, made under a file lock). The runtime's
em_schema.h is generated from the schema once per session too, as the SCons build does
(`schema_include_dir`), into a folder on INCLUDES.

Objects outlive the run: build/test-objects/ (OBJECTS) keeps each under a key of what made it
(`object_key`: the compiler and its version, the flags, the source's path and bytes, and the
bytes of every header in the folders it may include from), so a later run compiles only what
changed; an object is written beside and renamed, so no run ever links a partial one.
"""
from __future__ import annotations

import fcntl
import functools
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
RUNTIME = REPO / "runtime"
if str(REPO / "site_scons") not in sys.path:
    sys.path.insert(0, str(REPO / "site_scons"))

from ember_build import schema_header  # noqa: E402


@functools.cache
def _run_folder() -> Path:
    """This test run's build folder: one for all pytest-xdist workers of a run (its run id), one
    per process otherwise."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run is None:
        return Path(tempfile.mkdtemp(prefix="ember_builds_"))
    folder = Path(tempfile.gettempdir()) / f"ember_builds_{run}"
    folder.mkdir(exist_ok=True)
    return folder


def _shared(name: str, key: tuple, make) -> Path:
    """`make(folder)` (a build into `folder`, returning its product), done once per run for
    (`name`, `key`): the first worker to ask builds while holding the folder's lock, the others
    wait for it and take its product; a failed build leaves no product behind."""
    folder = _run_folder() / f"{name}_{hashlib.sha256(repr(key).encode()).hexdigest()[:16]}"
    with open(f"{folder}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = folder.with_suffix(".done")
        if done.exists():
            return Path(done.read_text())
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        product = make(folder)
        done.write_text(str(product))
        return product


@functools.cache
def schema_include_dir() -> Path:
    """A folder holding em_schema.h generated from compiler/schema/program.fbs (once per session)."""
    folder = Path(tempfile.mkdtemp(prefix="ember_schema_"))
    schema_header.write_header(folder / schema_header.HEADER_NAME)
    return folder


OBJECTS = REPO / "build" / "test-objects"  # build/ is git-ignored; remove it to start afresh


@functools.cache
def _compiler_identity(cc: str) -> str:
    """Where `cc` is and what it says it is (`cc --version`): a new compiler makes new objects."""
    found = shutil.which(cc) or cc
    version = subprocess.run([cc, "--version"], capture_output=True, text=True)
    return f"{os.path.realpath(found)}\n{version.stdout}"


@functools.cache
def _headers_digest(folder: str) -> str:
    """A hash of the names and bytes of every header below `folder` (the sources and headers do not
    change during a run: read once per folder)."""
    digest = hashlib.sha256()
    for path in sorted(Path(folder).rglob("*.h")):
        digest.update(f"{path.relative_to(folder)}\0".encode() + path.read_bytes() + b"\0")
    return digest.hexdigest()


def object_key(command: list[str], source: Path) -> str:
    """The key of `source`'s object compiled by `command` (compiler, flags, "-c", source): the
    compiler's identity, the flags with each include folder (-I) given by its headers' bytes
    (schema_include_dir is a new folder every session), the source's path and bytes, and the
    headers beside it."""
    parts, args = [_compiler_identity(command[0])], iter(command[1:])
    for arg in args:
        if arg.startswith("-I"):
            parts.append(f"-I{_headers_digest(arg[2:] or next(args))}")
        else:
            parts.append(arg)
    parts += [_headers_digest(str(source.parent)), hashlib.sha256(source.read_bytes()).hexdigest()]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]


CFLAGS = ["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-ffp-contract=off"]
INCLUDES = [
    f"-I{RUNTIME / 'include'}",
    f"-I{RUNTIME / 'kernels' / 'include'}",
    f"-I{REPO / 'bsp' / 'include'}",
    f"-I{schema_include_dir()}",
]


LINK = REPO / "apps" / "common" / "firmware"  # the serial link (em_link.c), which em_run --serve speaks
EM_RUN_INCLUDES = [*INCLUDES, f"-I{LINK}"]


def kernel_sources() -> list[Path]:
    return sorted((RUNTIME / "kernels").glob("*.c"))


def all_ops_registry(out_dir: Path) -> Path:
    """The registry of every op of the compiler's operator table, generated as the build does."""
    sys.path.insert(0, str(REPO))
    from compiler.emit_c import registry_c
    from compiler.ops import OP_TABLE

    path = Path(out_dir) / "em_registry_all.c"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(registry_c(OP_TABLE.values()))
    return path


def runtime_sources(out_dir: Path) -> list[Path]:
    """Core, the all-ops registry (generated into out_dir), op adapters and kernels."""
    return (
        sorted((RUNTIME / "core").glob("*.c"))
        + [all_ops_registry(out_dir)]
        + sorted((RUNTIME / "ops").glob("*.c"))
        + kernel_sources()
    )


def host_bsp_sources() -> list[Path]:
    """The host board's BSP (bsp/host/)."""
    return sorted((REPO / "bsp" / "host").glob("*.c"))


def bsp_common_sources() -> list[Path]:
    """Board-independent helpers over em_bsp.h (console formatting)."""
    return sorted((REPO / "bsp" / "common").glob("*.c"))


def _compile(cmd: list[str]) -> None:
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"build failed: {' '.join(cmd)}\n{result.stdout}{result.stderr}")


def build(cc: str, flags: list[str], sources: list[Path], out: Path, link: list[str] | None = None,
          only: dict[Path, list[str]] | None = None) -> Path:
    """`out` from `sources`: each compiled with `flags` (and `only`[source], flags of that source
    alone) in a call of its own (the calls on all cores; one call for a whole runtime runs on one),
    then linked with `flags` and `link`. An object compiled alike before, in this run or an earlier
    one (object_key), is reused."""
    OBJECTS.mkdir(parents=True, exist_ok=True)

    def compile_one(source: Path) -> str:
        source = Path(source)
        command = [cc, *flags, *(only or {}).get(source, []), "-c", str(source)]
        obj = OBJECTS / f"{source.stem}_{object_key(command, source)}.o"
        if not obj.exists():  # compiled beside, then renamed: a worker never links a partial object
            partial = obj.with_name(f"{obj.name}.{os.getpid()}.{threading.get_ident()}")
            _compile([*command, "-o", str(partial)])
            os.replace(partial, obj)
        return str(obj)

    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        built = list(pool.map(compile_one, sources))
    _compile([cc, *flags, *built, *(link or []), "-o", str(out)])
    return out


def build_kernels_lib(cc: str | None = None) -> Path:
    """libember_kernels.so: the kernels only, for ctypes (built once per run)."""
    cc = cc or os.environ.get("CC", "cc")
    return _shared("kernels", (cc,), lambda folder: build(cc, [*CFLAGS, "-fPIC", "-shared", *INCLUDES], kernel_sources(),
                                                          folder / "libember_kernels.so", ["-lm"]))


def build_em_run(cc: str | None = None, extra: list[str] | None = None, main: list[str] | None = None) -> Path:
    """The host em_run executable (runtime + all ops + host BSP), built once per session for
    each compiler and extra flags, in a folder of its own. `main`: flags for em_run's own source
    only (its buffers' capacities): the runtime's objects are then those of the build without."""
    return _em_run(cc or os.environ.get("CC", "cc"), tuple(extra or ()), tuple(main or ()))


@functools.cache
def _em_run(cc: str, extra: tuple[str, ...], main: tuple[str, ...]) -> Path:
    def make(out_dir: Path) -> Path:
        sources = em_run_sources(out_dir) + host_bsp_sources()
        only = {source: list(main) for source in sources if source.parent.name == "em_run"}
        return build(cc, [*CFLAGS, *extra, *EM_RUN_INCLUDES], sources, out_dir / "em_run", ["-lm"], only)

    return _shared("em_run", (cc, extra, main), make)


def build_fuzzer(out_dir: Path) -> Path:
    """The libFuzzer loader target (clang, ASan + UBSan)."""
    flags = ["-std=c11", "-g", "-O1", "-ffp-contract=off", "-fno-sanitize-recover=all",
             "-fsanitize=fuzzer,address,undefined", *INCLUDES]
    return build("clang", flags, runtime_sources(out_dir) + [REPO / "tests" / "fuzz" / "fuzz_loader.c"],
                 Path(out_dir) / "fuzz_loader", ["-lm"])


def build_link_fuzzer(out_dir: Path) -> Path:
    """The libFuzzer serial-link target (clang, ASan + UBSan): em_link.c over the runtime with
    profiling built in, taking any CRC (FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION)."""
    flags = ["-std=c11", "-g", "-O1", "-ffp-contract=off", "-fno-sanitize-recover=all",
             "-fsanitize=fuzzer,address,undefined", "-DEM_PROFILE=1", "-DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION",
             *EM_RUN_INCLUDES]
    sources = runtime_sources(out_dir) + [LINK / "em_link.c", REPO / "tests" / "fuzz" / "fuzz_link.c"]
    return build("clang", flags, sources, Path(out_dir) / "fuzz_link", ["-lm"])


def em_run_sources(out_dir: Path) -> list[Path]:
    return (runtime_sources(out_dir) + sorted((REPO / "tools" / "em_run").glob("*.c")) + [LINK / "em_link.c"]
            + bsp_common_sources())


# SCons's own build trees for the tests (EMBER_BUILD of scons_em_run, scons_em_verify), kept from
# run to run as any build tree is: SCons rebuilds in them what changed, by its signatures.
SCONS_TREES = REPO / "build" / "test-scons"


def scons_em_run(board_name: str, tier: str = "", opt: str = "") -> Path:
    """em_run as README builds it (`scons em_run board=<board> [tier=] [opt=]`), once for every
    worker of this test run: in a build tree (EMBER_BUILD) of its own per board, tier and opt, one
    SCons run at a time; the first worker to ask builds, the others find it built. Its path."""
    from ember_build.board import load_board

    tree = SCONS_TREES / "_".join(["em_run", board_name, tier, opt.lstrip("-")])
    _scons_in(tree, ("em_run", f"board={board_name}", *[f"tier={tier}"] * bool(tier), *[f"opt={opt}"] * bool(opt)))
    board = load_board(board_name).for_tier(tier)
    folder = board.build_name + (f"-{opt.lstrip('-')}" if opt else "")
    return tree / folder / ("em_run" if board.emulator is None else "em_run.elf")


def scons_em_verify(board_name: str) -> Path:
    """The board's tier's verifier built for the host as README builds it (`scons em_verify
    board=<board>`: tools/em_verify), once per tier for every worker of this test run. Its path."""
    from ember_build.board import load_board

    tier = load_board(board_name).tier
    tree = SCONS_TREES / f"em_verify_{tier}"
    _scons_in(tree, ("em_verify", f"board={board_name}"))
    return tree / f"em_verify-{tier}" / "em_verify"


@functools.cache
def _scons_in(tree: Path, targets: tuple[str, ...]) -> None:
    """`scons -j2 <targets>` in build tree `tree` (EMBER_BUILD), one SCons run at a time per tree
    (of every worker and run), once per worker: the first worker to ask builds, the others then
    find it built (a no-op SCons run: SConstruct imports no torch)."""
    args = [str(Path(sys.executable).with_name("scons")), "-j2", *targets]
    tree.parent.mkdir(parents=True, exist_ok=True)
    with open(f"{tree}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        build = subprocess.run(args, cwd=REPO, capture_output=True, text=True,
                               env={**os.environ, "EMBER_BUILD": str(tree)})
    if build.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed:\n{build.stdout}{build.stderr}")


def build_em_run_firmware(board_name: str, extra: list[str] | None = None) -> Path:
    """em_run as firmware for a board (bsp/<board>/), with the board's own flags
    (site_scons/ember_build); on corstone300 the program buffer in ISRAM and the arena pool in
    SRAM, on other boards both in the largest arena region (as the SCons build places them).
    Built once per session for each board and extra flags, in a folder of its own."""
    return _em_run_firmware(board_name, tuple(extra or ()))


@functools.cache
def _em_run_firmware(board_name: str, extra: tuple[str, ...]) -> Path:
    from ember_build.board import load_board
    from ember_build.toolchain import bsp_include_dirs, bsp_sources, firmware_cflags, firmware_ldflags

    board = load_board(board_name)

    def make(out_dir: Path) -> Path:
        out = out_dir / f"em_run_{board_name}.elf"
        if board_name == "corstone300":
            placement = ["-DEM_RUN_PROGRAM_SECTION=.em_arena.isram", "-DEM_RUN_ARENA_SECTION=.em_arena.sram"]
        else:  # as tools/em_run/SConscript: both in the board's largest arena region
            largest = max((r for r in board.memory if r.arena), key=lambda r: r.size)
            placement = [f"-DEM_RUN_PROGRAM_SECTION=.em_arena.{largest.name}",
                         f"-DEM_RUN_ARENA_SECTION=.em_arena.{largest.name}"]
        includes = EM_RUN_INCLUDES + [f"-I{d}" for d in bsp_include_dirs(board)]
        flags = [*firmware_cflags(board), "-ffp-contract=off", "-fno-fast-math", *placement,
                 *extra, *includes]
        # Our sources warning-free (-Werror); the BSP is built with the board's flags as they are.
        _compile([board.cc, *flags, "-Werror", "-fsyntax-only", *map(str, em_run_sources(out_dir))])
        return build(board.cc, flags, em_run_sources(out_dir) + bsp_sources(board), out,
                     [*firmware_ldflags(board), f"-Wl,-Map={out.with_suffix('.map')}", "-lm"])

    return _shared(f"em_run_{board_name}", extra, make)
