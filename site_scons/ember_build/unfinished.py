"""A build tree whose last build did not finish: its SCons database cannot be trusted.

SCons writes its signature database (<build>/.sconsign.dblite) when a build ends, failed or
interrupted ones included. A build killed before that (SIGKILL, the OOM killer, a power cut)
leaves objects and images that the database does not describe: edit a C file, kill the build
once its object is compiled, revert the edit, and the next build finds the source as the
database remembers it and links the edited object. So each build marks the tree while it runs
(`.building-<pid>`, removed at exit, after SCons wrote the database); a mark whose process is
gone means the build before was killed, and the next build drops the database: everything is
built once more from its sources. Generated programs also carry their own record
(ember_build/build_inputs.py), which holds across builds that did finish.
"""
from __future__ import annotations

import atexit
import os
from pathlib import Path

MARK = ".building-"


def _started(pid: int) -> str | None:
    """The start time of process `pid` (Linux /proc: field 22 of stat), None if there is none."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]


def _alive(mark: Path) -> bool:
    """Whether the process that wrote `mark` still runs (not a later one that took its pid)."""
    try:
        pid = int(mark.name.removeprefix(MARK))
        started = mark.read_text().strip()
    except (ValueError, OSError):
        return False
    return _started(pid) == started


def distrust_unfinished(build_root: Path, database: Path) -> bool:
    """Marks `build_root` as being built by this process until it exits. When a mark of an
    earlier process that no longer runs is found, removes `database` (its files: SCons adds a
    suffix) and that mark first, and returns True: the caller says so."""
    build_root.mkdir(parents=True, exist_ok=True)
    stale = [mark for mark in build_root.glob(MARK + "*") if not _alive(mark)]
    for path in [*database.parent.glob(database.name + "*"), *stale] if stale else []:
        path.unlink(missing_ok=True)
    mark = build_root / f"{MARK}{os.getpid()}"
    mark.write_text(_started(os.getpid()) or "")
    atexit.register(mark.unlink, missing_ok=True)  # after SCons's own write of the database
    return bool(stale)
