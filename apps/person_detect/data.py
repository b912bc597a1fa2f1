"""Images for the person-detection app: rendered scenes with exact person boxes, or COCO.

Both sources give `Detections`: `images` uint8 [N, S, S, 3] (H × W × RGB; S = 128 for µYOLO,
96 for visual wake words), `boxes` a list of N float32 [K, 4] arrays of normalised person boxes
(x0, y0, x1, y1 in 0..1; the box covers pixel columns x0·S … x1·S − 1 and rows likewise), and
`labels` int64 [N], the visual-wake-words label: 1 when some person covers at least 0.5 % of the
image. That is how VWW is built from COCO (TensorFlow models' build_visualwakewords_data,
small_object_area_threshold = 0.005, compared with the annotation's area, the person's visible
pixels, not its box); the synthetic scenes count the visible pixels of each figure the same way.

Synthetic scenes, rendered with NumPy (anti-aliased signed-distance shapes, no other library):
a background (a room's wall and floor, sky over ground, a cloudy texture, or a gradient, with
tile lines, planks or wallpaper stripes), distractor objects (boxes, poles, balls, four-legged
animal-like blobs, tables on legs, trees) and 0–4 articulated people — head with hair, torso,
upper and lower arms and legs with joint angles from standing, walking, running, waving,
sitting and crouching poses, front or side views, a lean, sometimes lying — in random clothing
and skin colours and sizes from a few pixels to larger than the frame. Items are painted far to
near, objects are sometimes put in front of a person, and people leave the frame at its edges;
each person's box is the tight box of the pixels where the person is still more than half
visible (persons with fewer than `MIN_VISIBLE_PIXELS` such pixels get no box). Lighting comes
last: brightness, contrast, gamma, a colour cast, a light gradient, blur and sensor noise.
Everything is a function of the seed.

Real data: COCO-format annotations (`instances_*.json`: "images", "annotations" with "bbox"
[x, y, width, height] in pixels and "area", "categories" with one named "person") and the folder
of the images they name, never downloaded here; only the person category is used, images are
decoded with Pillow and resized (stretched) to S × S, so normalised boxes carry over unchanged.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import numpy as np

from apps.common.datasets import DatasetError, require_dir, require_file

VWW_AREA_THRESHOLD = 0.005
MIN_VISIBLE_PIXELS = 8
YOLO_SIZE, VWW_SIZE = 128, 96
_COCO_LAYOUT = ("COCO-format person annotations: an instances_*.json file (as in COCO's annotations_trainval "
                "archive: 'images' with id/file_name/width/height, 'annotations' with image_id/category_id/"
                "bbox [x, y, width, height]/area, 'categories' including one named 'person') and the folder "
                "holding the images it names (e.g. train2017/). Download and unpack COCO yourself and pass "
                "both paths; Ember never downloads data")


class CocoError(DatasetError):
    """The COCO annotations file or image folder is missing or malformed."""


class Detections(NamedTuple):
    images: np.ndarray        # uint8 [N, S, S, 3]
    boxes: list[np.ndarray]   # N × float32 [K, 4]: x0, y0, x1, y1 in 0..1
    labels: np.ndarray        # int64 [N]: 1 when a person covers ≥ 0.5 % of the image


class Scene(NamedTuple):
    image: np.ndarray  # uint8 [S, S, 3]
    boxes: np.ndarray  # float32 [K, 4]
    areas: np.ndarray  # float32 [K]: each box's person's visible pixels / image pixels


def vww_label(areas: np.ndarray) -> int:
    """1 when some person's area (a share of the image) reaches VWW's 0.5 %."""
    return int(bool(np.any(np.asarray(areas) >= VWW_AREA_THRESHOLD)))


# --- drawing: each primitive gives (rows, columns, coverage) over its own window of the canvas ---

class Patch(NamedTuple):
    rows: slice
    cols: slice
    alpha: np.ndarray  # float [h, w] in 0..1


def _window(size: int, x0: float, y0: float, x1: float, y1: float
            ) -> tuple[slice, slice, np.ndarray, np.ndarray] | None:
    c0, c1 = max(0, int(np.floor(x0)) - 1), min(size, int(np.ceil(x1)) + 2)
    r0, r1 = max(0, int(np.floor(y0)) - 1), min(size, int(np.ceil(y1)) + 2)
    if c0 >= c1 or r0 >= r1:
        return None
    x, y = np.meshgrid(np.arange(c0, c1) + 0.5, np.arange(r0, r1) + 0.5, indexing="xy")
    return slice(r0, r1), slice(c0, c1), x, y


def _coverage(distance: np.ndarray) -> np.ndarray:
    """Anti-aliased coverage of a pixel from the signed distance (pixels) of its centre to the edge."""
    return np.clip(0.5 - distance, 0.0, 1.0)


def capsule(size: int, a: np.ndarray, b: np.ndarray, radius: float) -> Patch | None:
    """A segment a→b thickened by `radius` (a limb)."""
    lo, hi = np.minimum(a, b) - radius, np.maximum(a, b) + radius
    window = _window(size, lo[0], lo[1], hi[0], hi[1])
    if window is None:
        return None
    rows, cols, x, y = window
    ab = b - a
    t = np.clip(((x - a[0]) * ab[0] + (y - a[1]) * ab[1]) / max(float(ab @ ab), 1e-9), 0.0, 1.0)
    distance = np.hypot(x - a[0] - t * ab[0], y - a[1] - t * ab[1]) - radius
    return Patch(rows, cols, _coverage(distance))


def ellipse(size: int, centre: np.ndarray, rx: float, ry: float, angle: float = 0.0) -> Patch | None:
    reach = max(rx, ry)
    window = _window(size, centre[0] - reach, centre[1] - reach, centre[0] + reach, centre[1] + reach)
    if window is None:
        return None
    rows, cols, x, y = window
    c, s = np.cos(angle), np.sin(angle)
    u, v = c * (x - centre[0]) + s * (y - centre[1]), -s * (x - centre[0]) + c * (y - centre[1])
    distance = (np.hypot(u / rx, v / ry) - 1.0) * min(rx, ry)  # exact for circles, close for ellipses
    return Patch(rows, cols, _coverage(distance))


def polygon(size: int, vertices: np.ndarray) -> Patch | None:
    """A convex polygon [K, 2] (either winding): the largest signed distance to its edge lines."""
    lo, hi = vertices.min(0), vertices.max(0)
    window = _window(size, lo[0], lo[1], hi[0], hi[1])
    if window is None:
        return None
    rows, cols, x, y = window
    centre = vertices.mean(0)
    distance = np.full(x.shape, -np.inf)
    for p, q in zip(vertices, np.roll(vertices, -1, axis=0)):
        edge = q - p
        normal = np.array([edge[1], -edge[0]]) / max(np.hypot(*edge), 1e-9)
        if normal @ (centre - p) > 0:
            normal = -normal  # outward
        distance = np.maximum(distance, (x - p[0]) * normal[0] + (y - p[1]) * normal[1])
    return Patch(rows, cols, _coverage(distance))


def rectangle(size: int, centre: np.ndarray, width: float, height: float, angle: float = 0.0) -> Patch | None:
    c, s = np.cos(angle), np.sin(angle)
    corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * [width / 2, height / 2]
    return polygon(size, centre + corners @ np.array([[c, s], [-s, c]]))


class Layer:
    """One item (a person or an object): premultiplied colour and coverage, painted part by part."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.colour = np.zeros((size, size, 3))
        self.alpha = np.zeros((size, size))
        self.rows, self.cols = slice(size, 0), slice(size, 0)  # the window painted so far (empty)

    def paint(self, patch: Patch | None, rgb: np.ndarray) -> None:
        if patch is None:
            return
        a = patch.alpha
        region = (patch.rows, patch.cols)
        self.colour[region] = rgb * a[..., None] + self.colour[region] * (1 - a[..., None])
        self.alpha[region] = a + self.alpha[region] * (1 - a)
        self.rows = slice(min(self.rows.start, patch.rows.start), max(self.rows.stop, patch.rows.stop))
        self.cols = slice(min(self.cols.start, patch.cols.start), max(self.cols.stop, patch.cols.stop))


# --- people ---

_POSES = ("standing", "walking", "running", "waving", "sitting", "crouching")


def _direction(angle: float) -> np.ndarray:
    """Unit vector `angle` radians from straight down, towards +x for positive angles (image y down)."""
    return np.array([np.sin(angle), np.cos(angle)])


def _skin(rng: np.random.Generator) -> np.ndarray:
    light = rng.uniform(0.2, 1.0)
    return np.array([0.45 + 0.5 * light, 0.28 + 0.5 * light, 0.18 + 0.45 * light]) * rng.uniform(0.9, 1.05, 3)


def _clothing(rng: np.random.Generator) -> np.ndarray:
    if rng.random() < 0.35:  # greys, black, white, denim — common clothes
        return np.array([[0.1, 0.1, 0.12], [0.9, 0.9, 0.88], [0.5, 0.5, 0.52], [0.2, 0.3, 0.55]][rng.integers(4)]) \
            * rng.uniform(0.85, 1.15)
    return rng.uniform(0, 1, 3)


def draw_person(layer: Layer, rng: np.random.Generator, feet: np.ndarray, height: float,
                colours: dict[str, np.ndarray] | None = None, pose: str | None = None) -> None:
    """An articulated figure about `height` pixels tall (standing) with its feet at `feet` (x, y).

    `colours` overrides the random palette (keys skin, hair, shirt, trousers, shoes), e.g. one
    colour for every part in tests; `pose` is one of _POSES (random when None). Joint angles are
    radians from straight down; side-on figures swing their limbs forwards and backwards, figures
    facing the camera spread them sideways (and sitting ones foreshorten their thighs).
    """
    pose = pose or _POSES[rng.integers(len(_POSES))]
    palette = {"skin": _skin(rng), "hair": rng.uniform(0, 0.5, 3) * rng.uniform(0.2, 1.0),
               "shirt": _clothing(rng), "trousers": _clothing(rng), "shoes": rng.uniform(0, 0.3, 3)}
    palette.update(colours or {})
    h, build = height, rng.uniform(0.8, 1.25)
    side_on = rng.random() < 0.4
    width = rng.uniform(0.35, 0.6) if side_on else 1.0
    facing = 1.0 if rng.random() < 0.5 else -1.0
    long_sleeves, long_trousers, skirt = rng.random() < 0.5, rng.random() < 0.75, rng.random() < 0.15
    swing = rng.uniform(-1, 1)
    # (near, far) upper-limb angles and the elbow / knee bend, forwards positive (side-on view)
    arms = {"standing": ((rng.uniform(0.0, 0.3), rng.uniform(0.0, 0.3)), 0.2),
            "walking": ((0.45 * swing, -0.45 * swing), 0.4),
            "running": ((1.1 * swing, -1.1 * swing), 1.6),
            "waving": ((rng.uniform(2.2, 3.0), rng.uniform(0.1, 2.8)), 0.5),
            "sitting": ((0.5, 0.5), 1.2), "crouching": ((0.6, 0.4), 1.0)}[pose]
    legs = {"standing": ((0.05, -0.05), 0.0), "walking": ((0.4 * swing, -0.4 * swing), 0.3),
            "running": ((0.9 * swing, -0.9 * swing), 1.4), "waving": ((0.08, -0.08), 0.0),
            "sitting": ((1.45, 1.5), -1.5), "crouching": ((1.9, 1.6), -2.3)}[pose]
    tilt = rng.normal(0, 0.08) + (rng.choice([-1, 1]) * np.pi / 2 if rng.random() < 0.04 else 0.0)
    lean = rng.normal(0, 0.1) + (0.25 if pose == "running" else 0.0)
    thigh, shin, upper_arm, forearm = 0.245 * h, 0.245 * h, 0.17 * h, 0.16 * h
    bent = pose in ("sitting", "crouching")

    def angles(first: float, bend: float, side: float, is_leg: bool) -> tuple[float, float, float]:
        """Image-plane angles of the upper and lower segment and the upper segment's length factor."""
        if side_on:
            return first * facing, (first + bend) * facing, 1.0
        if is_leg and bent:  # thighs point at the camera
            return side * 0.25, side * 0.08, 0.3
        if is_leg:
            return side * (0.08 + 0.3 * abs(first)), side * (0.1 + 0.3 * abs(first)), 1.0
        if pose == "waving":
            return side * first, side * (first + bend * 0.5), 1.0
        spread = side * (0.12 + 0.35 * abs(first))
        return spread, spread + side * bend * 0.3, 1.0

    # legs first, hip at the origin, so the hip can be lifted until the lower foot touches the ground
    hip_half = 0.07 * h * width * build
    leg_parts = []
    for index, side in ((0, 1.0), (1, -1.0)):
        base = np.array([side * hip_half, 0.0])
        a_upper, a_lower, factor = angles(legs[0][index], legs[1], side, True)
        knee = base + _direction(a_upper) * thigh * factor
        foot = knee + _direction(a_lower) * shin
        leg_parts.append((base, knee, foot))
    hip_height = max(foot[1] for _, _, foot in leg_parts) + 0.03 * h * build
    lift = np.array([0.0, -hip_height])
    rotation = np.array([[np.cos(tilt), -np.sin(tilt)], [np.sin(tilt), np.cos(tilt)]])

    def at(point: np.ndarray) -> np.ndarray:  # body frame (feet at the origin, upright) → image
        return feet + rotation @ point

    hip = lift
    up = np.array([np.sin(lean * facing), -np.cos(lean * facing)])  # leaning towards where it faces
    neck = hip + up * 0.30 * h
    head = neck + up * 0.085 * h
    across = np.array([-up[1], up[0]])
    shoulder_half = 0.115 * h * width * build
    size = layer.size
    sleeve = palette["shirt"] if long_sleeves else palette["skin"]
    upper_leg = palette["skin"] if skirt and not long_trousers else palette["trousers"]
    lower_leg = palette["trousers"] if long_trousers and not skirt else palette["skin"]
    parts: list[tuple[Patch | None, np.ndarray]] = []

    def leg(index: int, shade: float) -> None:
        base, knee, foot = (p + lift for p in leg_parts[index])
        parts.append((capsule(size, at(base), at(knee), 0.05 * h * build), upper_leg * shade))
        parts.append((capsule(size, at(knee), at(foot), 0.04 * h * build), lower_leg * shade))
        toe = foot + np.array([0.05 * h * facing if side_on else 0.0, 0.0])
        parts.append((capsule(size, at(foot), at(toe), 0.03 * h * build), palette["shoes"] * shade))

    def arm(index: int, side: float, shade: float) -> None:
        base = neck + across * shoulder_half * 0.85 * side
        a_upper, a_lower, _ = angles(arms[0][index], arms[1], side, False)
        elbow = base + _direction(a_upper + lean * facing) * upper_arm
        hand = elbow + _direction(a_lower + lean * facing) * forearm
        parts.append((capsule(size, at(base), at(elbow), 0.036 * h * build), palette["shirt"] * shade))
        parts.append((capsule(size, at(elbow), at(hand), 0.03 * h * build), sleeve * shade))
        parts.append((ellipse(size, at(hand), 0.028 * h * build, 0.028 * h * build), palette["skin"] * shade))

    # far arm and leg first, a little darker; then the torso; then the near leg, the head, the near arm
    arm(1, -1.0, 0.85)
    leg(1, 0.85)
    leg(0, 1.0)
    torso = [neck + across * shoulder_half, neck - across * shoulder_half,
             hip - across * hip_half * 1.15, hip + across * hip_half * 1.15]
    parts.append((polygon(size, np.array([at(p) for p in torso])), palette["shirt"]))
    if skirt:
        hem = hip - up * 0.2 * h
        outline = [hip + across * hip_half * 1.2, hip - across * hip_half * 1.2,
                   hem - across * hip_half * 1.8, hem + across * hip_half * 1.8]
        parts.append((polygon(size, np.array([at(p) for p in outline])), palette["trousers"]))
    parts.append((capsule(size, at(neck), at(neck + up * 0.03 * h), 0.03 * h * build), palette["skin"]))
    head_angle = tilt + lean * facing
    parts.append((ellipse(size, at(head), 0.062 * h, 0.072 * h, head_angle), palette["skin"]))
    if rng.random() < 0.85:  # hair: a cap over the top (and the back, side-on) of the head
        back = -across * 0.015 * h * facing if side_on else 0.0
        parts.append((ellipse(size, at(head + up * 0.035 * h + back), 0.062 * h, 0.04 * h, head_angle),
                      palette["hair"]))
    arm(0, 1.0, 1.0)
    for patch, colour in parts:
        layer.paint(patch, np.clip(colour, 0, 1))


# --- distractor objects ---

def _object(layer: Layer, rng: np.random.Generator, foot: np.ndarray, scale: float) -> None:
    """One distractor standing on `foot` (x, y), about `scale` pixels tall."""
    size, colour = layer.size, rng.uniform(0, 1, 3)
    kind = rng.integers(6)
    if kind == 0:  # a box, front and top faces
        w, hgt = scale * rng.uniform(0.5, 1.5), scale * rng.uniform(0.4, 1.0)
        layer.paint(rectangle(size, foot - [0, hgt / 2], w, hgt), colour)
        depth = hgt * rng.uniform(0.1, 0.3)
        top = np.array([foot + [-w / 2, -hgt], foot + [w / 2, -hgt], foot + [w / 2 + depth, -hgt - depth],
                        foot + [-w / 2 + depth, -hgt - depth]])
        layer.paint(polygon(size, top), colour * 0.7)
    elif kind == 1:  # a pole or post
        w = scale * rng.uniform(0.04, 0.15)
        hgt = scale * rng.uniform(1.5, 4.0)
        layer.paint(rectangle(size, foot - [0, hgt / 2], w, hgt, rng.normal(0, 0.05)), colour)
    elif kind == 2:  # a ball or disc
        r = scale * rng.uniform(0.15, 0.6)
        layer.paint(ellipse(size, foot - [0, r], r, r * rng.uniform(0.8, 1.0)), colour)
    elif kind == 3:  # a four-legged animal-like blob
        length, hgt = scale * rng.uniform(0.6, 1.4), scale * rng.uniform(0.25, 0.5)
        body = foot - [0, hgt * 1.6]
        for dx in (-0.35, -0.2, 0.2, 0.35):
            knee = body + [dx * length, hgt * 0.8]
            layer.paint(capsule(size, body + [dx * length, 0], knee + [rng.normal(0, 0.05) * length, hgt * 0.8],
                                hgt * 0.12), colour * 0.8)
        layer.paint(ellipse(size, body, length / 2, hgt / 2), colour)
        side = rng.choice([-1.0, 1.0])
        layer.paint(ellipse(size, body + [side * length * 0.55, -hgt * 0.5], hgt * 0.35, hgt * 0.3), colour)
        layer.paint(capsule(size, body - [side * length * 0.5, 0], body - [side * length * 0.8, hgt * 0.4],
                            hgt * 0.07), colour * 0.9)
    elif kind == 4:  # a table or bench on legs
        w, hgt = scale * rng.uniform(0.8, 2.0), scale * rng.uniform(0.4, 0.8)
        for dx in (-0.42, 0.42):
            layer.paint(capsule(size, foot + [dx * w, 0], foot + [dx * w, -hgt], max(0.6, scale * 0.03)), colour * 0.7)
        layer.paint(rectangle(size, foot - [0, hgt], w, max(1.0, hgt * 0.12)), colour)
    else:  # a tree or plant: trunk and crown
        hgt = scale * rng.uniform(1.0, 3.0)
        trunk = np.array([0.35, 0.22, 0.1]) * rng.uniform(0.6, 1.3)
        layer.paint(capsule(size, foot, foot - [0, hgt * 0.6], max(0.6, hgt * 0.04)), trunk)
        green = np.array([0.15, 0.45, 0.15]) * rng.uniform(0.5, 1.5, 3)
        for _ in range(3):
            layer.paint(ellipse(size, foot - [rng.normal(0, 0.1) * hgt, hgt * rng.uniform(0.6, 0.85)],
                                hgt * rng.uniform(0.15, 0.3), hgt * rng.uniform(0.15, 0.3)), np.clip(green, 0, 1))


# --- backgrounds and lighting ---

def _smooth_noise(rng: np.random.Generator, size: int, cells: int, channels: int = 3) -> np.ndarray:
    """Value noise: a random [cells, cells] grid bilinearly enlarged to [size, size, channels]."""
    grid = rng.normal(size=(cells + 1, cells + 1, channels))
    position = np.linspace(0, cells, size)
    weights = np.maximum(0, 1 - np.abs(position[:, None] - np.arange(cells + 1)[None, :]))  # [size, cells+1]
    rows = np.tensordot(weights, grid, axes=(1, 0))                      # [size, cells+1, channels]
    return np.tensordot(rows, weights, axes=(1, 1)).transpose(0, 2, 1)  # [size, size, channels]


def _background(rng: np.random.Generator, size: int) -> tuple[np.ndarray, float]:
    """[size, size, 3] background in 0..1 and the horizon row (where objects and people stand below)."""
    y = (np.arange(size)[:, None, None] + 0.5) / size
    x = (np.arange(size)[None, :, None] + 0.5) / size
    kind = rng.integers(4)
    horizon = rng.uniform(0.25, 0.7)
    texture = _smooth_noise(rng, size, int(rng.integers(3, 12))) * rng.uniform(0.02, 0.12)
    if kind == 0:  # room: wall over floor, floor tiles or planks converging on a vanishing point
        wall, floor = rng.uniform(0.2, 0.95, 3), rng.uniform(0.1, 0.8, 3)
        image = np.where(y < horizon, wall, floor) + texture
        if rng.random() < 0.5:  # wallpaper stripes
            period = rng.uniform(0.03, 0.15)
            stripes = (np.sin(2 * np.pi * x / period) > 0) * rng.uniform(-0.08, 0.08)
            image = image + np.where(y < horizon, stripes, 0.0)
        vanish = rng.uniform(0.2, 0.8)
        spread = (x - vanish) / np.maximum(y - horizon, 1e-3)
        lines = (np.sin(2 * np.pi * spread * rng.uniform(1.5, 5)) > 0.9) * rng.uniform(-0.15, 0.15)
        image = image + np.where(y > horizon + 0.01, lines, 0.0)
    elif kind == 1:  # outdoors: sky gradient over grass or asphalt
        sky_top, sky_low = rng.uniform(0.4, 1.0, 3), rng.uniform(0.5, 1.0, 3)
        ground = np.array([0.2, 0.45, 0.15]) * rng.uniform(0.5, 1.5, 3) if rng.random() < 0.5 \
            else np.full(3, rng.uniform(0.2, 0.5))
        sky = sky_top + (sky_low - sky_top) * (y / horizon)
        image = np.where(y < horizon, sky, ground + 2 * texture)
    elif kind == 2:  # cloudy texture all over
        image = rng.uniform(0.2, 0.8, 3) + _smooth_noise(rng, size, int(rng.integers(2, 16))) * rng.uniform(0.1, 0.3)
        horizon = rng.uniform(0.0, 0.4)
    else:  # a gradient between two colours
        angle = rng.uniform(0, 2 * np.pi)
        t = np.clip((np.cos(angle) * (x - 0.5) + np.sin(angle) * (y - 0.5)) * 1.2 + 0.5, 0, 1)
        image = rng.uniform(0, 1, 3) * (1 - t) + rng.uniform(0, 1, 3) * t + texture
        horizon = rng.uniform(0.0, 0.4)
    return np.clip(np.broadcast_to(image, (size, size, 3)), 0, 1), horizon * size


def _lighting(rng: np.random.Generator, image: np.ndarray) -> np.ndarray:
    size = image.shape[0]
    if rng.random() < 0.3:  # slight defocus: a 3 × 3 binomial blur
        padded = np.pad(image, ((1, 1), (1, 1), (0, 0)), mode="edge")
        kernel = np.array([0.25, 0.5, 0.25])
        image = sum(kernel[i] * padded[i:i + size, 1:-1] for i in range(3))
        padded = np.pad(image, ((0, 0), (1, 1), (0, 0)), mode="edge")
        image = sum(kernel[i] * padded[:, i:i + size] for i in range(3))
    angle = rng.uniform(0, 2 * np.pi)
    ramp = np.cos(angle) * np.linspace(-0.5, 0.5, size)[None, :] + np.sin(angle) * np.linspace(-0.5, 0.5, size)[:, None]
    image = image * (1 + rng.uniform(0, 0.6) * ramp)[..., None]  # light from one side
    image = image * rng.uniform(0.8, 1.2, 3)                        # colour cast
    image = (image - 0.5) * rng.uniform(0.6, 1.3) + 0.5 + rng.uniform(-0.2, 0.2)  # contrast, brightness
    image = np.clip(image, 0, 1) ** rng.uniform(0.7, 1.4)           # gamma
    image = image + rng.normal(0, rng.uniform(0, 0.04), image.shape)
    return np.clip(np.rint(image * 255), 0, 255).astype(np.uint8)


def _box(visible: np.ndarray) -> np.ndarray | None:
    """Tight normalised box of the pixels more than half visible, None if too few."""
    mask = visible > 0.5
    if mask.sum() < MIN_VISIBLE_PIXELS:
        return None
    size = visible.shape[0]
    rows, cols = np.flatnonzero(mask.any(1)), np.flatnonzero(mask.any(0))
    return np.array([cols[0], rows[0], cols[-1] + 1, rows[-1] + 1], dtype=np.float32) / size


def render_scene(rng: np.random.Generator, size: int = YOLO_SIZE, *, people: int | None = None,
                 objects: int | None = None, plain: np.ndarray | None = None,
                 palette: dict[str, np.ndarray] | None = None) -> Scene:
    """One random scene: the lit image, its person boxes and each box's visible-pixel share.

    By default everything is random. `people` / `objects` fix how many (objects=0: none at all,
    not even in front of people); `plain` (RGB 0..1) paints a flat background and skips the
    lighting; `palette` gives every figure the same colours (see draw_person) — together they
    make a scene whose person pixels can be told from everything else, for checking the boxes.
    """
    if plain is None:
        canvas, horizon = _background(rng, size)
        canvas = canvas.copy()
    else:
        canvas, horizon = np.tile(np.asarray(plain, dtype=np.float64), (size, size, 1)), 0.0
    if people is None:
        people = int(rng.choice([0, 1, 2, 3, 4], p=[0.3, 0.4, 0.17, 0.08, 0.05]))
    if objects is None:
        objects = int(rng.integers(0, 6))
    items = ["person"] * people + ["object"] * objects
    placed = []
    for kind in items:
        foot_y = rng.uniform(max(horizon, 0.3 * size), 1.3 * size)
        depth = (foot_y - horizon) / max(size - horizon, 1.0)  # nearer to the viewer lower in the frame
        height = size * np.exp(rng.uniform(np.log(0.1), np.log(1.2))) * (0.6 + 0.6 * depth)
        placed.append((foot_y, kind, np.array([rng.uniform(-0.1, 1.1) * size, foot_y]), height))
        if kind == "person" and objects and rng.random() < 0.3:  # an object in front of this person
            cover_y = foot_y + rng.uniform(0, 0.1) * size
            x = placed[-1][2][0] + rng.normal(0, 0.2) * height
            placed.append((cover_y + 1e-3, "object", np.array([x, cover_y]), height * rng.uniform(0.3, 0.8)))
    placed.sort(key=lambda item: item[0])
    visible: list[np.ndarray] = []
    for _, kind, foot, height in placed:
        layer = Layer(size)
        if kind == "person":
            draw_person(layer, rng, foot, height, palette)
        else:
            _object(layer, rng, foot, height * 0.5)
        region = (layer.rows, layer.cols)  # compositing only where the layer painted
        alpha = layer.alpha[region]
        canvas[region] = layer.colour[region] + canvas[region] * (1 - alpha[..., None])
        for v in visible:
            v[region] *= 1 - alpha
        if kind == "person":
            visible.append(layer.alpha.copy())
    boxes, areas = [], []
    for v in visible:
        box = _box(v)
        if box is not None:
            boxes.append(box)
            areas.append(float((v > 0.5).sum()) / (size * size))
    image = _lighting(rng, canvas) if plain is None else np.clip(np.rint(canvas * 255), 0, 255).astype(np.uint8)
    return Scene(image, np.array(boxes, np.float32).reshape(-1, 4), np.array(areas, np.float32))


def synthetic(count: int, seed: int, size: int = YOLO_SIZE) -> Detections:
    """`count` rendered scenes of `size` × `size` pixels; the same (count, seed, size) gives the same bytes."""
    rng = np.random.default_rng(seed)
    scenes = [render_scene(rng, size) for _ in range(count)]
    images = np.stack([s.image for s in scenes]) if scenes else np.zeros((0, size, size, 3), np.uint8)
    return Detections(images, [s.boxes for s in scenes],
                      np.array([vww_label(s.areas) for s in scenes], dtype=np.int64))


# --- COCO ---

class CocoImage(NamedTuple):
    path: Path
    boxes: np.ndarray  # float32 [K, 4] normalised, crowd annotations left out
    label: int         # VWW label


def coco_index(annotations: Path | str, images: Path | str) -> list[CocoImage]:
    """Every image the annotation file lists, with its person boxes and VWW label, in file order."""
    annotations = require_file(Path(annotations).expanduser(), CocoError, _COCO_LAYOUT)
    images = require_dir(images, CocoError, _COCO_LAYOUT)
    try:
        document = json.loads(annotations.read_text())
        person = [c["id"] for c in document["categories"] if c.get("name") == "person"]
        listed = {int(i["id"]): (i["file_name"], float(i["width"]), float(i["height"])) for i in document["images"]}
        notes = document.get("annotations", [])
    except (ValueError, KeyError, TypeError) as error:
        raise CocoError(f"{annotations} is not a COCO instances file ({type(error).__name__}: {error}); "
                        f"expected {_COCO_LAYOUT}") from error
    if len(person) != 1:
        raise CocoError(f"{annotations} has {len(person)} categories named 'person'; expected one ({_COCO_LAYOUT})")
    boxes: dict[int, list[list[float]]] = {i: [] for i in listed}
    labels = dict.fromkeys(listed, 0)
    for note in notes:
        try:
            if note["category_id"] != person[0]:
                continue
            image_id = int(note["image_id"])
            _, width, height = listed[image_id]
            x, y, w, h = (float(v) for v in note["bbox"])
            area = float(note.get("area", w * h))
        except (KeyError, TypeError, ValueError) as error:
            raise CocoError(f"{annotations}: annotation {note.get('id', '?') if isinstance(note, dict) else note!r} "
                            f"is malformed ({type(error).__name__}: {error}); expected {_COCO_LAYOUT}") from error
        if area / (width * height) >= VWW_AREA_THRESHOLD:
            labels[image_id] = 1
        if not note.get("iscrowd", 0) and w > 0 and h > 0:
            boxes[image_id].append([max(0.0, x / width), max(0.0, y / height),
                                    min(1.0, (x + w) / width), min(1.0, (y + h) / height)])
    return [CocoImage(images / name, np.array(boxes[i], np.float32).reshape(-1, 4), labels[i])
            for i, (name, _, _) in listed.items()]


def read_image(path: Path, size: int) -> np.ndarray:
    """uint8 [size, size, 3] RGB of an image file, stretched to size × size (bilinear)."""
    from PIL import Image, UnidentifiedImageError  # Pillow: decoding JPEG/PNG only the real data needs

    if not path.is_file():
        raise CocoError(f"{path} is missing: the annotations name it; expected {_COCO_LAYOUT}")
    try:
        with Image.open(path) as image:
            return np.asarray(image.convert("RGB").resize((size, size), Image.BILINEAR), dtype=np.uint8)
    except (UnidentifiedImageError, OSError) as error:
        raise CocoError(f"{path} is not a readable image ({error}); expected {_COCO_LAYOUT}") from error


def load_coco(annotations: Path | str, images: Path | str, size: int = YOLO_SIZE,
              limit: int | None = None) -> Detections:
    """The first `limit` (all when None) images of a COCO annotation file, decoded to size × size."""
    index = coco_index(annotations, images)[:limit]
    pictures = [read_image(entry.path, size) for entry in index]
    return Detections(np.stack(pictures) if pictures else np.zeros((0, size, size, 3), np.uint8),
                      [entry.boxes for entry in index], np.array([entry.label for entry in index], dtype=np.int64))


def dataset(count: int, seed: int, size: int = YOLO_SIZE, annotations: Path | str | None = None,
            images: Path | str | None = None) -> Detections:
    """COCO from (`annotations`, `images`) when given (the first `count`), else `count` rendered scenes."""
    if annotations is not None or images is not None:
        if annotations is None or images is None:
            raise CocoError(f"give both the annotations file and the image folder; expected {_COCO_LAYOUT}")
        return load_coco(annotations, images, size, count)
    return synthetic(count, seed, size)
