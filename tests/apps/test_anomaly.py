"""The anomaly app end to end: `scons app=anomaly board=<board> run=1` on QEMU and on the host,
and a one-batch training smoke test."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from apps.anomaly import model as anomaly_model
from ember_build.paths import BUILD_ROOT

REPO = Path(__file__).resolve().parents[2]
SCONS = Path(sys.executable).with_name("scons")


def _build_and_run(board: str) -> dict:
    run = subprocess.run([str(SCONS), "app=anomaly", f"board={board}", "run=1"], cwd=REPO,
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return json.loads((BUILD_ROOT / board / "anomaly" / "report.json").read_text())


@pytest.mark.slow  # an SCons build on the host (tests/tiers.py)
@pytest.mark.parametrize("board,unit", [("corstone300", "instructions (QEMU)"), ("mps2_an386", "instructions (QEMU)"), ("mps2_an505", "instructions (QEMU)"), ("mps2_an385", "instructions (QEMU)"), ("host", "ns (host)")])
def test_device_outputs_equal_the_reference(board, unit):
    report = _build_and_run(board)
    assert report["match"] is True and report["mismatched_vectors"] == [] and report["vectors"] == 6
    assert report["app"] == "anomaly" and report["board"] == board
    assert report["counter_unit"] == unit
    assert report["instructions_per_inference"] > 0
    assert all(size > 0 for size in report["arena_bytes"].values())
    assert report["flash_bytes"] > report["program_bytes"] > 250_000  # ~270 k int8 weights
    if board == "host":
        assert report["stack_peak_bytes"] == 0  # not measured on the host
    else:  # painted stack: some used, less than the board's stack (and more than main's frame)
        from ember_build.board import load_board

        assert 256 < report["stack_peak_bytes"] < load_board(board).stack_bytes
    # the device's verdicts are the reference's: same score (to the bit), same threshold, same decision
    assert report["verdicts"] == report["reference_verdicts"]
    assert [v["index"] for v in report["verdicts"]] == list(range(6))
    expected = np.load(BUILD_ROOT / board / "anomaly" / "gen" / "expected.npz")
    scores = anomaly_model.device_score(expected["outputs"].reshape(6, -1))
    assert report["scores"] == [float(s) for s in scores]  # score_bits: the firmware's anomaly_score
    threshold = anomaly_model.threshold()
    assert all(v["threshold"] == float(anomaly_model.milli(threshold)) for v in report["verdicts"])
    assert [v["anomalous"] for v in report["verdicts"]] == [bool(s > threshold) for s in scores]
    # normal windows and clear faults alternate: both verdicts occur
    assert {v["anomalous"] for v in report["verdicts"]} == {False, True}


@pytest.mark.qemu
def test_qemu_instruction_counts_are_repeatable():
    first = _build_and_run("corstone300")["counts_per_inference"]
    second = _build_and_run("corstone300")["counts_per_inference"]
    assert first == second


@pytest.mark.qemu
def test_firmware_links_no_heap():
    from ember_build.elf_check import heap_symbols

    elf = BUILD_ROOT / "corstone300/anomaly/firmware.elf"
    if not elf.exists():
        _build_and_run("corstone300")
    assert heap_symbols(elf) == []


def test_training_smoke(tmp_path):
    from apps.anomaly.train import train

    meta = train(epochs=1, out=tmp_path / "checkpoint.pt", max_batches=1, train_clips=2, validation_clips=2)
    assert (tmp_path / "checkpoint.pt").exists() and meta["threshold"] > 0
    assert meta["threshold_rule"].startswith("youden") and 0.0 <= meta["validation_fpr"] <= 1.0
