"""Montages of the synthetic data, to see what the apps train on.

    python -m apps.common.preview [--out build/data/preview] [--seed 0]

Writes 4 × 4 montages as PNG: image_classification.png (class names on the tiles),
person_detect_128.png and person_detect_96.png (person boxes in red, the VWW label in the
corner), kws.png (log spectrograms of 16 clips, 0–8 kHz upwards, with their labels); prints
each file and how many items per second its generator made (rendering only; the first kws run
also calls espeak-ng for every word it has not cached yet).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from apps.common.datasets import CACHE_ROOT


def montage(tiles: list[np.ndarray], captions: list[str], scale: int, columns: int = 4) -> Image.Image:
    """uint8 [H, W, 3] tiles, enlarged `scale` times, on a white grid with a caption on each."""
    height, width = tiles[0].shape[0] * scale, tiles[0].shape[1] * scale
    rows = (len(tiles) + columns - 1) // columns
    sheet = Image.new("RGB", (columns * (width + 4) + 4, rows * (height + 4) + 4), "white")
    for i, (tile, caption) in enumerate(zip(tiles, captions)):
        picture = Image.fromarray(tile).resize((width, height), Image.NEAREST)
        ImageDraw.Draw(picture).text((3, 2), caption, fill=(255, 255, 0), stroke_width=1, stroke_fill=(0, 0, 0))
        sheet.paste(picture, (4 + (i % columns) * (width + 4), 4 + (i // columns) * (height + 4)))
    return sheet


def _spectrogram(audio: np.ndarray) -> np.ndarray:
    """uint8 [128, 124, 3] log-magnitude STFT (256-point, hop 128), low frequencies at the bottom."""
    signal = audio.astype(np.float64) / 32768.0
    frames = np.lib.stride_tricks.sliding_window_view(signal, 256)[::128] * np.hanning(256)
    power = 20 * np.log10(np.abs(np.fft.rfft(frames, axis=1))[:, :128] + 1e-6)
    level = np.clip((power - power.max() + 80) / 80, 0, 1).T[::-1]
    colour = np.stack([level ** 0.7, level ** 1.5, 0.4 * (1 - level) + 0.6 * level ** 3], axis=2)
    return (colour * 255).astype(np.uint8)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=CACHE_ROOT / "preview")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    from apps.image_classification import data as image_data
    from apps.kws import data as kws_data
    from apps.person_detect import data as person_data

    start = time.perf_counter()
    images = image_data.synthetic(160, args.seed)
    rate = 160 / (time.perf_counter() - start)
    pick = [int(np.flatnonzero(images.labels == label % 10)[label // 10]) for label in range(16)]
    path = args.out / "image_classification.png"
    montage([images.images[i] for i in pick], [image_data.CLASSES[images.labels[i]] for i in pick], 4).save(path)
    print(f"{path}: {rate:.0f} images/s")

    for size in (person_data.YOLO_SIZE, person_data.VWW_SIZE):
        start = time.perf_counter()
        scenes = person_data.synthetic(48, args.seed, size)
        rate = 48 / (time.perf_counter() - start)
        tiles = []
        for image, boxes in zip(scenes.images[:16], scenes.boxes[:16]):
            picture = Image.fromarray(image).resize((2 * size, 2 * size), Image.NEAREST)
            draw = ImageDraw.Draw(picture)
            for x0, y0, x1, y1 in boxes * 2 * size:
                draw.rectangle([x0, y0, x1 - 1, y1 - 1], outline=(255, 0, 0))
            tiles.append(np.asarray(picture))
        path = args.out / f"person_detect_{size}.png"
        montage(tiles, [f"person={label}" for label in scenes.labels[:16]], 1).save(path)
        print(f"{path}: {rate:.1f} scenes/s at {size}x{size}")

    start = time.perf_counter()
    clips = kws_data.synthetic(48, args.seed)
    rate = 48 / (time.perf_counter() - start)
    path = args.out / "kws.png"
    montage([_spectrogram(a) for a in clips.audio[:16]], [kws_data.LABELS[label] for label in clips.labels[:16]],
            2).save(path)
    print(f"{path}: {rate:.0f} clips/s (espeak-ng renders cached in {kws_data.CACHE_DIR})")


if __name__ == "__main__":
    main()
