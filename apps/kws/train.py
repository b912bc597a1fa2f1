"""Trains the keyword-spotting DS-CNN on MFCCs of espeak-ng keywords or of Speech Commands v2.

    python -m apps.kws.train [--data SPEECH_COMMANDS_DIR] [--epochs N] [--out PATH] [--restart]
                             [--train-clips N] [--threads N]

Features are the device's own MFCCs (compiler.audio_features.mfcc, bit-exact with the front
end op), computed once per split and cached under build/data/kws/features/. Synthetic data:
`--train-clips` clips from the training voices, validation and test from voices the training
set never heard (apps/kws/data.py). Speech Commands: its three lists; the training split gets
the MLPerf Tiny background augmentation. Adam with a cosine learning rate; the checkpoint's
meta records the float validation and test accuracy, the epochs and the dataset. An
interrupted run resumes from its last finished epoch (apps/common/training.py).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch
from torch.nn import functional

from apps.common.training import TrainRun, finish, fit, save_checkpoint, seed_everything, training_arguments
from apps.kws import data
from apps.kws.model import CHECKPOINT, DsCnn

EPOCHS = 24
TRAIN_CLIPS, VALIDATION_CLIPS, TEST_CLIPS = 9600, 1200, 1200
TRAIN_SEED, VALIDATION_SEED, TEST_SEED, AUGMENT_SEED = 1, 2, 3, 4


def load_split(split: str, root: Path | None, count: int) -> data.Features:
    """The cached features of one split (synthetic unless `root` is a Speech Commands folder)."""
    seed = {"train": TRAIN_SEED, "validation": VALIDATION_SEED, "test": TEST_SEED}[split]
    return data.split_features(split, count, seed, root, augment_seed=AUGMENT_SEED if split == "train" else None)


def accuracy(model: DsCnn, features: np.ndarray, labels: np.ndarray, batch: int = 500) -> float:
    """Share of clips whose highest-scoring class is the label (float model)."""
    model.eval()
    with torch.no_grad():
        predicted = np.concatenate([model.logits(torch.from_numpy(features[i:i + batch, None])).argmax(1).numpy()
                                    for i in range(0, len(features), batch)])
    return float((predicted == labels).mean()) if len(labels) else 0.0


def dataset_name(root: Path | None) -> str:
    if root is not None:
        return f"Speech Commands v2 ({Path(root).expanduser()})"
    return f"synthetic ({data.espeak_version()}), validation and test spoken by held-out voices"


def train(epochs: int, out: Path, root: Path | None = None, train_clips: int = TRAIN_CLIPS, batch_size: int = 100,
          seed: int = 0, max_batches: int | None = None, resume: bool = True, lr: float = 2e-3,
          validation_clips: int = VALIDATION_CLIPS, test_clips: int = TEST_CLIPS) -> dict:
    """Trains, writes the checkpoint to `out`, returns its meta. The clip counts apply to the
    synthetic data only (Speech Commands splits are whole)."""
    seed_everything(seed)
    train_set = load_split("train", root, train_clips)
    validation = load_split("validation", root, validation_clips)
    x, y = torch.from_numpy(train_set.features[:, None]), torch.from_numpy(train_set.labels)
    model = DsCnn()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, epochs)
    run = TrainRun("kws", epochs, {"batch_size": batch_size, "seed": seed, "lr": lr, "train_clips": train_clips,
                                   "data": str(root)}, max_batches)

    def batches(epoch: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
        order = torch.randperm(len(x))
        return [(x[order[i:i + batch_size]], y[order[i:i + batch_size]]) for i in range(0, len(x), batch_size)]

    def loss(m: DsCnn, batch: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
        return functional.cross_entropy(m.logits(batch[0]), batch[1])

    def evaluate(m: DsCnn) -> dict[str, float]:
        return {"validation_accuracy": accuracy(m, validation.features, validation.labels)}

    fit(run, model, optimizer, loss, batches, scheduler=scheduler, evaluate=evaluate if max_batches is None else None,
        resume=resume)
    test = load_split("test", root, test_clips)
    meta = {"validation_accuracy": accuracy(model, validation.features, validation.labels),
            "test_accuracy": accuracy(model, test.features, test.labels),
            "epochs": epochs, "dataset": dataset_name(root),
            "clips": {"train": len(train_set.labels), "validation": len(validation.labels), "test": len(test.labels)},
            "batch_size": batch_size, "lr": lr, "seed": seed, "labels": list(data.LABELS)}
    save_checkpoint(out, model, meta)
    finish(run)
    print(f"wrote {out}: validation accuracy {meta['validation_accuracy']:.4f}, "
          f"test accuracy {meta['test_accuracy']:.4f}", file=sys.stderr)
    return meta


def main() -> None:
    parser = training_arguments(__doc__, EPOCHS, CHECKPOINT)
    parser.add_argument("--data", type=Path, default=None,
                        help="Speech Commands v2 folder (default: synthetic espeak-ng keywords)")
    parser.add_argument("--train-clips", type=int, default=TRAIN_CLIPS, help="synthetic training clips")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    train(args.epochs, args.out, args.data, args.train_clips, seed=args.seed, max_batches=args.max_batches,
          resume=not args.restart)


if __name__ == "__main__":
    main()
