"""`scons app=<app> figures=1`: the README table of an app, measured (anomaly as the example),
and the named error when an app's accuracy hook is missing or incomplete."""
from __future__ import annotations

import json
import subprocess
import sys
import types
from pathlib import Path

import pytest

from ember_build.figures import FiguresError, accuracy, markdown
from ember_build.paths import BUILD_ROOT

REPO = Path(__file__).resolve().parents[2]
SCONS = Path(sys.executable).with_name("scons")


@pytest.mark.qemu
def test_anomaly_figures_are_measured():
    run = subprocess.run([str(SCONS), "app=anomaly", "board=corstone300", "figures=1"], cwd=REPO,
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    out = BUILD_ROOT / "corstone300/anomaly"
    figures = json.loads((out / "figures.json").read_text())
    report = json.loads((out / "report.json").read_text())
    assert figures["accuracy"]["metric"] == "AUC" and figures["accuracy"]["samples"] == 1000
    assert 0.5 < figures["accuracy"]["int8_reference"] <= 1.0
    assert figures["device_agreement"] == {"vectors": 6, "equal": 6, "share": 1.0}
    assert figures["macs"] == 264_192  # 640·128 + 3·128·128 + 128·8 + 8·128 + 3·128·128 + 128·640
    assert figures["parameters"] > figures["macs"]  # biases and batch norms on top of the weights
    assert figures["instructions_per_inference"] == report["instructions_per_inference"]
    table = (out / "figures.md").read_text()
    assert "| MACs per inference | 264,192 |" in table
    assert table.count("`./scons app=anomaly board=corstone300 figures=1`") == 14  # 8, the app's 4, A16W8's 2
    assert [p["precision"] for p in figures["precisions"]] == ["a16w8"]  # app.yaml figures_precisions
    assert 0.5 < figures["precisions"][0]["accuracy"] <= 1.0
    assert "| float at the threshold: TPR (recall) / FPR / precision |" in table


def _figures(**accuracy_result) -> dict:
    return {"app": "a", "board": "b", "tier": "mve", "accuracy": accuracy_result, "parameters": 1, "macs": 2,
            "program_bytes": 3, "arena_bytes": {"sram": 4}, "counter_unit": "instructions (QEMU)",
            "device_agreement": {"vectors": 4, "equal": 3, "share": 0.75}, "instructions_per_inference": 5}


def test_markdown_shows_a_partial_agreement():
    table = markdown(_figures(metric="accuracy", float=0.9, int8_reference=0.89, samples=10))
    assert "| 75% (3/4) |" in table and "| float accuracy (10 held-out samples) | 0.900 |" in table


def test_markdown_shows_the_apps_own_rows_after_the_accuracy():
    table = markdown(_figures(metric="AUC", float=0.9, int8_reference=0.89, samples=10,
                              rows=[["threshold (dB²)", "8.623"]]))
    lines = table.splitlines()
    assert lines[4].startswith("| threshold (dB²) | 8.623 |") and lines[3].startswith("| int8 reference AUC")


def test_missing_or_incomplete_hook_is_a_named_error():
    bare = types.ModuleType("apps.bare.model")
    with pytest.raises(FiguresError, match="no accuracy_figures"):
        accuracy(bare, None, None, 10)
    bare.accuracy_figures = lambda model, program, count: {"metric": "accuracy", "float": 1.0}
    with pytest.raises(FiguresError, match="int8_reference, samples"):
        accuracy(bare, None, None, 10)


def test_markdown_shows_each_further_precision():
    figures = _figures(metric="accuracy", float=0.9, int8_reference=0.89, samples=10)
    figures["precisions"] = [{"precision": "a8w4", "accuracy": 0.875, "program_bytes": 35060}]
    lines = markdown(figures).splitlines()
    assert lines[4].startswith("| a8w4 reference accuracy (same samples) | 0.875 |")
    assert lines[5].startswith("| a8w4 program bytes | 35,060 |")


def test_at_precisions_scores_each_program():
    from ember_build.figures import at_precisions

    module = types.ModuleType("apps.some.model")
    module.accuracy_figures = lambda model, program, count: {"metric": "accuracy", "float": 1.0, "samples": count,
                                                             "int8_reference": program.score}
    program = types.SimpleNamespace(score=0.5, to_bytes=lambda: b"1234")
    assert at_precisions(module, None, {"a8w4": program}, 7) == [{"precision": "a8w4", "accuracy": 0.5,
                                                                   "program_bytes": 4}]
