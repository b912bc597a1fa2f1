"""Trains a person-detection model: µYOLO (boxes) or MobileNetV1-0.25 visual wake words (label).

    python -m apps.person_detect.train --model yolo|vww [--epochs N] [--count N] [--threads 1]
        [--images DIR --annotations instances.json] [--out PATH] [--restart]
        [--init CHECKPOINT --lr LR --first-epoch E]   (a fine-tuning stage)

Without --images/--annotations the data are rendered scenes (apps/person_detect/data.py). µYOLO
sees fresh scenes every epoch (`count` of them, seed 1000 · seed + epoch, rendered by one helper
process while the previous epoch trains): with a fixed set of 8,000 scenes its 250 K-weight linear
head memorised them (training-set mAP@0.5 0.46, held-out 0.13). VWW's fixed set (and the
validation and test sets) are made once per (count, seed, size) and cached as .npy under
build/data/person_detect/. Training examples are flipped left-right at random. The validation set (its own seed) is scored after
training and written to the checkpoint's meta; the held-out test set (a third seed, never seen in
training) is what apps/person_detect/model.py's accuracy_figures reports. An interrupted run
resumes from its last finished epoch (apps/common/training.py).
"""
from __future__ import annotations

import multiprocessing
import sys
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path

import numpy as np
import torch

from apps.common.checkpoint import read_checkpoint
from apps.common.training import TrainRun, finish, fit, save_checkpoint, seed_everything, training_arguments
from apps.person_detect import data, detect
from apps.person_detect.model import BUILDERS, MODELS, checkpoint_path
from ember_build.paths import BUILD_ROOT

CACHE = BUILD_ROOT / "data" / "person_detect"
# per model: image size, training scenes (per epoch when fresh) and seed, validation scenes and
# seed, epochs, learning rate, batch size; fresh: new rendered scenes every epoch
SETTINGS = {
    "yolo": {"size": data.YOLO_SIZE, "count": 8000, "seed": 1, "validation": 500, "validation_seed": 2,
             "epochs": 20, "lr": 2e-3, "batch_size": 32, "fresh": True},
    "vww": {"size": data.VWW_SIZE, "count": 8000, "seed": 11, "validation": 500, "validation_seed": 12,
            "epochs": 12, "lr": 2e-3, "batch_size": 32, "fresh": False},
}
FRESH_SEED = 1000  # epoch e of a fresh run renders seed FRESH_SEED · seed + e (far from 1-13, 40, 50)
TEST_SEED = {"yolo": 3, "vww": 13}  # held out: accuracy_figures only


def cached(count: int, seed: int, size: int) -> data.Detections:
    """data.synthetic(count, seed, size), rendered once and kept as .npy files under CACHE."""
    stem = CACHE / f"synthetic-{count}-{seed}-{size}"
    names = [Path(f"{stem}-{part}.npy") for part in ("images", "boxes", "labels")]
    if all(p.exists() for p in names):
        images, packed, labels = (np.load(p) for p in names)
        boxes = [packed[packed[:, 0] == i, 1:].astype(np.float32) for i in range(count)]
        return data.Detections(images, boxes, labels)
    scenes = data.synthetic(count, seed, size)
    CACHE.mkdir(parents=True, exist_ok=True)
    packed = np.concatenate([np.concatenate([np.full((len(b), 1), i, np.float32), b], 1)
                             for i, b in enumerate(scenes.boxes)] + [np.zeros((0, 5), np.float32)])
    for path, array in zip(names, (scenes.images, packed, scenes.labels)):
        np.save(path.with_suffix(".tmp.npy"), array)
        path.with_suffix(".tmp.npy").replace(path)
    return scenes


def images_tensor(images: np.ndarray) -> torch.Tensor:
    """uint8 [N, S, S, 3] → float [N, 3, S, S] in 0..1 (what the models take)."""
    return torch.from_numpy(np.ascontiguousarray(images)).permute(0, 3, 1, 2).float() / 255.0


def load(model_name: str, count: int, seed: int, images: Path | None = None,
         annotations: Path | None = None) -> data.Detections:
    size = SETTINGS[model_name]["size"]
    if images is not None or annotations is not None:
        return data.dataset(count, seed, size, annotations=annotations, images=images)
    return cached(count, seed, size)


class FreshScenes:
    """Rendered scenes of one epoch, a function of (count, seed, size, epoch) only (so a resumed
    run sees the same ones); the next epoch's are rendered by one helper process meanwhile."""

    def __init__(self, count: int, seed: int, size: int, epochs: int, prefetch: bool = True,
                 first_epoch: int = 0) -> None:
        self.count, self.size, self.epochs = count, size, epochs
        self.seed = FRESH_SEED * seed + first_epoch  # a fine-tuning stage continues the numbering
        self.pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) if prefetch else None
        self.pending: dict[int, Future] = {}

    def _render(self, epoch: int) -> Future | data.Detections:
        if self.pool is None:
            return data.synthetic(self.count, self.seed + epoch, self.size)
        return self.pool.submit(data.synthetic, self.count, self.seed + epoch, self.size)

    def epoch(self, epoch: int) -> data.Detections:
        scenes = self.pending.pop(epoch, None) or self._render(epoch)
        if epoch + 1 < self.epochs:
            self.pending[epoch + 1] = self._render(epoch + 1)
        return scenes.result() if isinstance(scenes, Future) else scenes

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)


def _flip(x: torch.Tensor, boxes: list[np.ndarray], which: torch.Tensor) -> tuple[torch.Tensor, list[np.ndarray]]:
    x = torch.where(which[:, None, None, None], x.flip(3), x)
    flipped = [np.stack([1 - b[:, 2], b[:, 1], 1 - b[:, 0], b[:, 3]], 1) if f else b
               for b, f in zip(boxes, which.tolist())]
    return x, flipped


def evaluate(model_name: str, model: torch.nn.Module, scenes: data.Detections, batch: int = 100) -> dict[str, float]:
    """Float figures on `scenes`: mAP@0.5 (yolo) or accuracy (vww)."""
    model.eval()
    outputs = []
    with torch.no_grad():
        for i in range(0, len(scenes.images), batch):
            outputs.append(model(images_tensor(scenes.images[i:i + batch])).numpy())
    out = np.concatenate(outputs)
    if model_name == "vww":
        return {"accuracy": float((out.argmax(1) == scenes.labels).mean())}
    found = [detect.decode_float(o, detect.MAP_SCORE_THRESHOLD) for o in out]
    return {"mAP@0.5": detect.average_precision(found, scenes.boxes)}


def train(model_name: str, epochs: int, out: Path, count: int | None = None, seed: int = 0,
          max_batches: int | None = None, resume: bool = True, images: Path | None = None,
          annotations: Path | None = None, validation_count: int | None = None, init: Path | None = None,
          lr: float | None = None, first_epoch: int = 0) -> dict:
    """Trains `model_name` for `epochs` and writes `out`. `init`: start from that checkpoint's
    weights (a fine-tuning stage, e.g. with a smaller `lr`); `first_epoch`: fresh scenes continue
    from that epoch's seed, so the stage sees scenes the earlier one did not."""
    settings = dict(SETTINGS[model_name])
    settings["lr"] = lr or settings["lr"]
    settings["init"], settings["first_epoch"] = (str(init) if init else None), first_epoch
    settings["count"] = count or settings["count"]
    settings["validation"] = validation_count or settings["validation"]
    source = "coco" if images is not None else "synthetic"
    fresh = settings["fresh"] and source == "synthetic"
    settings["fresh"] = fresh
    seed_everything(seed)
    validation = load(model_name, settings["validation"], settings["validation_seed"])
    fixed = None if fresh else load(model_name, settings["count"], settings["seed"], images, annotations)
    renderer = FreshScenes(settings["count"], settings["seed"], settings["size"], epochs,
                           prefetch=max_batches is None, first_epoch=first_epoch) if fresh else None
    model = BUILDERS[MODELS[model_name]]()
    stages = []
    if init is not None:
        start = read_checkpoint(init)  # CheckpointError: missing or corrupt, named
        start.load_into(model)
        stages = [*start.meta.get("stages", []), {k: v for k, v in start.meta.items() if k != "stages"}]
    optimizer = torch.optim.Adam(model.parameters(), lr=settings["lr"])
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, epochs)
    run = TrainRun(f"person_detect-{model_name}", epochs, {**settings, "seed_training": seed, "data": source},
                   max_batches)
    size = settings["batch_size"]

    def batches(epoch: int) -> list[tuple[np.ndarray, list[np.ndarray], np.ndarray]]:
        scenes = renderer.epoch(epoch) if renderer is not None else fixed
        order = torch.randperm(len(scenes.images)).numpy()
        return [(scenes.images[i], [scenes.boxes[j] for j in i], scenes.labels[i])
                for i in (order[k:k + size] for k in range(0, len(order), size))]

    def loss(m: torch.nn.Module, batch: tuple[np.ndarray, list[np.ndarray], np.ndarray]) -> torch.Tensor:
        pictures, boxes, labels = batch
        x, boxes = _flip(images_tensor(pictures), boxes, torch.rand(len(pictures)) < 0.5)
        if model_name == "vww":
            return torch.nn.functional.nll_loss(torch.log(m(x).clamp_min(1e-7)), torch.from_numpy(labels))
        return detect.yolo_loss(m(x), detect.encode_targets(boxes))

    try:
        fit(run, model, optimizer, loss, batches, scheduler=scheduler, resume=resume,
            evaluate=lambda m: evaluate(model_name, m, validation))
    finally:
        if renderer is not None:
            renderer.close()
    figures = evaluate(model_name, model, validation)
    meta = {"model": model_name, "architecture": MODELS[model_name], "epochs": epochs, "data": source,
            "train_count": settings["count"], "train_seed": settings["seed"], "fresh_scenes_per_epoch": fresh,
            "lr": settings["lr"], "first_epoch": first_epoch, "stages": stages,
            "validation_count": settings["validation"], "validation_seed": settings["validation_seed"],
            **{f"validation_{k}": v for k, v in figures.items()}}
    save_checkpoint(out, model, meta)
    finish(run)
    print(f"wrote {out}: {meta}", file=sys.stderr)
    return meta


def main() -> None:
    parser = training_arguments(__doc__, 0, Path("apps/person_detect/<model>.pt"))
    parser.add_argument("--model", choices=sorted(MODELS), default="yolo")
    parser.add_argument("--count", type=int, default=None, help="training scenes (per epoch when fresh; default per model)")
    parser.add_argument("--images", type=Path, default=None, help="COCO image folder (with --annotations)")
    parser.add_argument("--annotations", type=Path, default=None, help="COCO instances_*.json (with --images)")
    parser.add_argument("--init", type=Path, default=None, help="start from this checkpoint's weights (fine-tuning)")
    parser.add_argument("--lr", type=float, default=None, help="Adam learning rate (default per model)")
    parser.add_argument("--first-epoch", type=int, default=0,
                        help="fresh scenes start at this epoch's seed (a fine-tuning stage: the earlier stage's epochs)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    epochs = args.epochs or SETTINGS[args.model]["epochs"]
    out = args.out if args.out != Path("apps/person_detect/<model>.pt") else checkpoint_path(args.model)
    train(args.model, epochs, out, count=args.count, seed=args.seed, max_batches=args.max_batches,
          resume=not args.restart, images=args.images, annotations=args.annotations, init=args.init, lr=args.lr,
          first_epoch=args.first_epoch)


if __name__ == "__main__":
    main()
