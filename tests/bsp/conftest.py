"""Fixtures for the board-support tests: boards, and firmware built once per session."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bsp_test_support import FIRMWARE_DIR, qemu_board_names
from ember_build.board import load_board
from ember_build.toolchain import compile_firmware


def _need(tool: str) -> None:
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed")


@pytest.fixture(scope="session")
def corstone300():
    _need("arm-none-eabi-gcc")
    _need("qemu-system-arm")
    return load_board("corstone300")


@pytest.fixture(scope="session", params=qemu_board_names())
def qemu_board(request):
    """Each QEMU board in turn (corstone300, mps2_an385, mps2_an386, mps2_an505, ...): tests
    that take this fixture run once per board."""
    _need("arm-none-eabi-gcc")
    _need("qemu-system-arm")
    return load_board(request.param)


@pytest.fixture(scope="session")
def host_board():
    _need("gcc")
    return load_board("host")


@pytest.fixture(scope="session")
def build_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("bsp_firmware")


@pytest.fixture(scope="session")
def build(build_dir):
    """build(board, source, extra_flags=(), tag="", optimization="-O2") -> ELF path, cached.
    `source` is a path, or a file name in tests/bsp/firmware/."""
    cache: dict = {}

    def _build(board, source, extra_flags=(), tag="", optimization="-O2"):
        source = Path(source)
        if not source.is_absolute():
            source = FIRMWARE_DIR / source
        key = (board.name, source, tuple(extra_flags), optimization)
        if key not in cache:
            out = build_dir / board.name / f"{source.stem}{tag}{optimization}.elf"
            cache[key] = compile_firmware(board, [source], [], out, extra_flags=extra_flags,
                                          optimization=optimization)
        return cache[key]

    return _build
