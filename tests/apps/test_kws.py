"""The keyword-spotting app: clips → MFCC features, the model module's hooks, the program lowered
once (front end included), `scons app=kws board=corstone300 run=1` (one QEMU run), and a
one-batch training smoke test."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from apps.kws import data, model as kws_model
from compiler.audio_features import MFCC_KWS, mfcc
from ember_build.paths import BUILD_ROOT

REPO = Path(__file__).resolve().parents[2]
SCONS = Path(sys.executable).with_name("scons")


@pytest.fixture(scope="module")
def trained():
    return kws_model.load_trained()


@pytest.fixture(scope="module")
def program(trained):
    from compiler.pipeline import lower
    from compiler.target import Target

    model, _ = trained
    return lower(model, kws_model.example_inputs(), kws_model.calibration_data(clips=12),
                 Target("cortex-m55"), front_end=kws_model.front_end(), name="kws", report_fallbacks=False)


def test_split_features_are_the_device_mfccs_and_cached(tmp_path):
    first = data.split_features("validation", 12, 5, cache_dir=tmp_path)
    assert first.features.shape == (12, 49, 10) and first.features.dtype == np.float32
    assert first.labels.shape == (12,) and set(first.labels) <= set(range(len(data.LABELS)))
    clips = data.synthetic(12, 5, "validation", cache_dir=tmp_path)
    np.testing.assert_array_equal(first.features, mfcc(clips.audio))
    assert len(list((tmp_path / "features").glob("validation-*.npz"))) == 1
    again = data.split_features("validation", 12, 5, cache_dir=tmp_path)
    np.testing.assert_array_equal(again.features, first.features)
    assert data.split_features("validation", 12, 6, cache_dir=tmp_path).features.tobytes() != first.features.tobytes()
    assert data.mfcc_features(np.zeros((0, 16000), np.int16)).shape == (0, 49, 10)


def test_hooks_shapes_and_checkpoint_meta(trained):
    model, meta = trained
    assert kws_model.front_end() is MFCC_KWS
    assert kws_model.example_inputs()[0].shape == (1, 1, 49, 10)
    calibration = kws_model.calibration_data(clips=12)
    assert len(calibration) == 12 and all(x.shape == (1, 1, 49, 10) for x in calibration)
    vectors = kws_model.test_vectors(3)
    assert vectors.shape == (3, 1, 16000) and vectors.dtype == np.int16
    out = model(calibration[0])
    assert out.shape == (1, 12) and torch.allclose(out.sum(), torch.tensor(1.0))
    for key in ("validation_accuracy", "test_accuracy", "epochs", "dataset"):
        assert key in meta
    assert 0.0 <= meta["test_accuracy"] <= 1.0 and meta["epochs"] >= 1
    assert meta.get("labels", list(data.LABELS)) == list(data.LABELS)


def test_program_takes_audio_and_accuracy_figures(trained, program, monkeypatch):
    import apps.kws.train

    monkeypatch.setattr(apps.kws.train, "TEST_CLIPS", 24)  # a smaller test split: the hook, not the figure
    model, _ = trained
    audio_input = program.graph.tensors[program.graph.inputs[0]]
    assert audio_input.dtype == "int16" and list(audio_input.shape) == [1, 16000]
    assert "mel_features" in [op.kind for op in program.graph.ops]
    figures = kws_model.accuracy_figures(model, program, count=12)
    assert figures["metric"] == "accuracy" and figures["samples"] == 12
    assert 0.0 <= figures["float"] <= 1.0 and 0.0 <= figures["int8_reference"] <= 1.0


def test_responder_labels_are_the_models():
    source = (REPO / "apps/kws/firmware/responder.c").read_text()
    table = re.search(r"kws_labels\[KWS_CLASSES\] = \{(.*?)\};", source, re.S)[1]
    assert re.findall(r'"(\w+)"', table) == list(data.LABELS)


@pytest.mark.qemu
def test_corstone300_matches_the_reference_and_names_the_keyword(kws_corstone300_run):
    run = kws_corstone300_run
    report = json.loads((BUILD_ROOT / "corstone300/kws/report.json").read_text())
    assert report["match"] is True and report["mismatched_vectors"] == [] and report["vectors"] == 4
    assert report["instructions_per_inference"] > 1_000_000  # front end + DS-CNN
    expected = np.load(BUILD_ROOT / "corstone300/kws/gen/expected.npz")
    assert expected["inputs"].dtype == np.int16
    keywords = dict(re.findall(r"^EM keyword (\d+) (\w+) score=\d+$", run.stdout, re.M))
    for i, output in enumerate(expected["outputs"]):
        assert keywords[str(i)] == data.LABELS[int(np.argmax(output))]


def test_training_smoke(tmp_path):
    from apps.kws.train import train

    meta = train(epochs=1, out=tmp_path / "checkpoint.pt", train_clips=24, validation_clips=12, test_clips=12,
                 max_batches=1)
    assert (tmp_path / "checkpoint.pt").exists() and 0.0 <= meta["test_accuracy"] <= 1.0


@pytest.mark.slow  # an SCons build on the host (tests/tiers.py)
def test_serving_firmware_answers_the_keyword():
    """`scons app=kws serve=1 board=host`: GET_RESULT names the top class of the last RUN."""
    import struct

    from ember_build.board import load_board
    from tools.ember_link import serve

    build = subprocess.run([str(SCONS), "app=kws", "board=host", "serve=1"], cwd=REPO, capture_output=True,
                           text=True, timeout=900)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    expected = np.load(BUILD_ROOT / "host/kws/gen/expected.npz")
    with serve(load_board("host"), BUILD_ROOT / "host/kws/serve/firmware") as link:
        for clip, output in zip(expected["inputs"][:2], expected["outputs"][:2]):
            link.set_input(0, clip)
            link.run()
            assert link.output_bytes(0) == output.tobytes()
            result = link.result()
            top = int(np.argmax(output))
            assert result[0] == top and result[5:].decode() == data.LABELS[top]
            assert struct.unpack("<f", result[1:5])[0] == output.reshape(-1)[top]
        link.shutdown()
