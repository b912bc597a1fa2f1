"""The host demos against serving firmware in QEMU: the camera demo on synthetic frames (device
boxes equal the reference's on every frame) and the keyword demo on spoken words."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tools.camera_demo import DemoError, parse_boxes
from ember_build.paths import BUILD_ROOT

REPO = Path(__file__).resolve().parents[2]
SCONS = Path(sys.executable).with_name("scons")


def _scons(*args: str) -> str:
    run = subprocess.run([str(SCONS), *args], cwd=REPO, capture_output=True, text=True, timeout=1800)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return run.stdout


@pytest.mark.qemu
def test_camera_demo_boxes_equal_the_reference():
    _scons("app=person_detect", "model=yolo", "demo=camera", "source=synthetic", "frames=4")
    out = BUILD_ROOT / "corstone300/person_detect-yolo/demo"
    demo = json.loads((out / "demo.json").read_text())
    assert demo["frames"] == 4 and demo["frames_equal_to_reference"] == 4
    assert all(frame["device_count"] > 1_000_000 for frame in demo["per_frame"])
    assert len(list(out.glob("*.png"))) >= 4


@pytest.mark.qemu
def test_keyword_demo_on_spoken_words():
    text = _scons("app=kws", "demo=kws", "words=yes,stop")
    detections = json.loads((BUILD_ROOT / "corstone300/kws/demo/demo.json").read_text())
    assert [d["clip"] for d in detections] == ["yes", "stop"]
    assert all(d["equal_to_reference"] for d in detections) and "yes: " in text
    assert all(0.0 <= d["score"] <= 1.0 for d in detections)


def test_box_payload_is_checked():
    assert parse_boxes(b"\0\0\0\0") == []
    with pytest.raises(DemoError, match="holds"):
        parse_boxes(b"\x02\0\0\0" + b"\0" * 10)
