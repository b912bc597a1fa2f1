"""Every kernel compiles for every tier at every optimisation level a user may pick (opt=...):
the hand-written loops ask GCC for up to 14 registers, which -O0 and -O1 do not always have
(em_nn_support.h em_nn_dot4_s8_dsp, em_nn_conv2d_dsp.h em_nn_dot2x2*_s8_dsp, em_nn_dot4_cols_mve's
CBZ), with runtime/kernels/include as the only include path (the kernels know no runtime).
Compile only: the -O0 DSP build's bytes are the conformance suite's mps2_an386-O0 device."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from ember_build.board import load_board

pytestmark = pytest.mark.qemu  # builds Arm firmware / runs it in QEMU (tests/tiers.py)

REPO = Path(__file__).resolve().parents[2]
KERNELS = sorted((REPO / "runtime" / "kernels").glob("*.c"))
LEVELS = ["-O0", "-Og", "-O1", "-Os", "-O3"]  # -O2: every other build


@pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None, reason="needs arm-none-eabi-gcc")
@pytest.mark.parametrize("board", ["mps2_an385", "mps2_an386", "corstone300"])
@pytest.mark.parametrize("level", LEVELS)
def test_kernels_compile(board, level, tmp_path):
    b = load_board(board)
    flags = [f for f in b.cflags if f.startswith(("-mcpu", "-march", "-mthumb", "-mfloat-abi"))]
    failed = []
    for source in KERNELS:
        run = subprocess.run([b.cc, *flags, level, "-std=c11", "-Wall", "-Wextra", "-Werror",
                              f"-I{REPO / 'runtime/kernels/include'}",  # the kernels' own headers only
                              "-c", str(source), "-o", str(tmp_path / (source.stem + ".o"))],
                             capture_output=True, text=True)
        if run.returncode != 0:
            failed.append(f"{source.name}:\n{run.stderr[-1500:]}")
    assert not failed, f"{board} {level}:\n" + "\n".join(failed)
