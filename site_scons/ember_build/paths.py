"""Where Ember's builds go: `build/` in the checkout, or the folder the EMBER_BUILD environment
variable names (an out-of-tree build). Every build tree holds its own SCons signature database
(SConstruct), so two builds in two trees never share state: the test runner gives each of its
workers one (tests/conftest.py)."""
from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD_ROOT = Path(os.environ.get("EMBER_BUILD") or REPO / "build").resolve()


def shown_path(path: Path | str) -> str:
    """A file as messages name it: relative to the checkout when inside it (where ./scons and git
    run, whatever folder SCons reads a SConscript in), else to the working directory when inside
    that, else as given."""
    for root in (REPO, Path.cwd().resolve()):
        try:
            return str(Path(path).resolve().relative_to(root))
        except ValueError:
            continue
    return str(path)
