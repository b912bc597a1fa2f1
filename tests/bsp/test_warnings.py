"""The BSP compiles warning-free: the SCons build adds -Werror."""

from __future__ import annotations

import shutil

import pytest

from bsp_test_support import CALIBRATE_SOURCE, FIRMWARE_DIR
from ember_build.board import known_boards, load_board
from ember_build.toolchain import compile_firmware


@pytest.mark.qemu
@pytest.mark.parametrize("name", known_boards())
def test_bsp_compiles_with_werror(name, tmp_path):
    board = load_board(name)
    if shutil.which(board.cc) is None:
        pytest.skip(f"{board.cc} is not installed")
    sources = [FIRMWARE_DIR / "io.c"]
    compile_firmware(board, sources, [], tmp_path / "io.elf", extra_flags=["-Werror", "-Wpedantic"])
    if board.emulator is not None:  # every QEMU board runs the shared calibration firmware
        compile_firmware(board, [CALIBRATE_SOURCE], [], tmp_path / "calibrate.elf",
                         extra_flags=["-Werror", "-Wpedantic"])
