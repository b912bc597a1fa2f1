"""The training loop every app's train.py shares: a progress bar, resumable runs, atomic checkpoints.

An app supplies its model, a loss over one batch, and the batches of an epoch; `fit` does the
rest. After every epoch the whole run state (model, optimizer, scheduler, epoch, RNG states)
goes to `state_path`; a run interrupted at any point restarts from the last finished epoch with
`resume=True` (the default of `training_arguments`). The committed checkpoint is written once,
at the end, by `save_checkpoint`: a crash never leaves a half-written file behind.

The run state holds tensors and plain data only (the RNG states as lists and tensors, the
metrics as floats), so it is read back with torch.load(weights_only=True), which runs no code
from the file. A state that cannot be read (damaged, or saved by an older Ember with numpy
arrays in it) or does not fit the run is a ResumeError naming the file and --restart.
"""
from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm
from ember_build.paths import BUILD_ROOT, shown_path

from apps.common.checkpoint import load_failure

STATE_ROOT = BUILD_ROOT / "train"


class ResumeError(RuntimeError):
    """A saved run state cannot resume this run: it belongs to another (model or settings), or
    it cannot be read; the message names the file and --restart."""


@dataclass
class TrainRun:
    """What one training run is: its identity decides whether a saved state may resume it."""

    app: str
    epochs: int
    settings: dict[str, Any] = field(default_factory=dict)  # batch size, learning rate, data …
    max_batches: int | None = None  # stop after this many batches in all (the suite's smoke test)

    @property
    def state_path(self) -> Path:
        return STATE_ROOT / self.app / "state.pt"


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def _rng_state() -> dict:
    """The RNG states in types torch.load(weights_only=True) reads: tuples, lists, ints, tensors
    (numpy's key array as a list)."""
    numpy_state = np.random.get_state(legacy=False)
    numpy_state["state"]["key"] = numpy_state["state"]["key"].tolist()
    return {"python": random.getstate(), "numpy": numpy_state, "torch": torch.get_rng_state()}


def _set_rng_state(state: dict) -> None:
    random.setstate(state["python"])
    numpy_state = dict(state["numpy"], state=dict(state["numpy"]["state"]))
    numpy_state["state"]["key"] = np.asarray(numpy_state["state"]["key"], dtype=np.uint32)
    np.random.set_state(numpy_state)
    torch.set_rng_state(state["torch"])


def _cannot_resume(state_path: Path, why: str) -> ResumeError:
    return ResumeError(f"{shown_path(state_path)}: cannot resume from this run state ({why}); delete it or pass --restart "
                       "to start afresh")


def _load_state(state_path: Path, identity: dict) -> dict:
    """The run state at `state_path`, checked to be one of this run (ResumeError if not)."""
    try:
        state = torch.load(state_path, map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises many types for a damaged file: all mean the same here
        raise _cannot_resume(state_path, f"damaged, or saved by an older Ember: {load_failure(state_path, error)}") from None
    if not isinstance(state, dict) or not {"identity", "epoch", "model", "optimizer", "rng"} <= state.keys():
        raise _cannot_resume(state_path, "it is not a run state of apps/common/training.py")
    if state["identity"] != identity:
        raise _cannot_resume(state_path, f"saved by a run with other settings: {state['identity']}")
    return state


def save_atomically(obj: Any, path: Path) -> None:
    """torch.save through a temporary file and a rename: `path` is whole or untouched."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    torch.save(obj, tmp)
    tmp.replace(path)


def save_checkpoint(path: Path, model: torch.nn.Module, meta: dict) -> None:
    """The app's committed checkpoint: {"model": state_dict, "meta": …} (what load_trained reads)."""
    save_atomically({"model": model.state_dict(), "meta": meta}, path)


def fit(
    run: TrainRun,
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    loss_fn: Callable[[torch.nn.Module, Any], torch.Tensor],
    epoch_batches: Callable[[int], Iterable[Any]],
    *,
    scheduler: torch.optim.lr_scheduler.LRScheduler | None = None,
    evaluate: Callable[[torch.nn.Module], dict[str, float]] | None = None,
    resume: bool = True,
) -> dict[str, float]:
    """Trains `model` for `run.epochs` epochs; returns the last evaluation (or the last loss).

    `epoch_batches(epoch)` yields the batches of one epoch (its length, if it has one, sizes the
    progress bar); `loss_fn(model, batch)` returns a scalar loss; `scheduler` steps once per
    epoch; `evaluate(model)` runs after every epoch with the model in eval mode.
    """
    start_epoch, metrics = 0, {}
    state_path = run.state_path
    identity = {"epochs": run.epochs, "settings": run.settings}
    if resume and state_path.exists() and run.max_batches is None:
        state = _load_state(state_path, identity)
        try:
            model.load_state_dict(state["model"])
            optimizer.load_state_dict(state["optimizer"])
            if scheduler is not None and state.get("scheduler") is not None:
                scheduler.load_state_dict(state["scheduler"])
            _set_rng_state(state["rng"])
        except (RuntimeError, KeyError, TypeError, ValueError) as error:
            raise _cannot_resume(state_path, f"it does not fit this model: {' '.join(str(error).split())[:160]}") from error
        start_epoch, metrics = state["epoch"], state.get("metrics", {})
        print(f"{run.app}: resuming after epoch {start_epoch}/{run.epochs} from {state_path}", file=sys.stderr)
    steps = 0
    for epoch in range(start_epoch, run.epochs):
        model.train()
        batches = epoch_batches(epoch)
        total = count = 0.0
        bar = tqdm(batches, desc=f"{run.app} epoch {epoch + 1}/{run.epochs}", unit="batch",
                   total=len(batches) if hasattr(batches, "__len__") else None, file=sys.stderr,
                   dynamic_ncols=True, leave=False)
        for batch in bar:
            loss = loss_fn(model, batch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total, count, steps = total + loss.item(), count + 1, steps + 1
            bar.set_postfix(loss=f"{total / count:.4f}")
            if run.max_batches is not None and steps >= run.max_batches:
                break
        bar.close()
        if scheduler is not None:
            scheduler.step()
        metrics = {"loss": total / max(count, 1)}
        if evaluate is not None:
            model.eval()
            with torch.no_grad():
                metrics.update({k: float(v) for k, v in evaluate(model).items()})  # no numpy scalars in the state
        print(f"{run.app} epoch {epoch + 1}/{run.epochs}: "
              + "  ".join(f"{k} {v:.4f}" for k, v in metrics.items()), file=sys.stderr)
        if run.max_batches is not None and steps >= run.max_batches:
            break
        save_atomically({"identity": identity, "epoch": epoch + 1, "model": model.state_dict(),
                         "optimizer": optimizer.state_dict(),
                         "scheduler": scheduler.state_dict() if scheduler is not None else None,
                         "rng": _rng_state(), "metrics": metrics}, state_path)
    model.eval()
    return metrics


def finish(run: TrainRun) -> None:
    """Drops the run state once its checkpoint is written: the next train=1 starts afresh."""
    run.state_path.unlink(missing_ok=True)


def training_arguments(description: str, epochs: int, checkpoint: Path) -> argparse.ArgumentParser:
    """The options every app's train.py takes (apps add their own, e.g. --data)."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--epochs", type=int, default=epochs, help=f"epochs (default {epochs})")
    parser.add_argument("--out", type=Path, default=checkpoint, help="checkpoint to write (default: the committed one)")
    parser.add_argument("--restart", action="store_true", help="ignore a saved run state and start afresh")
    parser.add_argument("--max-batches", type=int, default=None, help="stop after this many batches (smoke tests)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's)")
    return parser
