"""Host builds of the runtime for the tests (until the SCons host build lands).

Flags: C11, -O2, all warnings as errors, and -ffp-contract=off so that no float product is fused
into an FMA that the reference (NumPy float32) does not perform.
"""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
RUNTIME = REPO / "runtime"

CFLAGS = ["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-ffp-contract=off"]
INCLUDES = [
    f"-I{RUNTIME / 'include'}",
    f"-I{RUNTIME / 'kernels' / 'include'}",
    f"-I{REPO / 'bsp' / 'include'}",
]


def kernel_sources() -> list[Path]:
    return sorted((RUNTIME / "kernels").glob("*.c"))


def runtime_sources() -> list[Path]:
    """Core (with the all-ops registry), op adapters and kernels."""
    return (
        sorted((RUNTIME / "core").glob("*.c"))
        + sorted((RUNTIME / "ops").glob("*.c"))
        + kernel_sources()
    )


def host_bsp_sources() -> list[Path]:
    """The real host BSP when it exists, else the temporary shim in tests/runtime/."""
    real = sorted((REPO / "bsp" / "host").glob("*.c"))
    return real or [Path(__file__).with_name("host_bsp_shim.c")]


def _compile(cmd: list[str]) -> None:
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"build failed: {' '.join(cmd)}\n{result.stdout}{result.stderr}")


def build_kernels_lib(out_dir: Path, cc: str | None = None) -> Path:
    """libember_kernels.so: the kernels only, for ctypes."""
    out = Path(out_dir) / "libember_kernels.so"
    cc = cc or os.environ.get("CC", "cc")
    _compile([cc, *CFLAGS, "-fPIC", "-shared", *INCLUDES,
              *map(str, kernel_sources()), "-lm", "-o", str(out)])
    return out


def build_em_run(out_dir: Path, cc: str | None = None, extra: list[str] | None = None) -> Path:
    """The host em_run executable (runtime + all ops + host BSP)."""
    out = Path(out_dir) / "em_run"
    cc = cc or os.environ.get("CC", "cc")
    sources = runtime_sources() + sorted((REPO / "tools" / "em_run").glob("*.c")) + host_bsp_sources()
    _compile([cc, *CFLAGS, *(extra or []), *INCLUDES, *map(str, sources), "-lm", "-o", str(out)])
    return out


def build_fuzzer(out_dir: Path) -> Path:
    """The libFuzzer loader target (clang, ASan + UBSan)."""
    out = Path(out_dir) / "fuzz_loader"
    flags = ["-std=c11", "-g", "-O1", "-ffp-contract=off", "-fno-sanitize-recover=all",
             "-fsanitize=fuzzer,address,undefined"]
    _compile(["clang", *flags, *INCLUDES, *map(str, runtime_sources()),
              str(REPO / "tests" / "fuzz" / "fuzz_loader.c"), "-lm", "-o", str(out)])
    return out
