"""Trains the anomaly autoencoder on synthetic normal machine sounds (seconds on a CPU).

    python -m apps.anomaly.train [--epochs N] [--out PATH]

Writes the checkpoint with its metadata: the anomaly threshold (the 99th percentile of the
validation scores of normal clips) and the validation AUC against anomalous clips.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import torch

from apps.anomaly import data
from apps.anomaly.model import CHECKPOINT, AnomalyAutoencoder, anomaly_score

TRAIN_CLIPS, VALIDATION_CLIPS = 200, 40
TRAIN_SEED, VALIDATION_SEED, ANOMALY_SEED = 1, 2, 3


def auc(normal: np.ndarray, anomalous: np.ndarray) -> float:
    """Probability that an anomalous score exceeds a normal one (ties count half)."""
    greater = (anomalous[:, None] > normal[None, :]).mean()
    ties = (anomalous[:, None] == normal[None, :]).mean()
    return float(greater + 0.5 * ties)


def scores(model: AnomalyAutoencoder, x: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        batch = torch.from_numpy(x)
        return anomaly_score(batch, model.eval()(batch)).numpy()


def train(epochs: int, out: Path, batch_size: int = 128, seed: int = 0, max_batches: int | None = None) -> dict:
    torch.manual_seed(seed)
    x = torch.from_numpy(data.dataset(TRAIN_CLIPS, anomalous=False, seed=TRAIN_SEED))
    model = AnomalyAutoencoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    steps = 0
    for epoch in range(epochs):
        model.train()
        order = torch.randperm(len(x))
        total = 0.0
        for start in range(0, len(x), batch_size):
            batch = x[order[start:start + batch_size]]
            loss = anomaly_score(batch, model(batch)).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(batch)
            steps += 1
            if max_batches is not None and steps >= max_batches:
                break
        print(f"epoch {epoch + 1}/{epochs}  loss {total / len(x):.3f}", file=sys.stderr)
        if max_batches is not None and steps >= max_batches:
            break
    normal = scores(model, data.dataset(VALIDATION_CLIPS, anomalous=False, seed=VALIDATION_SEED))
    anomalous = scores(model, data.dataset(VALIDATION_CLIPS, anomalous=True, seed=ANOMALY_SEED))
    meta = {"threshold": float(np.percentile(normal, 99)), "validation_auc": auc(normal, anomalous),
            "epochs": epochs}
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    torch.save({"model": model.state_dict(), "meta": meta}, tmp)
    tmp.replace(out)
    print(f"wrote {out}: threshold {meta['threshold']:.3f}, validation AUC {meta['validation_auc']:.3f}",
          file=sys.stderr)
    return meta


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--out", type=Path, default=CHECKPOINT)
    args = parser.parse_args()
    train(args.epochs, args.out)


if __name__ == "__main__":
    main()
