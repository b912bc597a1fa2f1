"""µYOLO's output, defined once: training targets and loss, float decoding, the integer decoder the
device runs (this module is its Python twin: apps/person_detect/firmware/yolo/detect.c does the
same integer steps, from tables this module generates), and mAP@0.5.

Output layout (apps/person_detect/model.py MicroYolo): [N, 245] = 7 × 7 cells, row-major, each
(objectness logit / 8, x, y, √w, √h); x, y the box centre inside the cell, √w, √h the square roots
of the box's width and height as shares of the image.

Integer decoding (exact, no float on the device), from the int8 output and its quantization
(scale s, zero point z), with Q = 4096 (coordinates in 1/4096 of the image side):
- a cell is a candidate when its objectness byte q ≥ `score_floor(s, z, p)`, the smallest byte
  whose probability sigmoid(8·s·(q − z)) reaches p;
- POSITION[q] = round(Q · clamp(s·(q − z), 0, 1)), SIZE[q] = round(Q · clamp(s·(q − z), 0, 1)²):
  two 256-entry tables made here (float64) and embedded in the firmware;
- cx = (col·Q + POSITION[qx]) // 7, cy likewise, w = SIZE[qw], h = SIZE[qh];
  x0 = cx − w // 2, x1 = x0 + w (y likewise), each clamped to 0..Q;
- candidates sorted by objectness byte, highest first, ties by cell index; greedy non-maximum
  suppression keeps a box unless inter · 100 > IOU_PERCENT · union with a kept box (integers);
  at most MAX_BOXES boxes.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import torch
import torch.nn.functional as F

from apps.person_detect.model import CELL_VALUES, GRID, OBJECTNESS_GAIN

Q = 4096
MAX_BOXES = 10
IOU_PERCENT = 50          # NMS: suppress a box overlapping a kept one by IoU > 0.5
SCORE_THRESHOLD = 0.5     # the device reports cells with objectness probability ≥ 0.5
MAP_SCORE_THRESHOLD = 0.05  # mAP is computed over the whole precision-recall curve: a low floor
COORDINATE_WEIGHT = 5.0   # YOLOv1's λ_coord


# --- training ---

def encode_targets(boxes: list[np.ndarray]) -> torch.Tensor:
    """[N, 7, 7, 5] targets: objectness 0/1, x, y in the cell, √w, √h of the box whose centre falls
    in the cell (the largest one when several do)."""
    target = np.zeros((len(boxes), GRID, GRID, CELL_VALUES), np.float32)
    for n, image_boxes in enumerate(boxes):
        areas = (image_boxes[:, 2] - image_boxes[:, 0]) * (image_boxes[:, 3] - image_boxes[:, 1])
        for x0, y0, x1, y1 in image_boxes[np.argsort(areas, kind="stable")]:  # larger ones overwrite
            cx, cy = (x0 + x1) / 2 * GRID, (y0 + y1) / 2 * GRID
            col, row = min(int(cx), GRID - 1), min(int(cy), GRID - 1)
            target[n, row, col] = (1.0, cx - col, cy - row, math.sqrt(max(x1 - x0, 0)), math.sqrt(max(y1 - y0, 0)))
    return torch.from_numpy(target)


def yolo_loss(output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Objectness BCE over every cell + λ_coord · squared error of the box of responsible cells,
    both summed over cells and averaged over the batch."""
    cells = output.reshape(-1, GRID, GRID, CELL_VALUES)
    objectness = target[..., 0]
    bce = F.binary_cross_entropy_with_logits(OBJECTNESS_GAIN * cells[..., 0], objectness, reduction="sum")
    box = (((cells[..., 1:] - target[..., 1:]) ** 2).sum(-1) * objectness).sum()
    return (bce + COORDINATE_WEIGHT * box) / output.shape[0]


# --- float decoding (the trained float model's figures) ---

def decode_float(output: np.ndarray, score_threshold: float = SCORE_THRESHOLD,
                 max_boxes: int = MAX_BOXES) -> tuple[np.ndarray, np.ndarray]:
    """(scores [K], boxes [K, 4] in 0..1) of one [245] float output, after NMS at IOU_PERCENT."""
    cells = np.asarray(output, np.float64).reshape(GRID * GRID, CELL_VALUES)
    scores = 1 / (1 + np.exp(-OBJECTNESS_GAIN * cells[:, 0]))
    index = np.arange(GRID * GRID)
    cx, cy = (index % GRID + np.clip(cells[:, 1], 0, 1)) / GRID, (index // GRID + np.clip(cells[:, 2], 0, 1)) / GRID
    w, h = np.clip(cells[:, 3], 0, 1) ** 2, np.clip(cells[:, 4], 0, 1) ** 2
    boxes = np.clip(np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], 1), 0, 1)
    order = [i for i in np.argsort(-scores, kind="stable") if scores[i] >= score_threshold]
    kept: list[int] = []
    for i in order:
        if all(iou(boxes[i], boxes[k]) <= IOU_PERCENT / 100 for k in kept):
            kept.append(i)
            if len(kept) == max_boxes:
                break
    return scores[kept], boxes[kept].reshape(-1, 4)


def iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two (x0, y0, x1, y1) boxes; 0 when both are empty."""
    inter = max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return float(inter / union) if union > 0 else 0.0


# --- integer decoding: the device's twin ---

class DecodeTables(NamedTuple):
    score_floor: int          # smallest objectness byte that is a detection
    position: tuple[int, ...]  # 256 entries, indexed by byte + 128: Q · clamp(v, 0, 1)
    size: tuple[int, ...]      # 256 entries: Q · clamp(v, 0, 1)²


class IntBox(NamedTuple):
    score: int  # objectness byte
    cell: int   # row · 7 + col
    x0: int     # 0..Q
    y0: int
    x1: int
    y1: int


def score_floor(scale: float, zero_point: int, probability: float) -> int:
    """Smallest int8 q with sigmoid(8 · scale · (q − zero_point)) ≥ probability (128 if none)."""
    for q in range(-128, 128):
        if 1 / (1 + math.exp(-OBJECTNESS_GAIN * scale * (q - zero_point))) >= probability:
            return q
    return 128


def decode_tables(scale: float, zero_point: int, probability: float = SCORE_THRESHOLD) -> DecodeTables:
    values = [min(max(float(scale) * (q - int(zero_point)), 0.0), 1.0) for q in range(-128, 128)]
    return DecodeTables(score_floor(float(scale), int(zero_point), probability),
                        tuple(int(round(Q * v)) for v in values), tuple(int(round(Q * v * v)) for v in values))


def _clamp(v: int) -> int:
    return min(max(v, 0), Q)


def overlaps(a: IntBox, b: IntBox, iou_percent: int = IOU_PERCENT) -> bool:
    """inter · 100 > iou_percent · union, in integers (the device's NMS test)."""
    inter = max(0, min(a.x1, b.x1) - max(a.x0, b.x0)) * max(0, min(a.y1, b.y1) - max(a.y0, b.y0))
    union = (a.x1 - a.x0) * (a.y1 - a.y0) + (b.x1 - b.x0) * (b.y1 - b.y0) - inter
    return inter * 100 > iou_percent * union


def nms(candidates: list[IntBox], max_boxes: int = MAX_BOXES, iou_percent: int = IOU_PERCENT) -> list[IntBox]:
    """Greedy NMS: by score (highest first), ties by cell; keeps at most `max_boxes`."""
    kept: list[IntBox] = []
    for box in sorted(candidates, key=lambda b: (-b.score, b.cell)):
        if len(kept) == max_boxes:
            break
        if not any(overlaps(box, k, iou_percent) for k in kept):
            kept.append(box)
    return kept


def decode_int8(output: np.ndarray, tables: DecodeTables, max_boxes: int = MAX_BOXES) -> list[IntBox]:
    """The device's boxes for one int8 [245] output."""
    q = np.asarray(output, np.int8).reshape(-1).astype(int)
    if q.size != GRID * GRID * CELL_VALUES:
        raise ValueError(f"µYOLO output has {GRID * GRID * CELL_VALUES} values, got {q.size}")
    candidates = []
    for cell in range(GRID * GRID):
        obj, qx, qy, qw, qh = q[cell * CELL_VALUES:(cell + 1) * CELL_VALUES]
        if obj < tables.score_floor:
            continue
        cx = ((cell % GRID) * Q + tables.position[qx + 128]) // GRID
        cy = ((cell // GRID) * Q + tables.position[qy + 128]) // GRID
        w, h = tables.size[qw + 128], tables.size[qh + 128]
        x0, y0 = cx - w // 2, cy - h // 2
        candidates.append(IntBox(int(obj), cell, _clamp(x0), _clamp(y0), _clamp(x0 + w), _clamp(y0 + h)))
    return nms(candidates, max_boxes)


def boxes_line(index: int, boxes: list[IntBox]) -> str:
    """The console line the device prints for vector `index` (firmware/yolo/responder.c)."""
    return f"EM boxes {index} n={len(boxes)}" + "".join(
        f" {b.score}@{b.cell}:{b.x0},{b.y0},{b.x1},{b.y1}" for b in boxes)


def tables_header_c(tables: DecodeTables) -> str:
    """C definitions of the decode tables (em_app_generated.h of a µYOLO build)."""
    def table(name: str, values: tuple[int, ...]) -> str:
        rows = ",\n    ".join(", ".join(str(v) for v in values[i:i + 16]) for i in range(0, 256, 16))
        return f"static const uint16_t {name}[256] = {{\n    {rows}\n}};\n"

    return ("/* Generated by apps/person_detect/detect.py from the program's output quantization. Do not edit. */\n"
            "#ifndef EM_APP_GENERATED_H\n#define EM_APP_GENERATED_H\n#include <stdint.h>\n"
            f"#define PD_Q {Q}\n#define PD_GRID {GRID}\n#define PD_CELL_VALUES {CELL_VALUES}\n"
            f"#define PD_MAX_BOXES {MAX_BOXES}\n#define PD_IOU_PERCENT {IOU_PERCENT}\n"
            f"#define PD_SCORE_FLOOR ({tables.score_floor})\n"
            "/* indexed by the output byte + 128 */\n"
            + table("pd_position", tables.position) + table("pd_size", tables.size) + "#endif\n")


# --- mAP@0.5 ---

def average_precision(detections: list[tuple[np.ndarray, np.ndarray]], truths: list[np.ndarray],
                      threshold: float = 0.5) -> float:
    """Single-class AP at IoU ≥ `threshold` (= mAP@0.5 for one class), VOC 2010+ style.

    `detections[i]` = (scores [K], boxes [K, 4]) of image i, `truths[i]` its boxes [M, 4]. All
    detections are ranked by score (ties: image order, then their order); each is a true positive
    when its best-overlapping not yet matched truth of its image reaches `threshold`; AP is the area
    under the precision-recall curve with precision made monotone (all-point interpolation).
    Images without truths count only their false positives; no truth at all gives AP 0.
    """
    total = sum(len(t) for t in truths)
    ranked = [(float(s), i, k) for i, (scores, _) in enumerate(detections) for k, s in enumerate(scores)]
    ranked.sort(key=lambda r: -r[0])  # stable: ties keep image order
    matched = [np.zeros(len(t), bool) for t in truths]
    hits = []
    for _, i, k in ranked:
        box, best, best_j = detections[i][1][k], threshold, -1
        for j, truth in enumerate(truths[i]):
            overlap = iou(box, truth)
            if not matched[i][j] and overlap >= best:
                best, best_j = overlap, j
        if best_j >= 0:
            matched[i][best_j] = True
        hits.append(best_j >= 0)
    if total == 0:
        return 0.0
    tp = np.cumsum(hits)
    recall = np.concatenate([[0.0], tp / total])
    precision = np.concatenate([[1.0], tp / np.arange(1, len(hits) + 1)])
    for i in range(len(precision) - 2, -1, -1):
        precision[i] = max(precision[i], precision[i + 1])
    return float(np.sum((recall[1:] - recall[:-1]) * precision[1:]))


def int_boxes_as_detections(boxes: list[IntBox], tables: DecodeTables) -> tuple[np.ndarray, np.ndarray]:
    """(scores, boxes in 0..1) of the integer decoder's boxes, for average_precision."""
    return (np.array([b.score for b in boxes], np.float64),
            np.array([[b.x0, b.y0, b.x1, b.y1] for b in boxes], np.float64).reshape(-1, 4) / Q)
