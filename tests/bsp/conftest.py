"""Fixtures for the board-support tests: boards, and firmware built once per session."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "site_scons"))

from ember_build.board import load_board  # noqa: E402
from ember_build.toolchain import compile_firmware  # noqa: E402

FIRMWARE_DIR = Path(__file__).resolve().parent / "firmware"
CALIBRATE_SOURCE = REPO_ROOT / "bsp" / "corstone300" / "calibrate" / "calibrate.c"

# Every QEMU run in these tests is bounded; a healthy run takes well under a second.
QEMU_TIMEOUT_S = 30.0


def _need(tool: str) -> None:
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed")


@pytest.fixture(scope="session")
def corstone300():
    _need("arm-none-eabi-gcc")
    _need("qemu-system-arm")
    return load_board("corstone300")


@pytest.fixture(scope="session")
def host_board():
    _need("gcc")
    return load_board("host")


@pytest.fixture(scope="session")
def build_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("bsp_firmware")


@pytest.fixture(scope="session")
def build(build_dir):
    """build(board, source_name_or_path, extra_flags=(), tag="") -> ELF path, cached."""
    cache: dict = {}

    def _build(board, source, extra_flags=(), tag=""):
        source = Path(source)
        if not source.is_absolute():
            source = FIRMWARE_DIR / source
        key = (board.name, source, tuple(extra_flags))
        if key not in cache:
            out = build_dir / board.name / f"{source.stem}{tag}.elf"
            cache[key] = compile_firmware(board, [source], [], out, extra_flags=extra_flags)
        return cache[key]

    return _build
