"""Trains the anomaly autoencoder on synthetic normal machine sounds (seconds on a CPU).

    python -m apps.anomaly.train [--epochs N] [--out PATH] [--restart]

Writes the checkpoint with its metadata: the anomaly threshold (the 99th percentile of the
validation scores of normal clips) and the validation AUC against anomalous clips. An
interrupted run resumes from its last finished epoch (apps/common/training.py).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch

from apps.anomaly import data
from apps.anomaly.model import CHECKPOINT, AnomalyAutoencoder, anomaly_score
from apps.common.training import TrainRun, finish, fit, save_checkpoint, seed_everything, training_arguments

TRAIN_CLIPS, VALIDATION_CLIPS = 200, 40
TRAIN_SEED, VALIDATION_SEED, ANOMALY_SEED = 1, 2, 3
EPOCHS = 30


def auc(normal: np.ndarray, anomalous: np.ndarray) -> float:
    """Probability that an anomalous score exceeds a normal one (ties count half)."""
    greater = (anomalous[:, None] > normal[None, :]).mean()
    ties = (anomalous[:, None] == normal[None, :]).mean()
    return float(greater + 0.5 * ties)


def scores(model: AnomalyAutoencoder, x: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        batch = torch.from_numpy(x)
        return anomaly_score(batch, model.eval()(batch)).numpy()


def train(epochs: int, out: Path, batch_size: int = 128, seed: int = 0, max_batches: int | None = None,
          resume: bool = True) -> dict:
    seed_everything(seed)
    x = torch.from_numpy(data.dataset(TRAIN_CLIPS, anomalous=False, seed=TRAIN_SEED))
    model = AnomalyAutoencoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    run = TrainRun("anomaly", epochs, {"batch_size": batch_size, "seed": seed, "clips": TRAIN_CLIPS}, max_batches)

    def batches(epoch: int) -> list[torch.Tensor]:
        order = torch.randperm(len(x))
        return [x[order[i:i + batch_size]] for i in range(0, len(x), batch_size)]

    fit(run, model, optimizer, lambda m, batch: anomaly_score(batch, m(batch)).mean(), batches, resume=resume)
    normal = scores(model, data.dataset(VALIDATION_CLIPS, anomalous=False, seed=VALIDATION_SEED))
    anomalous = scores(model, data.dataset(VALIDATION_CLIPS, anomalous=True, seed=ANOMALY_SEED))
    meta = {"threshold": float(np.percentile(normal, 99)), "validation_auc": auc(normal, anomalous),
            "epochs": epochs}
    save_checkpoint(out, model, meta)
    finish(run)
    print(f"wrote {out}: threshold {meta['threshold']:.3f}, validation AUC {meta['validation_auc']:.3f}",
          file=sys.stderr)
    return meta


def main() -> None:
    args = training_arguments(__doc__, EPOCHS, CHECKPOINT).parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    train(args.epochs, args.out, seed=args.seed, max_batches=args.max_batches, resume=not args.restart)


if __name__ == "__main__":
    main()
