"""Trains ResNet-8 on the ten synthetic classes, or on CIFAR-10 from a folder (`--data`).

    python -m apps.image_classification.train [--data CIFAR_FOLDER] [--epochs N] [--out PATH] [--restart]

Synthetic: TRAIN_IMAGES images (seed TRAIN_SEED), model selection on none, the accuracy reported
on a held-out test split drawn with another seed (TEST_SEED). CIFAR-10: data_batch_1…5 to train,
test_batch to test. Augmentation: a random 32 × 32 crop of the image zero-padded by 4 pixels,
and the flips each class allows (`FLIPS`). AdamW with a cosine learning rate; an interrupted run
resumes from its last finished epoch (apps/common/training.py). The checkpoint's meta records the
float test accuracy, epochs, dataset and class names.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from apps.common.datasets import DatasetError
from apps.common.training import TrainRun, finish, fit, save_checkpoint, seed_everything, training_arguments
from apps.image_classification import data
from apps.image_classification.model import CHECKPOINT, ResNet8, to_input

TRAIN_IMAGES, TEST_IMAGES = 8000, 1000
TRAIN_SEED, TEST_SEED = 1, 2
EPOCHS = 16
PAD = 4
# (horizontal, vertical) flips that keep a class itself. Every synthetic class is drawn at a
# random rotation (or is mirror-symmetric), so both flips keep it; a CIFAR-10 photograph stays
# itself mirrored left-right but not upside down.
FLIPS = {"synthetic": [(True, True)] * len(data.CLASSES), "cifar10": [(True, False)] * len(data.CIFAR10_CLASSES)}


def splits(root: Path | str | None, train_images: int = TRAIN_IMAGES, test_images: int = TEST_IMAGES,
           ) -> tuple[data.Images, data.Images, str, tuple[str, ...]]:
    """(train, test, dataset name, class names): all of CIFAR-10 at `root`, else that many synthetic images."""
    if root is not None:
        return data.load_cifar10(root, "train"), data.load_cifar10(root, "test"), "cifar10", data.CIFAR10_CLASSES
    return (data.synthetic(train_images, TRAIN_SEED), data.synthetic(test_images, TEST_SEED), "synthetic",
            data.CLASSES)


def augment(images: np.ndarray, labels: np.ndarray, flips: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Random crops of the zero-padded images, flipped where `flips[label]` = (h, v) allows."""
    n = len(images)
    padded = np.pad(images, ((0, 0), (PAD, PAD), (PAD, PAD), (0, 0)))
    dy, dx = rng.integers(0, 2 * PAD + 1, (2, n))
    rows = dy[:, None] + np.arange(data.SIZE)[None, :]
    cols = dx[:, None] + np.arange(data.SIZE)[None, :]
    out = padded[np.arange(n)[:, None, None], rows[:, :, None], cols[:, None, :]]
    allowed = flips[labels]
    horizontal = allowed[:, 0] & (rng.random(n) < 0.5)
    vertical = allowed[:, 1] & (rng.random(n) < 0.5)
    out[horizontal] = out[horizontal, :, ::-1]
    out[vertical] = out[vertical, ::-1]
    return out


def accuracy(model: ResNet8, split: data.Images, batch_size: int = 250) -> float:
    """Top-1 accuracy of the float model on `split`."""
    model.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, len(split.labels), batch_size):
            scores = model.logits(to_input(split.images[i:i + batch_size]))
            correct += int((scores.argmax(1).numpy() == split.labels[i:i + batch_size]).sum())
    return correct / max(len(split.labels), 1)


def train(epochs: int, out: Path, root: Path | None = None, batch_size: int = 64, lr: float = 2e-3,
          seed: int = 0, max_batches: int | None = None, resume: bool = True,
          train_images: int = TRAIN_IMAGES, test_images: int = TEST_IMAGES) -> dict:
    seed_everything(seed)
    train_split, test_split, dataset, classes = splits(root, train_images, test_images)
    flips = np.array(FLIPS[dataset], dtype=bool)
    model = ResNet8(classes=len(classes))
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    settings = {"batch_size": batch_size, "lr": lr, "seed": seed, "dataset": dataset,
                "data": str(root) if root else None, "train_images": len(train_split.labels)}
    run = TrainRun("image_classification", epochs, settings, max_batches)
    rng = np.random.default_rng(seed)

    def batches(epoch: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
        order = rng.permutation(len(train_split.labels))
        out = []
        for i in range(0, len(order), batch_size):
            pick = order[i:i + batch_size]
            images = augment(train_split.images[pick], train_split.labels[pick], flips, rng)
            out.append((to_input(images), torch.from_numpy(train_split.labels[pick])))
        return out

    def loss(m: ResNet8, batch: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
        return F.cross_entropy(m.logits(batch[0]), batch[1])

    fit(run, model, optimizer, loss, batches, scheduler=scheduler, resume=resume)
    meta = {"test_accuracy": accuracy(model, test_split), "epochs": epochs, "dataset": dataset,
            "data": str(root) if root else None, "train_images": len(train_split.labels),
            "test_images": len(test_split.labels), "test_seed": TEST_SEED if root is None else None,
            "classes": list(classes), "batch_size": batch_size, "lr": lr, "seed": seed,
            "max_batches": max_batches}
    save_checkpoint(out, model, meta)
    finish(run)
    print(f"wrote {out}: {dataset} test accuracy {meta['test_accuracy']:.4f} "
          f"({meta['test_images']} held-out images)", file=sys.stderr)
    return meta


def main() -> None:
    parser = training_arguments(__doc__, EPOCHS, CHECKPOINT)
    parser.add_argument("--data", type=Path, default=None,
                        help="the CIFAR-10 python batches folder (cifar-10-batches-py); synthetic images without it")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    try:
        train(args.epochs, args.out, root=args.data, seed=args.seed, max_batches=args.max_batches,
              resume=not args.restart)
    except DatasetError as error:
        parser.exit(2, f"error: --data: {error}\n")


if __name__ == "__main__":
    main()
