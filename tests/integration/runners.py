"""Runs a program on a board's em_run (the SCons-built runner: natively on the host, in QEMU on
emulated boards) and returns its first output, so every integration test drives devices alike."""
from __future__ import annotations

import subprocess
from functools import cache
from pathlib import Path

import numpy as np

from compiler.program import Program
from ember_build.board import load_board, one_board_per_tier
from ember_build.qemu import run_firmware
from tests.runtime.build_host import scons_em_run

REPO = Path(__file__).resolve().parents[2]
TIMEOUT_S = 120.0
# (board, compiler target) pairs the integration tests run on: scalar host and the MVE M55.
DEVICES = [(name, load_board(name).cpu) for name in ("host", "corstone300")]


@cache
def build_runner(board: str) -> Path:
    """`scons em_run board=<board>` (once per board and test run); the runner's path."""
    return scons_em_run(board)


def _invoke(board: str, program: Program, inputs: list[np.ndarray], workdir: Path,
            outputs: list[str]) -> tuple[int, str]:
    """(exit code, console) of one invoke writing program output k to workdir / outputs[k]."""
    runner = build_runner(board)
    program.save(workdir / "p.embr")
    args = ["p.embr"]
    for k, value in enumerate(inputs):
        (workdir / f"x{k}.bin").write_bytes(np.ascontiguousarray(value).tobytes())
        args += ["--input", f"x{k}.bin"]
    for name in outputs:
        (workdir / name).unlink(missing_ok=True)
        args += ["--output", name]
    if board == "host":
        result = subprocess.run([str(runner), *args], cwd=workdir, capture_output=True, text=True, timeout=TIMEOUT_S)
        return result.returncode, result.stdout + result.stderr
    emulated = run_firmware(load_board(board), runner, args=" ".join(args), timeout_s=TIMEOUT_S, cwd=workdir)
    return (-1 if emulated.timed_out else emulated.exit_code), emulated.console_text


def run(board: str, program: Program, inputs: list[np.ndarray], workdir: Path) -> tuple[int, str, bytes]:
    """(exit code, console, output 0's bytes) of one invoke of `program` on `inputs`."""
    code, console = _invoke(board, program, inputs, workdir, ["y.bin"])
    output = workdir / "y.bin"
    return code, console, output.read_bytes() if output.exists() else b""


def output_of(board: str, program: Program, inputs: list[np.ndarray], workdir: Path) -> bytes:
    """Output 0's bytes; fails the test with the console when the runner does not exit 0."""
    code, console, output = run(board, program, inputs, workdir)
    assert code == 0, console
    return output


# One QEMU board per ISA tier beside the host (bsp/): corstone300 (M55, mve), mps2_an386 (M4, dsp),
# mps2_an385 (M3, scalar).
TIER_DEVICES = [(b.name, b.cpu) for b in [load_board("host"), *one_board_per_tier()]]


def outputs_of(board: str, program: Program, inputs: list[np.ndarray], workdir: Path) -> list[bytes]:
    """Every program output's bytes from ONE invoke (em_run takes one --output per output), so a
    test batches many independent cases into one program and one QEMU launch."""
    names = [f"y{k}.bin" for k in range(len(program.graph.outputs))]
    code, console = _invoke(board, program, inputs, workdir, names)
    assert code == 0, console
    return [(workdir / name).read_bytes() for name in names]
