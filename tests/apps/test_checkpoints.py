"""Checkpoints that cannot be used: every app's load_trained (apps/common/checkpoint.py) turns a
missing, truncated, random or foreign checkpoint into CheckpointError, one line naming the file
and the command that trains a new one (and the git command that restores a committed one),
never torch's advice to load it with weights_only=False; SCons prints it as one line. The
training run state (apps/common/training.py) is read with weights_only=True: a damaged or old
one is a ResumeError naming the file and --restart."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from apps.anomaly import model as anomaly
from apps.common import training
from apps.common.checkpoint import CheckpointError, read_checkpoint
from apps.common.training import ResumeError, TrainRun, fit, seed_everything
from apps.image_classification import model as image_classification
from apps.kws import model as kws
from apps.person_detect import model as person_detect
from apps.wakeword import model as wakeword

REPO = Path(__file__).resolve().parents[2]
SCONS = Path(sys.executable).with_name("scons")

# app: (its load_trained of a path, its committed checkpoint, the command that trains a new one)
APPS = {
    "anomaly": (anomaly.load_trained, anomaly.CHECKPOINT, "./scons app=anomaly train=1"),
    "kws": (kws.load_trained, kws.CHECKPOINT, "./scons app=kws train=1"),
    "image_classification": (image_classification.load_trained, image_classification.CHECKPOINT,
                             "./scons app=image_classification train=1"),
    "person_detect": (lambda path: person_detect.load_trained("vww", path), person_detect.checkpoint_path("vww"),
                      "./scons app=person_detect model=vww train=1"),
    "wakeword": (wakeword.load_trained, wakeword.CHECKPOINT, "./scons app=wakeword train=1"),
}


def _damaged(kind: str, committed: Path) -> bytes:
    data = committed.read_bytes()
    return {"truncated": data[:len(data) // 2], "random bytes": np.random.default_rng(0).bytes(5000),
            "empty": b"", "text": b"version https://git-lfs.github.com/spec/v1\n"}[kind]


def _assert_one_line_naming(error: CheckpointError, path: Path, *says: str) -> None:
    message = str(error)
    assert "\n" not in message and str(path) in message, message
    assert "weights_only" not in message, message  # not torch's unsafe advice
    for text in says:
        assert text in message, message


@pytest.mark.parametrize("app", APPS)
@pytest.mark.parametrize("kind,reason", [
    ("truncated", "a zip archive cut short or damaged"),
    ("random bytes", "not the zip archive torch.save writes"),
    ("empty", "the file is empty"),
    ("text", "not the zip archive torch.save writes"),  # a Git LFS pointer where the file should be
])
def test_a_corrupt_checkpoint_is_a_named_error(tmp_path, app, kind, reason):
    load, committed, retrain = APPS[app]
    path = tmp_path / committed.name
    path.write_bytes(_damaged(kind, committed))
    with pytest.raises(CheckpointError) as caught:
        load(path)
    _assert_one_line_naming(caught.value, path, "corrupt checkpoint", reason, f"`{retrain}` trains a new one")


@pytest.mark.parametrize("app", APPS)
def test_a_missing_checkpoint_is_the_same_error(tmp_path, app):
    load, committed, retrain = APPS[app]
    path = tmp_path / committed.name
    with pytest.raises(CheckpointError, match="^no checkpoint at ") as caught:
        load(path)
    _assert_one_line_naming(caught.value, path, f"`{retrain}` trains a new one")
    assert isinstance(caught.value, OSError)


def test_a_checkpoint_of_other_content_is_a_named_error(tmp_path):
    path = tmp_path / "checkpoint.pt"
    torch.save({"weights": np.zeros(3)}, path)  # numpy: refused by weights_only=True
    with pytest.raises(CheckpointError) as caught:
        anomaly.load_trained(path)
    _assert_one_line_naming(caught.value, path, "holds objects other than tensors and plain data")
    torch.save(torch.zeros(3), path)
    with pytest.raises(CheckpointError, match="not a checkpoint: it holds Tensor"):
        anomaly.load_trained(path)
    path.write_bytes(kws.CHECKPOINT.read_bytes())  # another app's
    with pytest.raises(CheckpointError) as caught:
        anomaly.load_trained(path)
    _assert_one_line_naming(caught.value, path, "its weights are not AnomalyAutoencoder's", "another model's checkpoint?")
    state = torch.load(anomaly.CHECKPOINT, weights_only=True)
    state["model"] = {k: v[..., :1] if v.dim() else v for k, v in state["model"].items()}
    torch.save(state, path)  # same tensors, other shapes
    with pytest.raises(CheckpointError) as caught:
        anomaly.load_trained(path)
    _assert_one_line_naming(caught.value, path, "its weights do not fit AnomalyAutoencoder (size mismatch for")


def test_a_committed_checkpoint_names_git_to_restore_it(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    repo.mkdir()
    path = repo / "checkpoint.pt"
    path.write_bytes(b"not a checkpoint")

    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=repo, check=True,
                       capture_output=True)

    git("init", "-q")
    git("add", "checkpoint.pt")
    git("commit", "-q", "-m", "a checkpoint")
    with pytest.raises(CheckpointError, match=f"`git -C {repo} checkout -- checkpoint.pt` restores the committed one"):
        read_checkpoint(path, "anomaly")
    monkeypatch.chdir(repo)  # where ./scons and git run: the path shown relative to it
    with pytest.raises(CheckpointError, match=r"^checkpoint.pt: corrupt checkpoint, .*: `./scons app=anomaly train=1` "
                                              r"trains a new one or `git checkout -- checkpoint.pt` restores"):
        read_checkpoint(path, "anomaly")
    with pytest.raises(CheckpointError, match=r"`git checkout -- checkpoint.pt` restores the committed one$"):
        read_checkpoint(path)  # no app (a fine-tuning start): no retraining named


def test_the_committed_checkpoints_still_load():
    for load, committed, _ in APPS.values():
        network, meta = load(committed)
        assert isinstance(meta, dict) and not network.training


SCONSTRUCT = '''
import sys
sys.path.insert(0, {repo!r})
from apps.anomaly.model import load_trained

def compile_model(target, source, env):
    load_trained(__import__("pathlib").Path({checkpoint!r}))

Command("program.embr", [], Action(compile_model, "compiling model of anomaly"))
'''


def test_scons_prints_a_checkpoint_error_as_one_line(tmp_path):
    """What the build's action (ember_app.py _compile_model → app_build.compile_app →
    load_trained) shows: SCons reports an OSError in one line, no traceback."""
    checkpoint = tmp_path / "apps/anomaly/checkpoint.pt"
    checkpoint.parent.mkdir(parents=True)
    checkpoint.write_bytes(anomaly.CHECKPOINT.read_bytes()[:1000])
    (tmp_path / "SConstruct").write_text(SCONSTRUCT.format(repo=str(REPO), checkpoint=str(checkpoint)))
    run = subprocess.run([str(SCONS), "-Q"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert run.returncode != 0
    errors = [line for line in run.stderr.splitlines() if line.startswith("scons: ***")]
    assert errors == ["scons: *** [program.embr] apps/anomaly/checkpoint.pt: corrupt checkpoint, torch.load cannot read it "
                      "(a zip archive cut short or damaged): `./scons app=anomaly train=1` trains a new one"], run.stderr
    assert "Traceback" not in run.stderr and "weights_only" not in run.stdout + run.stderr


# ---- the training run state ----

def _fit(run: TrainRun, resume: bool = True) -> torch.nn.Module:
    seed_everything(0)
    model = torch.nn.Linear(3, 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    x = torch.randn(8, 3)
    fit(run, model, optimizer, lambda m, batch: (m(batch) ** 2).mean(), lambda epoch: [x[torch.randperm(8)]],
        scheduler=torch.optim.lr_scheduler.StepLR(optimizer, 1), resume=resume,
        evaluate=lambda m: {"score": np.float64(0.5)})  # a numpy scalar: stored as a float
    return model


@pytest.fixture()
def state_root(tmp_path, monkeypatch):
    monkeypatch.setattr(training, "STATE_ROOT", tmp_path)
    return tmp_path


def test_the_run_state_is_read_with_weights_only(state_root, monkeypatch):
    run = TrainRun("app", 1)
    _fit(run)
    assert run.state_path.exists()
    state = torch.load(run.state_path, weights_only=True)  # plain data and tensors only
    assert state["metrics"]["score"] == 0.5 and type(state["metrics"]["score"]) is float
    loads = []
    real_load = torch.load
    monkeypatch.setattr(torch, "load", lambda *a, **k: loads.append(k.get("weights_only")) or real_load(*a, **k))
    _fit(TrainRun("app", 1))  # resumes: nothing left to train
    assert loads == [True]


@pytest.mark.parametrize("kind,says", [
    ("truncated", "damaged, or saved by an older Ember: a zip archive cut short or damaged"),
    ("random bytes", "damaged, or saved by an older Ember: not the zip archive torch.save writes"),
    ("old numpy state", "damaged, or saved by an older Ember: it holds objects other than tensors and plain data: "
                        "Unsupported global: GLOBAL numpy"),
    ("checkpoint", "it is not a run state of apps/common/training.py"),
])
def test_a_run_state_that_cannot_be_read_names_the_file_and_restart(state_root, kind, says):
    run = TrainRun("app", 2)
    _fit(TrainRun("app", 1))  # a state to damage (of another identity: refused before any use)
    data = run.state_path.read_bytes()
    if kind == "truncated":
        run.state_path.write_bytes(data[:len(data) // 2])
    elif kind == "random bytes":
        run.state_path.write_bytes(np.random.default_rng(1).bytes(3000))
    elif kind == "old numpy state":  # how states were saved before: numpy's state tuple, an ndarray in it
        torch.save({"identity": {"epochs": 2, "settings": {}}, "rng": {"numpy": np.random.get_state()}}, run.state_path)
    else:
        run.state_path.write_bytes(anomaly.CHECKPOINT.read_bytes())
    with pytest.raises(ResumeError) as caught:
        _fit(run)
    message = str(caught.value)
    assert message.startswith(f"{run.state_path}: cannot resume from this run state (") and says in message, message
    assert message.endswith("delete it or pass --restart to start afresh") and "\n" not in message
    assert "weights_only" not in message
    _fit(run, resume=False)  # --restart
    assert torch.load(run.state_path, weights_only=True)["epoch"] == 2
