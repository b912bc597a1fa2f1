"""Images for the image-classification app: ten procedural classes, or CIFAR-10 from a folder.

Both sources give `Images`: `images` uint8 [N, 32, 32, 3] (H × W × RGB, as a camera delivers
and as Ember programs take an image) and `labels` int64 [N] in 0..9.

Synthetic classes (`CLASSES`), five shapes and five textures, each drawn with random colours
(foreground/background contrast from faint to strong), pose (rotation, position — shapes may
leave the frame a little), scale, lighting (brightness, contrast) and pixel noise. Shapes lie on
a flat, gradient or cloudy background. Edges are anti-aliased by 4 × 4 supersampling. Near
neighbours on purpose — stripes, checker and rings at fine periods, a circle and a single blob,
a square and a cross at small scale — so that a ResNet-8 must learn rather than read one pixel.
Everything is a function of the seed.

Real data: the CIFAR-10 python batches (`data_batch_1` … `data_batch_5`, `test_batch`, pickled
dicts with b"data" [N, 3072] uint8 as R, G, B planes and b"labels"), never downloaded here.
"""
from __future__ import annotations

import pickle
from pathlib import Path
from typing import Callable, NamedTuple

import numpy as np

from apps.common.datasets import DatasetError, require_dir, require_file

SIZE = 32
CLASSES = ("circle", "square", "triangle", "star", "cross", "stripes", "checker", "rings", "blobs", "gradient")
CIFAR10_CLASSES = ("airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck")
_SUPERSAMPLE = 4
_CIFAR_LAYOUT = ("the CIFAR-10 python version: a folder holding data_batch_1 … data_batch_5 and "
                 "test_batch (pickled dicts with b'data' [10000, 3072] uint8 and b'labels'), as "
                 "unpacked from cifar-10-python.tar.gz (the folder cifar-10-batches-py or its parent). "
                 "Download and unpack it yourself and pass that folder; Ember never downloads data")


class Cifar10Error(DatasetError):
    """The CIFAR-10 folder is missing or malformed."""


class Images(NamedTuple):
    images: np.ndarray  # uint8 [N, 32, 32, 3]
    labels: np.ndarray  # int64 [N]


def _grid(size: int, supersample: int) -> tuple[np.ndarray, np.ndarray]:
    """Sample-point coordinates in [-1, 1] (pixel centres of a supersampled grid), x to the right, y down."""
    n = size * supersample
    axis = (np.arange(n) + 0.5) / n * 2.0 - 1.0
    return np.meshgrid(axis, axis, indexing="xy")


_X, _Y = _grid(SIZE, _SUPERSAMPLE)
_PX, _PY = _grid(SIZE, 1)


def _downsample(mask: np.ndarray) -> np.ndarray:
    """Coverage in 0..1 per output pixel of a supersampled boolean mask."""
    s = _SUPERSAMPLE
    return mask.reshape(SIZE, s, SIZE, s).mean(axis=(1, 3))


def _pose(rng: np.random.Generator, scale_range: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """Canonical shape coordinates (u, v) of the supersampled grid under a random rotation, scale and shift."""
    scale = rng.uniform(*scale_range)
    angle = rng.uniform(0, 2 * np.pi)
    reach = max(0.05, 1.0 - 0.75 * scale)  # the shape may stick out of the frame a little
    cx, cy = rng.uniform(-reach, reach, 2)
    c, s = np.cos(angle), np.sin(angle)
    dx, dy = _X - cx, _Y - cy
    return (c * dx + s * dy) / scale, (-s * dx + c * dy) / scale


def _inside_polygon(u: np.ndarray, v: np.ndarray, vertices: np.ndarray) -> np.ndarray:
    """Even-odd rule: is each (u, v) inside the closed polygon [K, 2]?"""
    inside = np.zeros(u.shape, dtype=bool)
    x0, y0 = vertices[:, 0], vertices[:, 1]
    x1, y1 = np.roll(x0, -1), np.roll(y0, -1)
    for a, b, c, d in zip(x0, y0, x1, y1):
        crosses = (b > v) != (d > v)
        with np.errstate(divide="ignore", invalid="ignore"):
            x_at = a + (v - b) * (c - a) / (d - b)
        inside ^= crosses & (u < x_at)
    return inside


def _circle(rng: np.random.Generator) -> np.ndarray:
    u, v = _pose(rng, (0.3, 0.75))
    aspect = rng.uniform(0.85, 1.15)
    return (u * aspect) ** 2 + (v / aspect) ** 2 < 1.0


def _square(rng: np.random.Generator) -> np.ndarray:
    u, v = _pose(rng, (0.28, 0.65))
    return (np.abs(u) < 1.0) & (np.abs(v) < rng.uniform(0.8, 1.0))


def _triangle(rng: np.random.Generator) -> np.ndarray:
    u, v = _pose(rng, (0.35, 0.85))
    angles = np.deg2rad(90 + 120 * np.arange(3) + rng.uniform(-12, 12, 3))
    radii = rng.uniform(0.9, 1.1, 3)
    return _inside_polygon(u, v, np.stack([radii * np.cos(angles), radii * np.sin(angles)], 1))


def _star(rng: np.random.Generator) -> np.ndarray:
    u, v = _pose(rng, (0.4, 0.9))
    points = int(rng.integers(5, 7))
    angles = np.pi / points * np.arange(2 * points)
    radii = np.where(np.arange(2 * points) % 2 == 0, 1.0, rng.uniform(0.38, 0.55))
    return _inside_polygon(u, v, np.stack([radii * np.cos(angles), radii * np.sin(angles)], 1))


def _cross(rng: np.random.Generator) -> np.ndarray:
    u, v = _pose(rng, (0.35, 0.85))
    width = rng.uniform(0.22, 0.38)
    return ((np.abs(u) < width) & (np.abs(v) < 1.0)) | ((np.abs(v) < width) & (np.abs(u) < 1.0))


def _rotated(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The supersampled grid in pixels, rotated by a random angle about a random origin."""
    angle = rng.uniform(0, np.pi)
    c, s = np.cos(angle), np.sin(angle)
    x, y = _X * SIZE / 2 + rng.uniform(-8, 8), _Y * SIZE / 2 + rng.uniform(-8, 8)
    return c * x + s * y, -s * x + c * y


def _stripes(rng: np.random.Generator) -> np.ndarray:
    u, v = _rotated(rng)
    period = rng.uniform(3.0, 9.0)
    wobble = rng.uniform(0, 1.5) * np.sin(2 * np.pi * v / rng.uniform(12, 40))
    return np.sin(2 * np.pi * (u + wobble) / period) > rng.uniform(-0.4, 0.4)


def _checker(rng: np.random.Generator) -> np.ndarray:
    u, v = _rotated(rng)
    period = rng.uniform(3.0, 8.0)
    return (np.floor(u / period) + np.floor(v / period * rng.uniform(0.8, 1.25))) % 2 == 0


def _rings(rng: np.random.Generator) -> np.ndarray:
    cx, cy = rng.uniform(-0.7, 0.7, 2)
    radius = np.hypot(_X - cx, _Y - cy) * SIZE / 2
    period = rng.uniform(3.0, 8.0)
    return np.sin(2 * np.pi * radius / period + rng.uniform(0, 2 * np.pi)) > rng.uniform(-0.3, 0.3)


def _blobs(rng: np.random.Generator) -> np.ndarray:
    mask = np.zeros(_X.shape, dtype=bool)
    for _ in range(int(rng.integers(3, 10))):
        cx, cy = rng.uniform(-1, 1, 2)
        rx, ry = rng.uniform(0.08, 0.35, 2)
        mask |= ((_X - cx) / rx) ** 2 + ((_Y - cy) / ry) ** 2 < 1.0
    return mask


def _gradient(rng: np.random.Generator) -> np.ndarray:
    """Not a mask: a smooth 0..1 blend weight (linear or radial), so no edge anywhere."""
    if rng.random() < 0.5:
        angle = rng.uniform(0, 2 * np.pi)
        t = (np.cos(angle) * _X + np.sin(angle) * _Y) * rng.uniform(0.4, 0.7) + 0.5
    else:
        cx, cy = rng.uniform(-1, 1, 2)
        t = np.hypot(_X - cx, _Y - cy) / rng.uniform(1.0, 2.5)
    return np.clip(t, 0.0, 1.0)


_DRAW: tuple[Callable[[np.random.Generator], np.ndarray], ...] = (
    _circle, _square, _triangle, _star, _cross, _stripes, _checker, _rings, _blobs, _gradient)
_SHAPES = frozenset(range(5))


def _colours(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Foreground and background RGB in 0..1 that differ by at least a faint contrast."""
    while True:
        fg, bg = rng.uniform(0, 1, 3), rng.uniform(0, 1, 3)
        if np.abs(fg - bg).max() > rng.uniform(0.15, 0.5):
            return fg, bg


def _background(rng: np.random.Generator, colour: np.ndarray) -> np.ndarray:
    """[SIZE, SIZE, 3] background for a shape: flat, a gentle gradient, or low-frequency clouds."""
    kind = rng.integers(3)
    if kind == 0:
        shade = np.zeros((SIZE, SIZE))
    elif kind == 1:
        angle = rng.uniform(0, 2 * np.pi)
        shade = (np.cos(angle) * _PX + np.sin(angle) * _PY) * rng.uniform(0.05, 0.2)
    else:
        coarse = rng.normal(0, rng.uniform(0.03, 0.12), (5, 5))
        index = np.linspace(0, 4, SIZE)
        rows = np.array([np.interp(index, np.arange(5), row) for row in coarse])
        shade = np.array([np.interp(index, np.arange(5), col) for col in rows.T]).T
    return np.clip(colour[None, None, :] + shade[:, :, None], 0, 1)


def render(label: int, rng: np.random.Generator) -> np.ndarray:
    """One uint8 [SIZE, SIZE, 3] image of class `label` (an index into CLASSES)."""
    fg, bg = _colours(rng)
    weight = _DRAW[label](rng)
    coverage = _downsample(weight.astype(np.float64))[:, :, None]
    base = _background(rng, bg) if label in _SHAPES else bg[None, None, :]
    image = base * (1.0 - coverage) + fg[None, None, :] * coverage
    image = (image - 0.5) * rng.uniform(0.6, 1.2) + 0.5 + rng.uniform(-0.15, 0.15)  # contrast, brightness
    image = image + rng.normal(0, rng.uniform(0.0, 0.08), image.shape)
    return np.clip(np.rint(image * 255.0), 0, 255).astype(np.uint8)


def synthetic(count: int, seed: int) -> Images:
    """`count` images, classes in turn (balanced) then shuffled; the same seed gives the same bytes."""
    rng = np.random.default_rng(seed)
    labels = rng.permutation(np.arange(count) % len(CLASSES))
    images = [render(int(label), rng) for label in labels]
    images = np.stack(images) if images else np.zeros((0, SIZE, SIZE, 3), np.uint8)
    return Images(images, labels.astype(np.int64))


def _cifar_folder(root: Path | str) -> Path:
    root = require_dir(root, Cifar10Error, _CIFAR_LAYOUT)
    if not (root / "test_batch").exists() and (root / "cifar-10-batches-py").is_dir():
        root = root / "cifar-10-batches-py"
    return root


def _read_batch(path: Path) -> Images:
    require_file(path, Cifar10Error, _CIFAR_LAYOUT)
    try:
        with path.open("rb") as f:
            batch = pickle.load(f, encoding="bytes")
        data = np.asarray(batch[b"data"], dtype=np.uint8)
        labels = np.asarray(batch[b"labels"], dtype=np.int64)
    except Exception as error:  # unpickling fails in many ways on a file that is not a CIFAR batch
        raise Cifar10Error(f"{path} is not a CIFAR-10 python batch ({type(error).__name__}: {error}); "
                           f"expected {_CIFAR_LAYOUT}") from error
    if data.ndim != 2 or data.shape[1] != 3 * SIZE * SIZE or labels.shape != (len(data),) \
            or (labels.size and (labels.min() < 0 or labels.max() >= len(CIFAR10_CLASSES))):
        raise Cifar10Error(f"{path}: b'data' has shape {data.shape} and b'labels' {labels.shape}; expected "
                           f"[N, 3072] uint8 and N labels in 0..9 ({_CIFAR_LAYOUT})")
    images = data.reshape(-1, 3, SIZE, SIZE).transpose(0, 2, 3, 1)  # R, G, B planes → H × W × RGB
    return Images(np.ascontiguousarray(images), labels)


def load_cifar10(root: Path | str, split: str) -> Images:
    """CIFAR-10 `split` ("train": data_batch_1..5, "test": test_batch) from `root`."""
    names = {"train": [f"data_batch_{i}" for i in range(1, 6)], "test": ["test_batch"]}
    if split not in names:
        raise ValueError(f"split must be 'train' or 'test', not {split!r}")
    folder = _cifar_folder(root)
    batches = [_read_batch(folder / name) for name in names[split]]
    return Images(np.concatenate([b.images for b in batches]), np.concatenate([b.labels for b in batches]))


def dataset(split: str, count: int, seed: int, root: Path | str | None = None) -> Images:
    """CIFAR-10 from `root` when given (all of `split`, `count` ignored), else `count` synthetic images."""
    if root is not None:
        return load_cifar10(root, split)
    return synthetic(count, seed)
