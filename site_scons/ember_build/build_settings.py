"""The build's settings checked before anything builds, each problem one line and exit 2:
build variables nobody declared (`bord=host` would silently build the default board), and the
named errors of board.yaml, app.yaml, board= and tier= wherever the build reads them (SConstruct,
a SConscript, the bench, the size matrix)."""
from __future__ import annotations

import difflib
from contextlib import contextmanager
from typing import Iterable, Iterator

from ember_build.app_build import AppError, app_variants, known_apps, load_app
from ember_build.board import BoardError, TierOverrideError, UnknownBoardError, boards

# Variables SConstruct reads from the raw ARGUMENTS: names SCons Variables cannot hold.
RAW_VARIABLES = ("size-matrix",)


def unknown_variables_error(unknown: Iterable[str], known: Iterable[str]) -> str | None:
    """The error for variables given but not declared, each with the closest known name; None
    when there are none."""
    unknown = [name for name in unknown if name not in RAW_VARIABLES]
    if not unknown:
        return None
    known = sorted([*known, *RAW_VARIABLES])
    hints = [f"{name}= (did you mean {close[0]}=?)" if (close := difflib.get_close_matches(name, known, n=1))
             else f"{name}=" for name in unknown]
    return (f"unknown build variable{'s' * (len(unknown) > 1)} {', '.join(hints)}; "
            f"known: {', '.join(known)} (scons -h explains them)")


@contextmanager
def settings_checked(exit) -> Iterator[None]:
    """Runs its block; a BoardError, AppError, UnknownBoardError or TierOverrideError from it is
    printed as one `error:` line and ends the build through `exit(2)` (SCons's Exit)."""
    try:
        yield
    except (BoardError, AppError) as error:  # their message starts with the file and line
        print(f"error: {error}")
        exit(2)
    except (UnknownBoardError, TierOverrideError) as error:
        print(f"error: {type(error).__name__}: {error}")
        exit(2)


def check_all(apps: str) -> None:
    """Loads every app.yaml (each model of it) named in `apps` (comma-separated; all when empty)
    and every board.yaml, raising the first one's named error: what the size matrix checks
    before its first child build."""
    for name in [a for a in apps.split(",") if a] or known_apps():
        for variant in (app_variants(name) or [""]) if name in known_apps() else []:
            load_app(name, variant)
    boards()
