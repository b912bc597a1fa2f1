"""Trains the streaming wake word DS-CNN on log-mel windows of espeak-ng speech over noise.

    python -m apps.wakeword.train [--epochs N] [--out PATH] [--restart] [--train-windows N] [--threads N]

Features are the device's own (compiler.audio_features.LOG_MEL_WAKEWORD, bit-exact with the front
end op), computed once per split and cached under build/data/wakeword/features/. Training windows
come from the training voices, validation and test from voices it never heard (apps/wakeword/data.py).
Adam with a cosine learning rate, cross entropy with the non-wake classes weighted up
(CLASS_WEIGHTS: a false accept costs more than a miss); the checkpoint's meta records the float
validation and test accuracy, the epochs and the data. An interrupted run resumes from its last
finished epoch (apps/common/training.py).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch
from torch.nn import functional

from apps.common.training import TrainRun, finish, fit, save_checkpoint, seed_everything, training_arguments
from apps.wakeword import data
from apps.wakeword.model import CHECKPOINT, WakeWordDsCnn

EPOCHS = 30
TRAIN_WINDOWS, VALIDATION_WINDOWS, TEST_WINDOWS = 8000, 1000, 1000
TRAIN_SEED, VALIDATION_SEED, TEST_SEED = 1, 2, 3
# a false accept wakes the product for nothing, often: "unknown" and "silence" windows taken for
# "marvin" cost more than the reverse (a missed word is said again)
CLASS_WEIGHTS = (1.0, 1.5, 1.5)


def load_split(split: str, count: int) -> data.Features:
    seed = {"train": TRAIN_SEED, "validation": VALIDATION_SEED, "test": TEST_SEED}[split]
    return data.split_features(split, count, seed)


def accuracy(model: WakeWordDsCnn, features: np.ndarray, labels: np.ndarray, batch: int = 500) -> float:
    """Share of windows whose highest-scoring class is the label (float model)."""
    model.eval()
    with torch.no_grad():
        predicted = np.concatenate([model.logits(torch.from_numpy(features[i:i + batch])).argmax(1).numpy()
                                    for i in range(0, len(features), batch)])
    return float((predicted == labels).mean()) if len(labels) else 0.0


def train(epochs: int, out: Path, train_windows: int = TRAIN_WINDOWS, batch_size: int = 100, seed: int = 0,
          max_batches: int | None = None, resume: bool = True, lr: float = 2e-3,
          validation_windows: int = VALIDATION_WINDOWS, test_windows: int = TEST_WINDOWS) -> dict:
    """Trains, writes the checkpoint to `out`, returns its meta."""
    seed_everything(seed)
    train_set = load_split("train", train_windows)
    validation = load_split("validation", validation_windows)
    x, y = torch.from_numpy(train_set.features), torch.from_numpy(train_set.labels)
    model = WakeWordDsCnn()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, epochs)
    weights = torch.tensor(CLASS_WEIGHTS)
    run = TrainRun("wakeword", epochs, {"batch_size": batch_size, "seed": seed, "lr": lr,
                                        "train_windows": train_windows}, max_batches)

    def batches(epoch: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
        order = torch.randperm(len(x))
        return [(x[order[i:i + batch_size]], y[order[i:i + batch_size]]) for i in range(0, len(x), batch_size)]

    def loss(m: WakeWordDsCnn, batch: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
        return functional.cross_entropy(m.logits(batch[0]), batch[1], weight=weights)

    def evaluate(m: WakeWordDsCnn) -> dict[str, float]:
        return {"validation_accuracy": accuracy(m, validation.features, validation.labels)}

    fit(run, model, optimizer, loss, batches, scheduler=scheduler, evaluate=evaluate if max_batches is None else None,
        resume=resume)
    test = load_split("test", test_windows)
    meta = {"validation_accuracy": accuracy(model, validation.features, validation.labels),
            "test_accuracy": accuracy(model, test.features, test.labels),
            "epochs": epochs, "dataset": f"synthetic ({data.espeak_version()}), validation and test spoken by "
                                         "held-out voices",
            "windows": {"train": len(train_set.labels), "validation": len(validation.labels),
                        "test": len(test.labels)},
            "batch_size": batch_size, "lr": lr, "seed": seed, "class_weights": list(CLASS_WEIGHTS),
            "labels": list(data.LABELS)}
    save_checkpoint(out, model, meta)
    finish(run)
    print(f"wrote {out}: validation accuracy {meta['validation_accuracy']:.4f}, "
          f"test accuracy {meta['test_accuracy']:.4f}", file=sys.stderr)
    return meta


def main() -> None:
    parser = training_arguments(__doc__, EPOCHS, CHECKPOINT)
    parser.add_argument("--train-windows", type=int, default=TRAIN_WINDOWS, help="synthetic training windows")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    train(args.epochs, args.out, args.train_windows, seed=args.seed, max_batches=args.max_batches,
          resume=not args.restart)


if __name__ == "__main__":
    main()
