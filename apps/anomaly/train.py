"""Trains the anomaly autoencoder on normal machine sounds (seconds on a CPU, synthetic).

    python -m apps.anomaly.train [--data MACHINE_DIR] [--epochs N] [--out PATH] [--restart]

Features are the device's own log-mel features (compiler.audio_features.log_mel, bit-exact with
the front end op), cached under build/data/anomaly/. `--data`: one machine's folder in the DCASE
2020 task 2 layout (ToyADMOS / MIMII; apps/anomaly/data.py): training on train/normal_*,
validation on test/normal_* against test/anomaly_*. Writes the checkpoint with its metadata: the
anomaly threshold (the 99th percentile of the validation scores of normal windows) and the
validation AUC against anomalous windows. An interrupted run resumes from its last finished
epoch (apps/common/training.py).
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
          resume: bool = True, root: Path | None = None, train_clips: int = TRAIN_CLIPS,
          validation_clips: int = VALIDATION_CLIPS) -> dict:
    seed_everything(seed)
    if root is None:
        x = torch.from_numpy(data.dataset(train_clips, anomalous=False, seed=TRAIN_SEED))
        validation_normal = data.dataset(validation_clips, anomalous=False, seed=VALIDATION_SEED)
        validation_anomalous = data.dataset(validation_clips, anomalous=True, seed=ANOMALY_SEED)
    else:
        x = torch.from_numpy(data.load_machine(root, "train", anomalous=False))
        validation_normal = data.load_machine(root, "test", anomalous=False)
        validation_anomalous = data.load_machine(root, "test", anomalous=True)
    model = AnomalyAutoencoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    run = TrainRun("anomaly", epochs, {"batch_size": batch_size, "seed": seed, "clips": train_clips,
                                       "data": str(root)}, max_batches)

    def batches(epoch: int) -> list[torch.Tensor]:
        order = torch.randperm(len(x))
        return [x[order[i:i + batch_size]] for i in range(0, len(x), batch_size)]

    fit(run, model, optimizer, lambda m, batch: anomaly_score(batch, m(batch)).mean(), batches, resume=resume)
    normal, anomalous = scores(model, validation_normal), scores(model, validation_anomalous)
    meta = {"threshold": float(np.percentile(normal, 99)), "validation_auc": auc(normal, anomalous),
            "epochs": epochs, "features": "compiler.audio_features.log_mel (the device's front end)",
            "dataset": f"DCASE 2020 task 2 layout ({root})" if root is not None else
            f"synthetic machine sounds: {train_clips} normal clips, validation {validation_clips} normal + "
            f"{validation_clips} anomalous"}
    save_checkpoint(out, model, meta)
    finish(run)
    print(f"wrote {out}: threshold {meta['threshold']:.3f}, validation AUC {meta['validation_auc']:.3f}",
          file=sys.stderr)
    return meta


def main() -> None:
    parser = training_arguments(__doc__, EPOCHS, CHECKPOINT)
    parser.add_argument("--data", type=Path, default=None,
                        help="one machine's folder in the DCASE 2020 task 2 layout (default: synthetic sounds)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    train(args.epochs, args.out, seed=args.seed, max_batches=args.max_batches, resume=not args.restart,
          root=args.data)


if __name__ == "__main__":
    main()
