"""Paths and limits shared by the board-support tests (a module of its own, not conftest, so
that imports cannot pick up another directory's conftest.py)."""

from __future__ import annotations

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT / "site_scons") not in sys.path:
    sys.path.insert(0, str(REPO_ROOT / "site_scons"))

FIRMWARE_DIR = Path(__file__).resolve().parent / "firmware"
# Shared by every QEMU board (bsp/cortex_m/).
CALIBRATE_SOURCE = REPO_ROOT / "bsp" / "cortex_m" / "calibrate" / "calibrate.c"

# Every QEMU run in these tests is bounded; a healthy run takes well under a second.
QEMU_TIMEOUT_S = 30.0


def qemu_board_names() -> list[str]:
    """Every board that runs under an emulator (board.yaml `emulator` set): the QEMU boards."""
    from ember_build.board import emulated_boards

    return [board.name for board in emulated_boards()]
