"""Inputs survive a RUN over the serial link, or the device says they do not: serving firmware
(apps/common/firmware/em_link.c) refuses a RUN or RUN_TO that would read an input the last RUN
overwrote (the plan reuses its bytes: Program.inputs_kept) with ERROR INPUT_CONSUMED naming the
input, until SET_INPUT writes it again; an input the plan keeps runs again as it is. 100
repeated RUNs after one SET_INPUT, then 100 SET_INPUT + RUN rounds, on the host and in QEMU."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from compiler.schema import program_generated as fb
from ember_build.board import load_board
from ember_build.paths import BUILD_ROOT
from tools.ember_link import SET_INPUT, DeviceError, serve

REPO = Path(__file__).resolve().parents[2]
SCONS = Path(sys.executable).with_name("scons")
REPEATS = 100
FIRMWARE = {"host": "host/anomaly/serve/firmware", "corstone300": "corstone300/anomaly/serve/firmware.elf"}


@pytest.fixture(scope="module", params=list(FIRMWARE))
def served(request) -> tuple[str, Path]:
    board = request.param
    if board != "host":
        request.applymarker(pytest.mark.qemu)
    run = subprocess.run([str(SCONS), "app=anomaly", "serve=1", f"board={board}"], cwd=REPO, capture_output=True,
                         text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return board, BUILD_ROOT / FIRMWARE[board]


def test_a_run_reads_a_fresh_input_or_is_refused(served):
    board, elf = served
    gen = elf.parents[1] / "gen"
    data = np.load(gen / "expected.npz")
    inputs, outputs = data["inputs"], data["outputs"]
    program = fb.Program.GetRootAs((gen / "program.embr").read_bytes(), 0)
    kept = bool(program.InputsKeptLength()) and bool(program.InputsKept(0))
    with serve(load_board(board), elf) as link:
        link.set_input(0, inputs[0])
        link.run()
        assert link.output_bytes(0) == outputs[0].tobytes()
        for _ in range(REPEATS):  # no SET_INPUT in between
            if kept:
                link.run()
                assert link.output_bytes(0) == outputs[0].tobytes()
                continue
            with pytest.raises(DeviceError) as refused:
                link.run()
            assert refused.value.name == "INPUT_CONSUMED" and "input 0 was overwritten by the last RUN" in str(refused.value)
        if not kept:
            with pytest.raises(DeviceError, match="INPUT_CONSUMED"):
                link.run_to(1)
            assert link.output_bytes(0) == outputs[0].tobytes()  # a refused RUN touched nothing
        for k in range(REPEATS):
            link.set_input(0, inputs[k % len(inputs)])
            link.run()
            assert link.output_bytes(0) == outputs[k % len(inputs)].tobytes(), k
        link.shutdown()


def test_a_consumed_input_is_fresh_only_once_rewritten_whole(served):
    board, elf = served
    gen = elf.parents[1] / "gen"
    data = np.load(gen / "expected.npz")
    inputs, outputs = data["inputs"], data["outputs"]
    with serve(load_board(board), elf) as link:
        link.set_input(0, inputs[0])
        link.run()
        first_chunk = inputs[1].tobytes()[:1024]
        link.request(SET_INPUT, bytes([0]) + (0).to_bytes(4, "little") + first_chunk)  # the first chunk only
        with pytest.raises(DeviceError, match="INPUT_CONSUMED"):
            link.run()
        link.set_input(0, inputs[1])
        link.run()
        assert link.output_bytes(0) == outputs[1].tobytes()
        link.shutdown()
