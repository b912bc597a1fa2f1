"""Generated files that carry their own proof: a build is a function of its inputs.

SCons decides what to rebuild from its signature database, which it writes when it exits: a build
killed (SIGKILL, the OOM killer, a power cut) leaves files it made beside a database that still
describes the files before them. Change an app's input, kill the build after the lowering, revert
the input, and SCons finds its sources as the database remembers them and calls the new gen/ (made
from the changed input) up to date: the firmware links a program of inputs it was not built from.

So a step whose outputs a later build must be able to trust records, in its own output folder, what
it was made from:
1. its action first removes the record, then every older output (`forget`), then writes its
   outputs, then the record as its LAST write (`write_record`): inputs, each output's digest;
2. the SConscript, when it declares the step, compares the record with the inputs as they are now
   and with the outputs on disk (`distrust`); a missing or different record means the outputs (and
   whatever SCons made from them: objects, images, reports) are of other inputs, or half-written,
   whatever the database says, so the SConscript removes them and SCons makes them again.

The inputs are the step's source files (by content) and named values: what SCons's own signature of
the step holds (its sources, a Value, the variant and goal it lowers for), so that the record and
the database agree whenever the database can be trusted. Hashing them is cheap next to what SCons
does anyway: the anomaly app's lowering reads 105 files (1.7 MiB with its checkpoint) and writes 2.4
MiB; their digests take about 25 and 8 ms on a busy 2-core machine, of a no-op build's 5-6 s.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from compiler.files import write_atomically

RECORD = "inputs.json"  # in the step's output folder, beside its outputs
FORMAT = 1


@dataclass(frozen=True)
class StepInputs:
    """What a build step is made from: `files` (paths; a missing one counts as missing, e.g. a
    checkpoint train=1 will write) and `values` (name -> text: the board, the variant, the goal,
    a digest SCons takes as a Value). The record names files below `root` by their path in it."""

    files: tuple[str, ...]
    values: tuple[tuple[str, str], ...] = ()
    root: str = ""

    def digests(self) -> dict[str, str]:
        """name -> SHA-256 of each file's bytes ("missing" when it does not exist) and of each value."""
        found = {f"value:{name}": _sha256(text.encode()) for name, text in self.values}
        for name in self.files:
            shown = os.path.relpath(name, self.root) if self.root and Path(name).is_relative_to(self.root) else name
            found[f"file:{shown}"] = file_digest(Path(name))
        return found


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_digest(path: Path) -> str:
    try:
        with open(path, "rb") as f:
            return hashlib.file_digest(f, "sha256").hexdigest()
    except FileNotFoundError:
        return "missing"


def write_record(folder: Path, inputs: dict[str, str], outputs: list[str]) -> None:
    """The record of a finished step: `inputs` (StepInputs.digests, taken before the step read
    them) and the digest of each of `outputs` (names in `folder`, all written by now). The step's
    last write: until it exists, nothing in `folder` is trusted."""
    folder = Path(folder)
    record = {"format": FORMAT, "inputs": inputs, "outputs": {name: file_digest(folder / name) for name in outputs}}
    write_atomically(folder / RECORD, json.dumps(record, indent=1, sort_keys=True) + "\n")


def distrust(folder: Path, inputs: StepInputs, outputs: list[str]) -> str | None:
    """Why the outputs in `folder` are not those of `inputs` (None when the record proves they
    are): no record, inputs that changed since, or an output missing or other than recorded."""
    try:
        record = json.loads((Path(folder) / RECORD).read_text())
    except FileNotFoundError:
        return f"{RECORD} is missing (not built yet, or its last build failed or was stopped)"
    except ValueError:
        return f"{RECORD} is unreadable"
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        return f"{RECORD} is of another format"
    now, then = inputs.digests(), record.get("inputs", {})
    changed = sorted(k for k in now.keys() | then.keys() if now.get(k) != then.get(k))
    if changed:
        shown = ", ".join(k.partition(":")[2] for k in changed[:3]) + (f" and {len(changed) - 3} more" if len(changed) > 3 else "")
        return f"it was made from other inputs (changed: {shown})"
    recorded = record.get("outputs", {})
    for name in outputs:
        if recorded.get(name) is None or file_digest(Path(folder) / name) != recorded[name]:
            return f"{name} is not the file the step wrote"
    return None


def described(folder: Path, names) -> list[Path]:
    """`names` in `folder` (a `*` in one: a glob; `..` is taken literally, so "../x" is a sibling
    of `folder` even where `folder` does not exist)."""
    folder = Path(folder)
    return [p for n in names for p in (sorted(folder.glob(n)) if "*" in n else [Path(os.path.normpath(folder / n))])]


def remove(paths, env=None) -> None:
    """Removes each of `paths` (a file or a folder) that exists. With an SCons `env`, SCons forgets
    what it saw of them too (it remembers a file existing), so it makes again those it is asked for."""
    for path in map(Path, paths):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)
        if env is not None:
            env.fs.Entry(str(path)).clear_memoized_values()


def recorded_step(env, inputs: StepInputs, folder: Path, outputs: list[str], older: list, make) -> None:
    """An SCons action's body: `make()` writes `outputs` (names in `folder`), made from `inputs`.
    First the record goes, then the outputs and `older` (what was made from them); last, once
    `make` returned, the new record."""
    digests = inputs.digests()  # as the inputs are before `make` reads them
    remove([Path(folder) / RECORD, *(Path(folder) / n for n in outputs), *older], env)
    make()
    write_record(folder, digests, outputs)


def guard(folder: Path, inputs: StepInputs, outputs: list[str], made_from_it: Path, dry_run: bool = False) -> bool:
    """At SConscript reading: True when `folder` holds no proof that its `outputs` are of `inputs`,
    so the step must run whatever SCons's database says. Then `made_from_it` (a folder holding
    `folder` and everything made from it) is removed, unless `dry_run` (scons -n, -c)."""
    reason = distrust(folder, inputs, outputs)
    if reason and Path(made_from_it).exists() and not dry_run:
        print(f"ember: {folder}: {reason}: building everything in {made_from_it} again")
        remove([made_from_it])
    return reason is not None
