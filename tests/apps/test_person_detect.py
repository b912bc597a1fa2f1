"""The person-detection app: mAP@0.5 on hand-made boxes, µYOLO's integer decoder / NMS (the Python
twin on edge cases, and the device's C code compiled for the host against the twin), one-batch
training smoke tests of both models, and the app on corstone300 (µYOLO and VWW: two QEMU runs)."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from apps.person_detect import detect
from apps.person_detect.detect import Q, IntBox, average_precision
from ember_build.paths import BUILD_ROOT

REPO = Path(__file__).resolve().parents[2]
SCONS = Path(sys.executable).with_name("scons")
CELLS = detect.GRID * detect.GRID


def _det(*rows: tuple[float, float, float, float, float]) -> tuple[np.ndarray, np.ndarray]:
    """(scores, boxes) from (score, x0, y0, x1, y1) rows."""
    a = np.array(rows, np.float64).reshape(-1, 5)
    return a[:, 0], a[:, 1:]


def _truth(*boxes: tuple[float, float, float, float]) -> np.ndarray:
    return np.array(boxes, np.float32).reshape(-1, 4)


# --- mAP@0.5 ---

def test_average_precision_perfect_and_empty():
    truths = [_truth((0, 0, .5, .5)), _truth((.2, .2, .4, .6), (.6, .6, .9, .9))]
    found = [_det((.9, 0, 0, .5, .5)), _det((.8, .2, .2, .4, .6), (.7, .6, .6, .9, .9))]
    assert average_precision(found, truths) == 1.0
    assert average_precision([_det(), _det()], truths) == 0.0        # nothing found
    assert average_precision([_det((.9, 0, 0, 1, 1))], [_truth()]) == 0.0  # no truth at all


def test_average_precision_hand_computed():
    # image 0: one truth; image 1: one truth. Ranked: TP (.9), FP (.8, IoU < .5), TP (.7), FP (.6, a duplicate)
    truths = [_truth((0, 0, .4, .4)), _truth((.5, .5, 1, 1))]
    found = [_det((.9, 0, 0, .4, .4), (.6, 0, 0, .4, .41)),   # the .6 duplicate: its truth is taken
             _det((.8, 0, 0, .2, .2), (.7, .5, .5, 1, .95))]   # .7: IoU .9 ≥ .5
    # precision/recall points: (1, .5), (.5, .5), (.667, 1), (.5, 1) → monotone precision 1 until
    # recall .5, then .667 until 1: AP = .5 · 1 + .5 · 2/3
    assert average_precision(found, truths) == pytest.approx(0.5 + 0.5 * 2 / 3)


def test_average_precision_iou_threshold_is_inclusive():
    truths = [_truth((0, 0, 1, .5))]
    assert average_precision([_det((.9, 0, 0, 1, 1))], truths) == 1.0    # IoU exactly .5 counts
    assert average_precision([_det((.9, 0, 0, 1, 1.01))], truths) == 0.0  # just below does not


# --- the integer decoder (Python twin) on edge cases ---

TABLES = detect.decode_tables(1 / 100, -28)  # values (q + 28) / 100: 0..1 for q in -28..72


def _output(cells: dict[int, tuple[int, int, int, int, int]], fill: int = -128) -> np.ndarray:
    out = np.full(CELLS * detect.CELL_VALUES, fill, np.int8)
    for cell, values in cells.items():
        out[cell * 5:(cell + 1) * 5] = values
    return out


def test_tables_follow_the_quantization():
    assert TABLES.position[-28 + 128] == 0 and TABLES.position[72 + 128] == Q and TABLES.position[127 + 128] == Q
    assert TABLES.position[22 + 128] == Q // 2 and TABLES.size[22 + 128] == Q // 4  # v = .5: √w = .5 → w = .25
    assert TABLES.position[-128 + 128] == 0 and TABLES.size[-50 + 128] == 0        # clamped below
    # score floor: the first byte whose probability sigmoid(8 · (q + 28) / 100) reaches .5 is q = -28
    assert TABLES.score_floor == -28
    assert detect.decode_tables(1 / 100, -28, 0.9).score_floor == -28 + 28  # logit(.9)/8 = .2747 → q = 0


def test_twin_edge_cases():
    assert detect.decode_int8(_output({}), TABLES) == []                           # nothing above the floor
    floor = TABLES.score_floor
    one = detect.decode_int8(_output({24: (floor, 22, 22, 72, 72)}), TABLES)         # at the floor: kept
    # centre cell (3, 3) middle: cx = (3·Q + Q/2) // 7 = 2048; w = h = Q
    assert one == [IntBox(floor, 24, 0, 0, Q, Q)]
    assert detect.decode_int8(_output({24: (floor - 1, 22, 22, 72, 72)}), TABLES) == []
    # equal scores, the same box from two cells: the lower cell wins, the other is suppressed
    same = detect.decode_int8(_output({10: (50, 72, 72, 52, 52), 11: (50, -28, 72, 52, 52)}), TABLES)
    assert [b.cell for b in same] == [10]
    # many small far-apart boxes: capped at MAX_BOXES, best scores first, ties by cell
    many = {cell: (cell % 7, 22, 22, -18, -18) for cell in range(CELLS)}
    kept = detect.decode_int8(_output(many), TABLES)
    assert len(kept) == detect.MAX_BOXES
    assert [(b.score, b.cell) for b in kept] == sorted(((c % 7, c) for c in range(CELLS)), key=lambda t: (-t[0], t[1]))[:10]
    # a box at the image corner is clamped to the image
    corner = detect.decode_int8(_output({0: (0, -28, -28, 72, 72)}), TABLES)
    assert corner == [IntBox(0, 0, 0, 0, Q // 2, Q // 2)]


def test_overlaps_threshold_is_strict():
    a = IntBox(0, 0, 0, 0, 200, 100)
    half = IntBox(0, 1, 0, 0, 100, 100)   # IoU exactly 1/2: inter · 100 == 50 · union → not suppressed
    assert not detect.overlaps(a, half, 50) and detect.overlaps(a, half, 49)
    empty = IntBox(0, 2, 10, 10, 10, 10)  # zero area: union 0, never suppressed
    assert not detect.overlaps(empty, empty, 50)


# --- the device's C decoder against the twin ---

def _harness_cases() -> list[np.ndarray]:
    rng = np.random.default_rng(4)
    cases = [_output({}), _output({24: (TABLES.score_floor, 22, 22, 72, 72)}),
             _output({cell: (cell % 7, 22, 22, -18, -18) for cell in range(CELLS)}),
             _output({10: (50, 72, 72, 52, 52), 11: (50, -28, 72, 52, 52)}), np.full(245, 127, np.int8)]
    for _ in range(300):  # random outputs, objectness spread around the floor so NMS has work
        out = rng.integers(-128, 128, 245).astype(np.int8)
        out[0::5] = np.clip(rng.integers(-40, 20, CELLS), -128, 127)
        cases.append(out)
    return cases


def test_device_decoder_equals_the_twin(tmp_path):
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no host C compiler")
    (tmp_path / "em_app_generated.h").write_text(detect.tables_header_c(TABLES))
    firmware = REPO / "apps/person_detect/firmware/yolo"
    exe = tmp_path / "harness"
    subprocess.run([compiler, "-std=c11", "-O2", "-Wall", "-Werror", f"-I{tmp_path}", f"-I{firmware}",
                    str(firmware / "detect.c"), str(REPO / "tests/apps/person_detect_harness.c"), "-o", str(exe)],
                   check=True)
    cases = _harness_cases()
    pairs = [(IntBox(0, 0, 0, 0, 200, 100), IntBox(0, 1, 0, 0, 100, 100), p) for p in (49, 50, 51)]
    rng = np.random.default_rng(5)
    for _ in range(300):
        a, b = (np.sort(rng.integers(0, Q + 1, (2, 2)), axis=1) for _ in range(2))
        pairs.append((IntBox(0, 0, a[0, 0], a[1, 0], a[0, 1], a[1, 1]), IntBox(0, 1, b[0, 0], b[1, 0], b[0, 1], b[1, 1]),
                      int(rng.integers(0, 101))))
    text = "".join("d " + " ".join(map(str, c.tolist())) + "\n" for c in cases)
    text += "".join(f"o {p} " + " ".join(str(int(v)) for v in (*a, *b)) + "\n" for a, b, p in pairs)
    got = subprocess.run([str(exe)], input=text, capture_output=True, text=True, check=True).stdout.splitlines()
    expected = [detect.boxes_line(i, detect.decode_int8(c, TABLES)) for i, c in enumerate(cases)]
    expected += [str(int(detect.overlaps(a, b, p))) for a, b, p in pairs]
    assert got == expected
    assert sum(line.startswith("EM boxes") and "n=0" not in line for line in got) > 100  # boxes were found


# --- the build variable model= ---

def test_model_variants_of_app_yaml():
    from ember_build.app_build import AppError, load_app, model_module

    default, vww = load_app("person_detect"), load_app("person_detect", "vww")
    assert (default.variant, vww.variant) == ("yolo", "vww") and default.int8_io and vww.int8_io
    assert model_module(vww).model == "vww" and model_module(default).example_inputs()[0].shape == (1, 3, 128, 128)
    with pytest.raises(AppError, match="model= choices: yolo, yolo_w4, vww, cascade"):
        load_app("person_detect", "ssd")
    with pytest.raises(AppError, match="drop model="):
        load_app("anomaly", "yolo")
    assert load_app("anomaly").variant == ""


# --- training smoke tests ---

@pytest.mark.parametrize("model", ["yolo", "vww"])
def test_one_batch_of_training(tmp_path, monkeypatch, model):
    from apps.common import training
    from apps.person_detect import train

    monkeypatch.setattr(training, "STATE_ROOT", tmp_path / "state")
    monkeypatch.setattr(train, "CACHE", tmp_path / "data")
    out = tmp_path / f"{model}.pt"
    meta = train.train(model, 1, out, count=8, max_batches=1, validation_count=8)
    assert out.exists() and meta["model"] == model and meta["train_count"] == 8
    settings = train.SETTINGS[model]
    # µYOLO renders fresh training scenes every epoch (nothing cached); VWW caches its fixed set
    assert meta["fresh_scenes_per_epoch"] is (model == "yolo")
    cached = tmp_path / "data" / f"synthetic-8-{settings['seed']}-{settings['size']}-images.npy"
    assert cached.exists() is (model == "vww")
    assert (tmp_path / "data" / f"synthetic-8-{settings['validation_seed']}-{settings['size']}-images.npy").exists()
    key = "validation_mAP@0.5" if model == "yolo" else "validation_accuracy"
    assert 0.0 <= meta[key] <= 1.0
    # a fine-tuning stage starts from that checkpoint and records it
    tuned = train.train(model, 1, tmp_path / "tuned.pt", count=8, max_batches=1, validation_count=8,
                        init=out, lr=1e-4, first_epoch=1)
    assert tuned["lr"] == 1e-4 and tuned["first_epoch"] == 1 and tuned["stages"] == [{k: v for k, v in meta.items() if k != "stages"}]



def test_fresh_scenes_are_a_function_of_the_epoch():
    """A resumed run must see the same scenes: epoch e's are synthetic(count, 1000 · seed + e),
    the same whether rendered by the helper process (prefetched) or in place, and new each epoch."""
    from apps.person_detect import data, train

    inline = train.FreshScenes(3, 1, data.YOLO_SIZE, 2, prefetch=False)
    prefetched = train.FreshScenes(3, 1, data.YOLO_SIZE, 2, prefetch=True)
    try:
        for epoch in range(2):
            a, b = inline.epoch(epoch), prefetched.epoch(epoch)
            assert np.array_equal(a.images, b.images)
            assert all(np.array_equal(x, y) for x, y in zip(a.boxes, b.boxes))
            assert np.array_equal(a.images, data.synthetic(3, train.FRESH_SEED + epoch).images)
        assert not np.array_equal(inline.epoch(0).images, inline.epoch(1).images)
        assert not np.array_equal(inline.epoch(0).images, data.synthetic(3, train.SETTINGS["yolo"]["validation_seed"]).images)
    finally:
        inline.close()
        prefetched.close()

# --- the app on corstone300 ---

@pytest.mark.qemu
@pytest.mark.parametrize("model", ["yolo", "vww"])
def test_app_matches_on_corstone300(model):
    run = subprocess.run([str(SCONS), "app=person_detect", f"model={model}", "board=corstone300", "run=1"],
                         cwd=REPO, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    report = json.loads((BUILD_ROOT / "corstone300" / f"person_detect-{model}" / "report.json").read_text())
    assert report["match"] is True and report["mismatched_vectors"] == [] and report["missing_lines"] == []
    assert report["variant"] == model and report["vectors"] == 4
    assert report["instructions_per_inference"] > 0
    lines = [line for line in run.stdout.splitlines() if line.startswith("EM boxes" if model == "yolo" else "EM label")]
    assert len(lines) == 4
