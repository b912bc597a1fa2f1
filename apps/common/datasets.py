"""What the apps' data modules share: the dataset error and the checks that raise it.

Real datasets are never downloaded at run time: the user passes a path, and a path that is
missing or laid out differently from what a loader expects raises `DatasetError` (or an app's
subclass of it) whose message names the expected layout and says how to fix it.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Callable

import numpy as np

from ember_build.paths import BUILD_ROOT

CACHE_ROOT = BUILD_ROOT / "data"


def cached_arrays(path: Path | None, make: Callable[[], dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """`make()`'s named arrays, kept in `path` (.npz): made and stored the first time, read after
    (None: made every time). Stored atomically: another process may be reading the cache."""
    if path is not None and path.exists():
        with np.load(path) as stored:
            return {name: stored[name] for name in stored.files}
    arrays = make()
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".tmp", delete=False) as tmp:
            np.savez(tmp, **arrays)
        os.replace(tmp.name, path)
    return arrays


class DatasetError(Exception):
    """A dataset path is missing or malformed; the message says what was expected and how to fix it."""


def require_dir(path: Path | str, error: type[DatasetError], layout: str) -> Path:
    """`path` as a Path if it is a folder, else `error` describing `layout`."""
    path = Path(path).expanduser()
    if not path.is_dir():
        what = "does not exist" if not path.exists() else "is not a folder"
        raise error(f"{path} {what}; expected {layout}")
    return path


def require_file(path: Path, error: type[DatasetError], layout: str) -> Path:
    """`path` if it is a file, else `error` describing `layout`."""
    if not path.is_file():
        raise error(f"{path} is missing; expected {layout}")
    return path
