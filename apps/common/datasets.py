"""What the apps' data modules share: the dataset error and the checks that raise it.

Real datasets are never downloaded at run time: the user passes a path, and a path that is
missing or laid out differently from what a loader expects raises `DatasetError` (or an app's
subclass of it) whose message names the expected layout and says how to fix it.
"""
from __future__ import annotations

from pathlib import Path
from ember_build.paths import BUILD_ROOT

CACHE_ROOT = BUILD_ROOT / "data"


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
