"""Runs a firmware image: under the board's emulator (QEMU) or natively for the host board.

The console is the emulator's stdio (UART0 with -nographic); the exit code is the firmware's
em_bsp_exit() status (semihosting SYS_EXIT_EXTENDED). A run that outlives `timeout_s` is killed
with its whole process group and reported as timed out.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .board import Board

DEFAULT_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class RunResult:
    exit_code: int | None  # None if the run timed out
    console_text: str
    timed_out: bool
    stderr_text: str = ""


PROGRAM_NAME = "firmware"


def semihosting_args(args: str) -> str:
    """`args` (split like a shell would) as QEMU -semihosting-config items: ",arg=firmware,arg=w1,..."
    (a comma inside a word is doubled, as QEMU's option syntax requires)."""
    words = [PROGRAM_NAME, *shlex.split(args)]
    return "".join(",arg=" + word.replace(",", ",,") for word in words)


def emulator_command(board: Board, elf: Path | str, args: str = "", serial: str | None = None) -> list[str]:
    """The command line that runs `elf` with command-line text `args` on `board`.

    Placeholders in board.yaml's emulator command: {elf}; {args} (the text as is, e.g. for
    -append); {semihosting_args} (see semihosting_args()). `serial` moves the console UART
    from stdio to a QEMU character device (e.g. "tcp:127.0.0.1:4000,server=on,wait=on" for the
    serial link, tools/ember_link.py)."""
    if board.emulator is None:
        return [str(elf), *shlex.split(args)]
    command = [
        word.replace("{elf}", str(elf))
        .replace("{semihosting_args}", semihosting_args(args))
        .replace("{args}", args)
        for word in board.emulator
    ]
    return command + (["-serial", serial] if serial else [])


def run_firmware(
    board: Board,
    elf: Path | str,
    args: str = "",
    timeout_s: float = DEFAULT_TIMEOUT_S,
    cwd: Path | str | None = None,
) -> RunResult:
    """Runs `elf` to completion (or until `timeout_s`) and returns its exit code and console."""
    process = subprocess.Popen(
        emulator_command(board, elf, args),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        start_new_session=True,  # its own process group, so a timeout kills all of it
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout_s)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        timed_out = True
    return RunResult(
        exit_code=None if timed_out else process.returncode,
        console_text=stdout.decode("utf-8", errors="replace"),
        timed_out=timed_out,
        stderr_text=stderr.decode("utf-8", errors="replace"),
    )
