"""apps/image_classification/data.py: the procedural classes (determinism, shapes, balance, each
class drawn as specified) and the CIFAR-10 loader on fake pickled batches, with its named errors."""
from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

from apps.common.datasets import DatasetError
from apps.image_classification import data


def test_synthetic_deterministic_shapes_balanced():
    a, b = data.synthetic(20, seed=5), data.synthetic(20, seed=5)
    assert np.array_equal(a.images, b.images) and np.array_equal(a.labels, b.labels)
    assert a.images.shape == (20, 32, 32, 3) and a.images.dtype == np.uint8
    assert a.labels.dtype == np.int64 and np.bincount(a.labels, minlength=10).tolist() == [2] * 10
    assert not np.array_equal(a.images, data.synthetic(20, seed=6).images)
    assert len({image.tobytes() for image in a.images}) == 20
    assert data.synthetic(0, seed=1).images.shape == (0, 32, 32, 3)


def _edges(image: np.ndarray) -> int:
    """Pixels with a strong step to a neighbour (on the noise-free coverage)."""
    return int((np.abs(np.diff(image, axis=0)) > 0.5).sum() + (np.abs(np.diff(image, axis=1)) > 0.5).sum())


@pytest.mark.parametrize("label", range(10))
def test_each_class_draws_what_it_names(label):
    """The class's mask before colour, lighting and noise: shapes are one compact region, textures cover
    the frame with many edges, the gradient has none."""
    rng = np.random.default_rng(label)
    for _ in range(8):
        cover = data._downsample(data._DRAW[label](rng).astype(np.float64))
        assert cover.min() >= 0 and cover.max() <= 1
        name = data.CLASSES[label]
        if name == "gradient":
            assert _edges(cover) == 0
        elif name in ("stripes", "checker", "rings"):
            assert 0.15 < cover.mean() < 0.85 and _edges(cover) > 40
        elif name == "blobs":
            assert 0.01 < cover.mean() < 0.9
        else:
            assert 0.02 < cover.mean() < 0.8  # one shape, partly in view at least


def test_render_uses_the_full_range_of_colours():
    images = data.synthetic(200, seed=0).images.astype(int)
    assert images.min() == 0 and images.max() == 255
    per_image_contrast = images.reshape(200, -1).std(1)
    assert per_image_contrast.min() > 2  # something visible in every image


def _write_batches(folder: Path, per_batch: int = 3) -> dict[str, tuple[np.ndarray, list[int]]]:
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    written = {}
    for name in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        pixels = rng.integers(0, 256, (per_batch, 3072), dtype=np.uint8)
        labels = [int(v) for v in rng.integers(0, 10, per_batch)]
        with (folder / name).open("wb") as f:
            pickle.dump({b"batch_label": name.encode(), b"labels": labels, b"data": pixels,
                         b"filenames": [b"x.png"] * per_batch}, f)
        written[name] = (pixels, labels)
    (folder / "batches.meta").write_bytes(pickle.dumps({b"label_names": [c.encode() for c in data.CIFAR10_CLASSES]}))
    return written


def test_cifar10_loads_planes_as_hwc(tmp_path):
    written = _write_batches(tmp_path / "cifar-10-batches-py")
    for root in (tmp_path / "cifar-10-batches-py", tmp_path):  # the batches' folder or its parent
        train, test = data.load_cifar10(root, "train"), data.load_cifar10(root, "test")
        assert train.images.shape == (15, 32, 32, 3) and test.images.shape == (3, 32, 32, 3)
        assert train.images.dtype == np.uint8 and train.labels.dtype == np.int64
        pixels, labels = written["test_batch"]
        assert test.labels.tolist() == labels
        y, x = 5, 17  # red plane first, then green, then blue; rows of 32
        for channel in range(3):
            assert test.images[1, y, x, channel] == pixels[1, channel * 1024 + y * 32 + x]
        assert train.labels.tolist() == sum((written[f"data_batch_{i}"][1] for i in range(1, 6)), [])
    assert np.array_equal(data.dataset("test", 99, 0, root=tmp_path).labels, test.labels)
    assert len(data.dataset("test", 7, 0).labels) == 7  # no root: synthetic
    with pytest.raises(ValueError, match="split"):
        data.load_cifar10(tmp_path, "validation")


@pytest.mark.parametrize("breakage,message", [
    ("no_root", "does not exist"),
    ("not_a_folder", "is not a folder"),
    ("no_test_batch", "test_batch is missing"),
    ("garbage", "is not a CIFAR-10 python batch"),
    ("no_data_key", "is not a CIFAR-10 python batch"),
    ("wrong_shape", r"shape \(3, 100\)"),
    ("bad_label", "labels in 0..9"),
])
def test_cifar10_named_errors(tmp_path, breakage, message):
    root = tmp_path / "cifar"
    _write_batches(root)
    if breakage == "no_root":
        root = tmp_path / "nowhere"
    elif breakage == "not_a_folder":
        root = root / "test_batch"
    elif breakage == "no_test_batch":
        (root / "test_batch").unlink()
    elif breakage == "garbage":
        (root / "test_batch").write_bytes(b"\x00\x01 not a pickle")
    elif breakage == "no_data_key":
        (root / "test_batch").write_bytes(pickle.dumps({b"labels": [1]}))
    elif breakage == "wrong_shape":
        (root / "test_batch").write_bytes(pickle.dumps({b"data": np.zeros((3, 100), np.uint8), b"labels": [0, 1, 2]}))
    elif breakage == "bad_label":
        (root / "test_batch").write_bytes(pickle.dumps({b"data": np.zeros((2, 3072), np.uint8), b"labels": [0, 10]}))
    with pytest.raises(data.Cifar10Error, match=message) as caught:
        data.load_cifar10(root, "test")
    assert isinstance(caught.value, DatasetError) and "data_batch_1" in str(caught.value)
