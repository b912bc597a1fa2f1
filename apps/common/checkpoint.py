"""Reading an app's checkpoint: every app's load_trained goes through `read_checkpoint`, so a
checkpoint that is missing, unreadable (truncated, random bytes) or not a checkpoint (another
file, another model's weights) is one error, CheckpointError, whose one-line message names the
file and what makes it whole again: `./scons app=<app> [model=<m>] train=1` trains a new one and,
if the file is in git, `git checkout -- <file>` restores the committed one.

CheckpointError is an OSError (as gzip's BadGzipFile is: a file that cannot be what it should
be), which SCons reports as one line, "scons: *** [<target>] <message>", with no traceback: the
build calls load_trained from site_scons/ember_build/app_build.py (compile_app, in the action
site_scons/site_tools/ember_app.py's _compile_model) and needs no handler of its own.

A checkpoint is what apps/common/training.py's save_checkpoint writes: {"model": state_dict,
"meta": dict}, read with torch.load(weights_only=True): tensors and plain data only, never code.
"""
from __future__ import annotations

import subprocess
import zipfile
from dataclasses import dataclass
from pathlib import Path

import torch

from ember_build.paths import shown_path


class CheckpointError(OSError):
    """A checkpoint that is missing, cannot be read, or is not the app's; the one-line message
    names the file and says how to make a new one (and how to restore a committed one)."""


@dataclass(frozen=True)
class Checkpoint:
    path: Path
    state_dict: dict
    meta: dict
    app: str = ""  # whose checkpoint it is: what the messages' retraining command names
    model: str = ""

    @property
    def fix(self) -> str:
        """What makes the file whole again: the end of CheckpointError's messages."""
        fixes = [f"`{retrain_command(self.app, self.model)}` trains a new one"] if self.app else []
        return " or ".join(fixes + _restore(self.path)) or "write it again"

    def load_into(self, network: torch.nn.Module) -> torch.nn.Module:
        """`network` with the checkpoint's weights; weights of another architecture are a
        CheckpointError."""
        name = type(network).__name__
        expected, held = set(network.state_dict()), set(self.state_dict)
        if expected != held:
            raise CheckpointError(f"{shown_path(self.path)}: its weights are not {name}'s ({len(expected - held)} of "
                                  f"its {len(expected)} tensors missing, {len(held - expected)} unknown to it: "
                                  f"another model's checkpoint?): {self.fix}")
        try:
            network.load_state_dict(self.state_dict)
        except (RuntimeError, TypeError, ValueError) as error:  # "size mismatch for …", on the line after torch's title
            lines = [line.strip() for line in str(error).splitlines() if line.strip()]
            raise CheckpointError(f"{shown_path(self.path)}: its weights do not fit {name} "
                                  f"({_clip(lines[1] if len(lines) > 1 else lines[0] if lines else type(error).__name__)}): "
                                  f"{self.fix}") from error
        return network


def retrain_command(app: str, model: str = "") -> str:
    return f"./scons app={app}{f' model={model}' if model else ''} train=1"


def read_checkpoint(path: Path | str, app: str = "", model: str = "") -> Checkpoint:
    """The checkpoint at `path`, of `app` (and `model`, for an app with several: what the
    retraining command in the messages names); without `app`, a checkpoint of no app (a
    fine-tuning start, say): the messages then name no retraining."""
    path = Path(path)
    unread = Checkpoint(path, {}, {}, app, model)  # for its fix
    if not path.is_file():
        raise CheckpointError(f"no checkpoint at {shown_path(path)}: {unread.fix}")
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises many types for a damaged file: all mean the same here
        raise CheckpointError(f"{shown_path(path)}: corrupt checkpoint, torch.load cannot read it "
                              f"({load_failure(path, error)}): {unread.fix}") from None
    if not (isinstance(state, dict) and isinstance(state.get("model"), dict) and isinstance(state.get("meta"), dict)):
        held = sorted(map(str, state)) if isinstance(state, dict) else type(state).__name__
        raise CheckpointError(f"{shown_path(path)}: not a checkpoint: it holds {_clip(str(held))}, where a checkpoint "
                              f"holds {{'model': state_dict, 'meta': dict}}: {unread.fix}")
    return Checkpoint(path, state["model"], state["meta"], app, model)


def _restore(path: Path) -> list[str]:
    """The git command that restores `path`, if git tracks it (the apps' committed checkpoints)."""
    try:
        tracked = subprocess.run(["git", "ls-files", "--error-unmatch", "--", path.name], cwd=path.parent,
                                 capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):  # no git, or no such folder
        tracked = False
    if not tracked:
        return []
    shown = shown_path(path)  # relative: the working directory is in the checkout
    command = f"git checkout -- {shown}" if not Path(shown).is_absolute() else f"git -C {path.parent} checkout -- {path.name}"
    return [f"`{command}` restores the committed one"]


def load_failure(path: Path, error: Exception) -> str:
    """What `error`, torch.load's failure to read `path`, says of the file, in a few words and
    without torch's advice to load it with weights_only=False (which runs whatever code the file
    holds). Also for the training run state (apps/common/training.py)."""
    with path.open("rb") as file:
        head = file.read(4)
    if not head:
        return "the file is empty"
    if not zipfile.is_zipfile(path):  # torch.save writes a zip archive
        return "a zip archive cut short or damaged" if head == b"PK\x03\x04" else "not the zip archive torch.save writes"
    text = " ".join(str(error).split())
    if "WeightsUnpickler error:" in text:  # the part after torch's advice
        text = text.split("WeightsUnpickler error:", 1)[1].split(" Check the documentation", 1)[0].strip()
        if text.startswith("Unsupported global"):
            return _clip(f"it holds objects other than tensors and plain data: {text}")
        return _clip(f"its data is damaged: {text}")
    return _clip(f"{type(error).__name__}: {text}" if text else type(error).__name__)


def _clip(text: str, limit: int = 160) -> str:
    text = text.split(". ")[0].rstrip(".")
    return text if len(text) <= limit else text[:limit - 3] + "..."
