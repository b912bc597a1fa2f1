"""The image-classification app: model hooks on the committed checkpoint (lowered once), training
smoke tests (synthetic, a fake CIFAR-10 folder, a missing one) and `scons app=image_classification
board=corstone300 run=1` matching the reference byte for byte."""
from __future__ import annotations

import json
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import compiler
from apps.common.datasets import DatasetError
from apps.image_classification import data, model, train
from ember_build.paths import BUILD_ROOT

REPO = Path(__file__).resolve().parents[2]
SCONS = Path(sys.executable).with_name("scons")


@pytest.fixture(scope="module")
def trained():
    return model.load_trained()


@pytest.fixture(scope="module")
def program(trained):
    """The committed checkpoint lowered as the build lowers it (int8 in and out), fewer calibration images."""
    return compiler.lower(trained[0], model.example_inputs(), model.calibration_data(count=4),
                          int8_io=True, name="image_classification")


def test_checkpoint_meta_and_hooks(trained):
    net, meta = trained
    assert meta["dataset"] == "synthetic" and meta["classes"] == list(data.CLASSES)
    assert meta["epochs"] > 0 and meta["max_batches"] is None and meta["train_images"] >= 1000
    assert 0.5 < meta["test_accuracy"] <= 1.0  # ten classes: chance is 0.1
    (example,) = model.example_inputs()
    assert example.shape == model.INPUT_SHAPE and net(example).shape == (1, 10)
    calibration = model.calibration_data(count=3)
    assert len(calibration) == 3 and all(x.shape == model.INPUT_SHAPE for x in calibration)
    vectors = model.test_vectors(3)
    assert vectors.shape == (3, 1, 32, 32, 3) and vectors.dtype == np.float32
    assert vectors.min() >= -1.0 and vectors.max() < 1.0
    # the test vectors are the held-out split's first images, NHWC, (pixel − 128) / 128
    first = data.synthetic(3, model.TEST_SEED).images[0]
    assert np.array_equal(vectors[0, 0], (first.astype(np.float32) - 128) / 128)


def test_program_takes_and_returns_int8(program):
    graph = program.graph
    assert graph.tensors[graph.inputs[0]].dtype == "int8" and list(graph.tensors[graph.inputs[0]].shape) == [1, 32, 32, 3]
    assert graph.tensors[graph.outputs[0]].dtype == "int8"
    q = model.program_input(program, model.test_vectors(1)[0])
    assert q.dtype == np.int8 and q.shape == (1, 32, 32, 3)


def test_accuracy_figures(trained, program):
    figures = model.accuracy_figures(trained[0], program, count=10)
    assert figures["metric"] == "accuracy" and figures["samples"] == 10
    assert figures["float"] >= 0.5 and abs(figures["int8_reference"] - figures["float"]) <= 0.2
    for key in ("confusion_float", "confusion_int8_reference"):
        matrix = np.array(figures[key])
        assert matrix.shape == (10, 10) and matrix.sum() == 10
    correct = np.trace(np.array(figures["confusion_int8_reference"]))
    assert correct / 10 == pytest.approx(figures["int8_reference"])


def test_augment_crops_and_flips_only_where_the_class_allows():
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (64, 32, 32, 3), dtype=np.uint8)
    labels = np.arange(64) % 2
    flips = np.array([(False, False), (True, True)])  # class 0 never flips, class 1 may
    out = train.augment(images, labels, flips, rng)
    assert out.shape == images.shape and out.dtype == np.uint8
    padded = np.pad(images, ((0, 0), (4, 4), (4, 4), (0, 0)))

    def windows(i: int, flip: bool) -> bool:
        for view in ([padded[i]] if not flip else [padded[i], padded[i, :, ::-1], padded[i, ::-1], padded[i, ::-1, ::-1]]):
            if any(np.array_equal(out[i], view[y:y + 32, x:x + 32]) for y in range(9) for x in range(9)):
                return True
        return False

    assert all(windows(i, flip=False) for i in range(0, 64, 2))
    assert all(windows(i, flip=True) for i in range(1, 64, 2))
    assert not all(windows(i, flip=False) for i in range(1, 64, 2))  # some class-1 image was flipped


def test_training_smoke(tmp_path):
    meta = train.train(epochs=1, out=tmp_path / "checkpoint.pt", max_batches=1, train_images=64, test_images=20)
    assert (tmp_path / "checkpoint.pt").exists() and meta["dataset"] == "synthetic" and meta["test_images"] == 20
    net, loaded = model.load_trained(tmp_path / "checkpoint.pt")
    assert loaded == meta and 0.0 <= meta["test_accuracy"] <= 1.0


def _fake_cifar(folder: Path, per_batch: int = 8) -> None:
    rng = np.random.default_rng(1)
    folder.mkdir()
    for name in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        batch = {b"data": rng.integers(0, 256, (per_batch, 3072), dtype=np.uint8),
                 b"labels": [int(v) for v in rng.integers(0, 10, per_batch)]}
        (folder / name).write_bytes(pickle.dumps(batch))


def test_training_on_a_cifar10_folder(tmp_path):
    _fake_cifar(tmp_path / "cifar-10-batches-py")
    meta = train.train(epochs=1, out=tmp_path / "checkpoint.pt", root=tmp_path, max_batches=1)
    assert meta["dataset"] == "cifar10" and meta["classes"] == list(data.CIFAR10_CLASSES)
    assert meta["train_images"] == 40 and meta["test_images"] == 8


@pytest.mark.parametrize("breakage", ["missing", "malformed"])
def test_a_bad_cifar10_folder_is_a_dataset_error_naming_the_layout(tmp_path, breakage):
    root = tmp_path / "cifar"
    if breakage == "malformed":
        _fake_cifar(root)
        (root / "data_batch_3").write_bytes(b"not a pickle")
    with pytest.raises(DatasetError, match="data_batch_1 … data_batch_5 and test_batch"):
        train.train(epochs=1, out=tmp_path / "checkpoint.pt", root=root, max_batches=1)
    assert not (tmp_path / "checkpoint.pt").exists()


@pytest.mark.qemu
def test_app_matches_the_reference_on_corstone300():
    run = subprocess.run([str(SCONS), "app=image_classification", "board=corstone300", "run=1"], cwd=REPO,
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    report = json.loads((BUILD_ROOT / "corstone300/image_classification/report.json").read_text())
    assert report["match"] is True and report["vectors"] == 4 and report["mismatched_vectors"] == []
    assert report["counter_unit"] == "instructions (QEMU)" and report["instructions_per_inference"] > 1_000_000
    # the responder names a class of the checkpoint for every image, with a probability in 0..1000
    lines = [line for line in run.stdout.splitlines() if line.startswith("EM class ")]
    assert len(lines) == 4 and all(line.split()[3] in data.CLASSES for line in lines)
    expected = np.load(BUILD_ROOT / "corstone300/image_classification/gen/expected.npz")["outputs"]
    for line, output in zip(lines, expected):
        assert line.split()[3] == data.CLASSES[int(np.argmax(output))]
