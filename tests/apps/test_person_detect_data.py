"""apps/person_detect/data.py: rendered scenes (determinism, shapes, boxes tight around the drawn
figures, the VWW label) and the COCO loader on a tiny fake dataset, with its named errors."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from apps.common.datasets import DatasetError
from apps.person_detect import data

WHITE = {part: np.ones(3) for part in ("skin", "hair", "shirt", "trousers", "shoes")}
BLACK = np.zeros(3)
SHADE = 0.85  # the far arm and leg are drawn this much darker


@pytest.mark.parametrize("size", [data.YOLO_SIZE, data.VWW_SIZE])
def test_synthetic_deterministic_and_shaped(size):
    a, b = data.synthetic(16, seed=2, size=size), data.synthetic(16, seed=2, size=size)
    assert np.array_equal(a.images, b.images) and np.array_equal(a.labels, b.labels)
    assert all(np.array_equal(x, y) for x, y in zip(a.boxes, b.boxes))
    assert a.images.shape == (16, size, size, 3) and a.images.dtype == np.uint8
    assert a.labels.dtype == np.int64 and set(a.labels) <= {0, 1}
    assert not np.array_equal(a.images, data.synthetic(16, seed=3, size=size).images)
    for boxes, label in zip(a.boxes, a.labels):
        assert boxes.dtype == np.float32 and boxes.shape[1:] == (4,)
        assert np.all(boxes >= 0) and np.all(boxes <= 1)
        assert np.all(boxes[:, 0] < boxes[:, 2]) and np.all(boxes[:, 1] < boxes[:, 3])
        assert label == 0 or len(boxes)  # a person present has a box


def test_vww_label_follows_the_visible_area():
    rng = np.random.default_rng(0)
    labels = []
    for _ in range(24):
        scene = data.render_scene(rng, 96)
        assert len(scene.areas) == len(scene.boxes)
        assert data.vww_label(scene.areas) == int(any(scene.areas >= 0.005))
        boxes = scene.boxes
        assert np.all(scene.areas <= (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]) + 1e-6)
        labels.append(data.vww_label(scene.areas))
    assert 0.2 < np.mean(labels) < 0.8  # both classes, neither rare
    assert data.vww_label(np.array([0.0049])) == 0 and data.vww_label(np.array([0.001, 0.005])) == 1


def _check_tight(scene: data.Scene, size: int, people: int) -> None:
    """White figures on black: pixels brighter than half are the figure's (more than half covered)
    pixels, and no box may miss one or reach past them (the shaded far limbs allow a margin). A
    figure with too few pixels in view has no box: at most that many pixels are outside every box."""
    brightness = scene.image.astype(float).mean(2) / 255.0
    surely = brightness > 0.5 + 1.5 / 255      # covered more than half, in any shade
    maybe = brightness > SHADE * 0.5 - 1.5 / 255  # could be covered more than half, if shaded
    inside = np.zeros((size, size), dtype=bool)
    for box in scene.boxes:
        x0, y0, x1, y1 = np.rint(box * size).astype(int)
        assert np.allclose(box * size, [x0, y0, x1, y1])  # boxes lie on pixel edges
        inside[y0:y1, x0:x1] = True
        for edge in (maybe[y0:y1, x0], maybe[y0:y1, x1 - 1], maybe[y0, x0:x1], maybe[y1 - 1, x0:x1]):
            assert edge.any(), "a box edge with no figure pixel on it: not tight"
    unboxed = people - len(scene.boxes)
    assert (surely & ~inside).sum() <= unboxed * (data.MIN_VISIBLE_PIXELS - 1), "figure pixels outside every box"


@pytest.mark.parametrize("seed", range(16))
def test_one_figure_box_is_tight(seed):
    size = 64
    scene = data.render_scene(np.random.default_rng(seed), size, people=1, objects=0, plain=BLACK, palette=WHITE)
    _check_tight(scene, size, 1)
    if len(scene.boxes):
        brightness = scene.image.astype(float).mean(2) / 255.0
        covered = (brightness > 0.5 + 1.5 / 255).sum(), (brightness > SHADE * 0.5 - 1.5 / 255).sum()
        assert covered[0] <= scene.areas[0] * size * size <= covered[1]
    else:  # no box: too little of the figure is in the frame
        assert (scene.image.mean(2) / 255.0 > 0.5 + 1.5 / 255).sum() < data.MIN_VISIBLE_PIXELS


def test_figures_leaving_the_frame_and_overlapping_keep_tight_boxes():
    rng = np.random.default_rng(11)
    cut = 0
    for _ in range(12):
        scene = data.render_scene(rng, 48, people=3, objects=0, plain=BLACK, palette=WHITE)
        _check_tight(scene, 48, 3)
        cut += int(np.any((scene.boxes == 0) | (scene.boxes == 1)))
    assert cut > 0  # some figure was cut by the frame edge


def test_figure_poses_stand_on_their_feet():
    for pose in data._POSES:
        layer = data.Layer(96)
        data.draw_person(layer, np.random.default_rng(1), np.array([48.0, 90.0]), 60.0, WHITE, pose)
        rows = np.flatnonzero((layer.alpha > 0.5).any(1))
        assert 84 <= rows[-1] <= 92, pose  # the lowest pixels at the feet (small tilts allowed)
        assert rows[0] < 70, pose          # and a body above them


# --- COCO on a fake dataset ---

def _fake_coco(root: Path) -> tuple[Path, Path]:
    images = root / "val2017"
    images.mkdir(parents=True)
    Image.fromarray(np.full((30, 40, 3), (200, 30, 30), np.uint8)).save(images / "000000000001.png")
    Image.fromarray(np.full((20, 20, 3), (30, 200, 30), np.uint8)).save(images / "000000000002.jpg", quality=95)
    Image.fromarray(np.full((10, 10, 3), 128, np.uint8)).convert("L").save(images / "000000000003.png")
    document = {
        "images": [{"id": 1, "file_name": "000000000001.png", "width": 40, "height": 30},
                   {"id": 2, "file_name": "000000000002.jpg", "width": 20, "height": 20},
                   {"id": 3, "file_name": "000000000003.png", "width": 10, "height": 10}],
        "categories": [{"id": 1, "name": "person", "supercategory": "person"}, {"id": 18, "name": "dog"}],
        "annotations": [
            {"id": 10, "image_id": 1, "category_id": 1, "bbox": [4, 3, 20, 15], "area": 250.0, "iscrowd": 0},
            {"id": 11, "image_id": 1, "category_id": 18, "bbox": [0, 0, 40, 30], "area": 1200.0, "iscrowd": 0},
            {"id": 12, "image_id": 2, "category_id": 1, "bbox": [0, 0, 2, 1], "area": 1.5, "iscrowd": 0},
            {"id": 13, "image_id": 3, "category_id": 1, "bbox": [0, 0, 10, 10], "area": 60.0, "iscrowd": 1},
        ],
    }
    annotations = root / "annotations" / "instances_val2017.json"
    annotations.parent.mkdir()
    annotations.write_text(json.dumps(document))
    return annotations, images


def test_coco_person_boxes_labels_and_pixels(tmp_path):
    annotations, images = _fake_coco(tmp_path)
    coco = data.load_coco(annotations, images, size=32)
    assert coco.images.shape == (3, 32, 32, 3) and coco.images.dtype == np.uint8
    np.testing.assert_allclose(coco.boxes[0], [[0.1, 0.1, 0.6, 0.6]])  # person only; the dog is left out
    np.testing.assert_allclose(coco.boxes[1], [[0.0, 0.0, 0.1, 0.05]])
    assert coco.boxes[2].shape == (0, 4)  # a crowd annotation gives no box
    assert coco.labels.tolist() == [1, 0, 1]  # 250/1200 ≥ 0.5 %, 1.5/400 < 0.5 %, the crowd counts (as in VWW)
    assert np.abs(coco.images[0].astype(int) - [200, 30, 30]).max() <= 2
    assert np.abs(coco.images[1].astype(int) - [30, 200, 30]).max() <= 8  # JPEG
    assert np.all(coco.images[2] == 128)  # grey converted to RGB
    first = data.dataset(1, 0, size=16, annotations=annotations, images=images)
    assert first.images.shape == (1, 16, 16, 3) and first.labels.tolist() == [1]


@pytest.mark.parametrize("breakage,message", [
    ("no_annotations", "instances_val2017.json is missing"),
    ("no_images", "does not exist"),
    ("not_json", "is not a COCO instances file"),
    ("no_categories", "is not a COCO instances file"),
    ("no_person", "0 categories named 'person'"),
    ("bad_bbox", "annotation 10 is malformed"),
    ("missing_image", "000000000002.jpg is missing"),
    ("corrupt_image", "is not a readable image"),
    ("one_path", "give both"),
])
def test_coco_named_errors(tmp_path, breakage, message):
    annotations, images = _fake_coco(tmp_path)
    document = json.loads(annotations.read_text())
    if breakage == "no_annotations":
        annotations.unlink()
    elif breakage == "no_images":
        images = tmp_path / "train2017"
    elif breakage == "not_json":
        annotations.write_text("{ this is not json")
    elif breakage == "no_categories":
        del document["categories"]
        annotations.write_text(json.dumps(document))
    elif breakage == "no_person":
        document["categories"] = [{"id": 18, "name": "dog"}]
        annotations.write_text(json.dumps(document))
    elif breakage == "bad_bbox":
        document["annotations"][0]["bbox"] = [1, 2]
        annotations.write_text(json.dumps(document))
    elif breakage == "missing_image":
        (images / "000000000002.jpg").unlink()
    elif breakage == "corrupt_image":
        (images / "000000000001.png").write_bytes(b"\x89PNG but not really")
    with pytest.raises(data.CocoError, match=message) as caught:
        if breakage == "one_path":
            data.dataset(4, 0, annotations=annotations)
        else:
            data.load_coco(annotations, images, size=16)
    assert isinstance(caught.value, DatasetError) and "instances_*.json" in str(caught.value)
