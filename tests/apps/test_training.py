"""The shared training loop: a run cut after an epoch and resumed ends with the same weights as
one that ran through; a state from other settings is refused; the smoke-test limit holds."""
from __future__ import annotations

import pytest
import torch

from apps.common import training
from apps.common.training import ResumeError, TrainRun, fit, seed_everything

X = torch.randn(64, 5, generator=torch.Generator().manual_seed(0))
Y = X @ torch.arange(5.0)


def _train(run: TrainRun, stop_after: int | None = None) -> torch.nn.Module:
    seed_everything(0)
    model = torch.nn.Linear(5, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1, gamma=0.5)
    epochs_seen = []

    def batches(epoch: int) -> list[torch.Tensor]:
        if stop_after is not None and epoch == stop_after:
            raise KeyboardInterrupt  # the run dies before this epoch's first batch
        epochs_seen.append(epoch)
        order = torch.randperm(len(X))  # consumes the torch RNG: resume must restore it
        return [order[i:i + 16] for i in range(0, len(X), 16)]

    fit(run, model, optimizer, lambda m, idx: ((m(X[idx]).squeeze(1) - Y[idx]) ** 2).mean(), batches,
        scheduler=scheduler)
    return model


@pytest.fixture(autouse=True)
def _state_root(tmp_path, monkeypatch):
    monkeypatch.setattr(training, "STATE_ROOT", tmp_path)


def test_resumed_run_equals_uninterrupted_run(tmp_path):
    straight = _train(TrainRun("straight", 4))
    run = TrainRun("cut", 4)
    with pytest.raises(KeyboardInterrupt):
        _train(run, stop_after=2)
    assert run.state_path.exists()
    resumed = _train(run)
    for a, b in zip(straight.parameters(), resumed.parameters()):
        assert torch.equal(a, b)


def test_state_of_other_settings_is_refused():
    run = TrainRun("mixed", 2, {"lr": 0.05})
    with pytest.raises(KeyboardInterrupt):
        _train(run, stop_after=1)
    with pytest.raises(ResumeError, match="--restart"):
        _train(TrainRun("mixed", 2, {"lr": 0.1}))


def test_max_batches_stops_early_and_saves_no_state():
    run = TrainRun("smoke", 3, max_batches=2)
    model = _train(run)
    assert not run.state_path.exists()
    assert model.weight.shape == (1, 5)
