"""apps/anomaly on raw audio: windows → the device's log-mel features, the DCASE (ToyADMOS /
MIMII) folder loader and its named errors, the hooks, and the program lowered once with its
front end (AUC figures from the int8 reference)."""
from __future__ import annotations

import wave
from pathlib import Path

import numpy as np
import pytest
import torch

from apps.anomaly import data, model as anomaly_model
from compiler.audio_features import LOG_MEL_ANOMALY, log_mel


def _write_wav(path: Path, samples: np.ndarray, rate: int = 16_000, channels: int = 1) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(np.asarray(samples, dtype="<i2").tobytes())


def _machine_folder(root: Path) -> Path:
    rng = np.random.default_rng(0)
    for name, fault in (("train/normal_id_01_00000000.wav", None), ("train/normal_id_01_00000001.wav", None),
                        ("test/normal_id_01_00000000.wav", None), ("test/anomaly_id_01_00000000.wav", "clicks")):
        _write_wav(root / name, data.as_int16(data.machine_sound(rng, fault))[:4096])  # 3 windows: fast
    return root


def test_windows_and_features_are_the_device_log_mel():
    audio = data.as_int16(data.machine_sound(np.random.default_rng(1)))
    windows = data.windows(audio)
    assert windows.shape == (26, 3072) and windows.dtype == np.int16
    np.testing.assert_array_equal(windows[3], audio[3 * 512:3 * 512 + 3072])
    feats = data.features(windows[:4])
    assert feats.shape == (4, 640) and feats.dtype == np.float32
    np.testing.assert_array_equal(feats[2].reshape(5, 128), log_mel(windows[2]))
    assert data.windows(audio[:3000]).shape == (0, 3072)


def test_machine_folder_loads_and_splits(tmp_path):
    root = _machine_folder(tmp_path / "ToyCar")
    train = data.load_machine(root, "train", anomalous=False)
    assert train.shape == (2 * 3, 640)
    assert data.load_machine(root, "test", anomalous=True).shape == (3, 640)
    assert [bad for _, bad in data.machine_files(root, "test")] == [True, False]


@pytest.mark.parametrize("breakage,message", [
    ("missing", "does not exist"),
    ("no_test", "test does not exist"),
    ("stereo", "2 channel"),
    ("bad_name", "not named normal_"),
    ("anomaly_in_train", "normal sounds only"),
])
def test_machine_folder_named_errors(tmp_path, breakage, message):
    root = _machine_folder(tmp_path / "m")
    split = "train"
    if breakage == "missing":
        root = tmp_path / "nowhere"
    elif breakage == "no_test":
        for p in (root / "test").iterdir():
            p.unlink()
        (root / "test").rmdir()
        split = "test"
    elif breakage == "stereo":
        _write_wav(root / "train/normal_id_01_00000000.wav", np.zeros(32000), channels=2)
    elif breakage == "bad_name":
        _write_wav(root / "train/recording.wav", np.zeros(16000))
    elif breakage == "anomaly_in_train":
        _write_wav(root / "train/anomaly_id_01_00000000.wav", np.zeros(16000))
    with pytest.raises(data.MachineDataError, match=message) as caught:
        data.load_machine(root, split, anomalous=False)
    assert "DCASE 2020 task 2" in str(caught.value)


@pytest.fixture(scope="module")
def lowered():
    from compiler.pipeline import lower
    from compiler.target import Target

    model, meta = anomaly_model.load_trained()
    program = lower(model, anomaly_model.example_inputs(), anomaly_model.calibration_data(clips=2),
                    Target("cortex-m55"), front_end=anomaly_model.front_end(), name="anomaly",
                    report_fallbacks=False)
    return model, meta, program


def test_hooks_and_program_on_audio(lowered):
    model, meta, program = lowered
    assert anomaly_model.front_end() is LOG_MEL_ANOMALY and meta["threshold"] > 0
    vectors = anomaly_model.test_vectors(4)
    assert vectors.shape == (4, 1, 3072) and vectors.dtype == np.int16
    audio_input = program.graph.tensors[program.graph.inputs[0]]
    assert audio_input.dtype == "int16" and list(audio_input.shape) == [1, 3072]
    # the program's residual scores like the float model: normal windows low, anomalous high
    scores = [float(anomaly_model.residual_score(program.run_reference(v)[0])[0]) for v in vectors]
    with torch.no_grad():
        expected = anomaly_model.residual_score(model(torch.from_numpy(data.features(vectors[:, 0])))).numpy()
    assert min(scores[1::2]) > max(scores[0::2]) and min(expected[1::2]) > max(expected[0::2])


def test_accuracy_figures_hook(lowered):
    model, meta, program = lowered
    figures = anomaly_model.accuracy_figures(model, program, count=36)
    assert figures["metric"] == "AUC" and figures["samples"] == 36
    assert 0.5 < figures["float"] <= 1.0 and 0.5 < figures["int8_reference"] <= 1.0
    assert figures["threshold"] == np.float32(meta["threshold"])
    for at in (figures["float_at_threshold"], figures["int8_at_threshold"]):
        assert set(at) == {"tpr", "fpr", "precision"} and all(0.0 <= v <= 1.0 for v in at.values())
    assert set(figures["float_auc_by_severity"]) == set(data.SEVERITIES)
    assert [name for name, _ in figures["rows"]][0].startswith("threshold")


def test_clip_kinds_cover_every_fault_at_every_severity():
    kinds = data.clip_kinds(9, anomalous=True)
    assert sorted(kinds) == sorted((f, s) for f in data.FAULTS for s in data.SEVERITIES)
    assert data.clip_kinds(2, anomalous=False) == [(None, 0), (None, 0)]
    assert data.clip_windows(2, anomalous=True, seed=4).shape == (52, 3072)


@pytest.mark.parametrize("fault,severity,message", [("rattle", 2, "fault must be"), ("clicks", 4, "severity must be")])
def test_machine_sound_rejects_unknown_faults(fault, severity, message):
    with pytest.raises(ValueError, match=message):
        data.machine_sound(np.random.default_rng(0), fault, severity)


def test_faults_grow_with_severity():
    """The same clip (same random draws) with a stronger fault departs further from its normal
    self: mean absolute log-mel difference, per fault, increasing with severity."""
    def feats(fault, severity):
        return data.features(data.windows(data.as_int16(data.machine_sound(np.random.default_rng(7), fault, severity))))

    for fault in data.FAULTS:
        base = feats(fault, 1)
        # severity 1 vs itself is 0; severity 2 and 3 differ from 1 more and more
        distances = [float(np.abs(feats(fault, s) - base).mean()) for s in data.SEVERITIES]
        assert distances[0] == 0.0 and distances[1] < distances[2], (fault, distances)
