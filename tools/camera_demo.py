"""Person-detection camera demo: frames → the device over the serial link → boxes drawn on them.

    ./scons app=person_detect demo=camera source=synthetic frames=20     # QEMU, headless here
    python -m tools.camera_demo --port /dev/ttyACM0 --source 0           # a real board, webcam 0
    python -m tools.camera_demo --board corstone300 --source clip.mp4 --out demo/   # QEMU

Sources (--source): `synthetic` (the app's scene renderer), a camera index (0, 1 …), a video
file, or a folder of images. Each frame is centre-cropped to a square, resized to the model's
input, quantized with the program's input quantization (INFO) and sent; the device runs µYOLO,
decodes the boxes and runs NMS itself (GET_RESULT), and the demo draws them with the device's
counter units per frame and the host's end-to-end frames per second. The same frame also goes
through the program's reference and the app's decoder on the host: `matches` counts the frames
whose device boxes equal the reference's exactly.

With a display (and without --headless) frames show in a window; otherwise the annotated frames
are written as PNGs (and --video FILE.mp4) under --out, with demo.json: frames, detections per
frame, device counts per frame, host FPS, frames equal to the reference.
"""
from __future__ import annotations

import argparse
import json
import os
import struct
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tools.ember_link import Link, add_device_arguments, board_of, serve
from ember_build.paths import BUILD_ROOT

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp"}
BOX_BYTES = 10  # i8 score, u8 cell, u16 x0, y0, x1, y1 (apps/person_detect/firmware/yolo/link_result.c)
DISPLAY_SIDE = 512


class DemoError(Exception):
    """A source that cannot be read, or a device that does not run the person detector."""


@dataclass(frozen=True)
class Box:
    score: int  # the cell's objectness byte
    cell: int
    x0: int  # in 1/Q of the image side (apps/person_detect/detect.py Q)
    y0: int
    x1: int
    y1: int


def parse_boxes(payload: bytes) -> list[Box]:
    """GET_RESULT of the person detector: u32 count, then count × (i8, u8, 4 × u16)."""
    if len(payload) < 4:
        raise DemoError(f"result of {len(payload)} bytes is not a box list")
    (count,) = struct.unpack_from("<I", payload)
    if len(payload) != 4 + BOX_BYTES * count:
        raise DemoError(f"result says {count} boxes but holds {len(payload) - 4} bytes")
    return [Box(*struct.unpack_from("<bBHHHH", payload, 4 + BOX_BYTES * i)) for i in range(count)]


def frames(source: str, count: int, side: int, seed: int = 0) -> Iterator[tuple[str, np.ndarray]]:
    """(name, BGR uint8 frame) from `source`, at most `count` of them."""
    import cv2

    if source == "synthetic":
        from apps.person_detect import data

        scenes = data.synthetic(count, seed, side)
        for i, rgb in enumerate(scenes.images):
            yield f"synthetic-{i:04d}", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)
        return
    path = Path(source)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not files:
            raise DemoError(f"{path} holds no images ({', '.join(sorted(IMAGE_SUFFIXES))})")
        for file in files[:count]:
            frame = cv2.imread(str(file))
            if frame is None:
                raise DemoError(f"{file} is not an image OpenCV can read")
            yield file.stem, frame
        return
    if not source.isdigit() and not path.exists():
        raise DemoError(f"source {source!r} is neither 'synthetic', a camera index, a video file nor a folder")
    capture = cv2.VideoCapture(int(source) if source.isdigit() else str(path))
    if not capture.isOpened():
        raise DemoError(f"cannot open {'camera' if source.isdigit() else 'video'} {source}")
    try:
        for i in range(count):
            ok, frame = capture.read()
            if not ok:
                return
            yield f"frame-{i:04d}", frame
    finally:
        capture.release()


def square_crop(frame: np.ndarray) -> np.ndarray:
    h, w = frame.shape[:2]
    side = min(h, w)
    top, left = (h - side) // 2, (w - side) // 2
    return frame[top:top + side, left:left + side]


def to_input(frame_bgr: np.ndarray, side: int, scale: float, zero_point: int) -> np.ndarray:
    """The model's int8 NHWC input: RGB in 0..1 quantized as the program's input is."""
    import cv2

    rgb = cv2.cvtColor(cv2.resize(square_crop(frame_bgr), (side, side), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2RGB)
    q = np.round(rgb.astype(np.float32) / np.float32(255.0) / np.float32(scale)) + zero_point
    return np.clip(q, -128, 127).astype(np.int8)[None]


def draw(frame_bgr: np.ndarray, boxes: list[Box], q: int, caption: str) -> np.ndarray:
    import cv2

    image = cv2.resize(square_crop(frame_bgr), (DISPLAY_SIDE, DISPLAY_SIDE), interpolation=cv2.INTER_NEAREST)
    for box in boxes:
        p0 = (box.x0 * DISPLAY_SIDE // q, box.y0 * DISPLAY_SIDE // q)
        p1 = (box.x1 * DISPLAY_SIDE // q, box.y1 * DISPLAY_SIDE // q)
        cv2.rectangle(image, p0, p1, (40, 220, 40), 2)
        cv2.putText(image, f"person {box.score}", (p0[0], max(12, p0[1] - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.45,
                    (40, 220, 40), 1, cv2.LINE_AA)
    cv2.rectangle(image, (0, 0), (DISPLAY_SIDE, 22), (0, 0, 0), -1)
    cv2.putText(image, caption, (6, 16), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (255, 255, 255), 1, cv2.LINE_AA)
    return image


def run_demo(link, program, source: str, count: int, out: Path | None, headless: bool, video: Path | None = None) -> dict:
    """Streams `count` frames of `source` through the device; returns (and writes) demo.json."""
    import cv2

    from apps.person_detect import detect
    from apps.person_detect.model import output_quantization

    info = link.info()
    if not info.has_result or len(info.outputs) != 1:
        raise DemoError("the device does not run the person detector's serving firmware "
                        "(`scons app=person_detect model=yolo serve=1`)")
    tensor = info.inputs[0]
    side = tensor.shape[1]
    tables = detect.decode_tables(*output_quantization(program))
    show = not headless and bool(os.environ.get("DISPLAY"))
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    writer = None
    records, start = [], time.monotonic()
    for i, (name, frame) in enumerate(frames(source, count, side)):
        x = to_input(frame, side, tensor.scale, tensor.zero_point)
        link.set_input(0, x)
        counted = link.run()
        boxes = parse_boxes(link.result())
        reference = [Box(b.score, b.cell, b.x0, b.y0, b.x1, b.y1)
                     for b in detect.decode_int8(program.run_reference(x)[0], tables)]
        fps = (i + 1) / (time.monotonic() - start)
        caption = f"{len(boxes)} person(s) | device {counted:,} {info.counter_unit} | host {fps:.1f} fps"
        image = draw(frame, boxes, detect.Q, caption)
        records.append({"frame": name, "detections": [b.__dict__ for b in boxes], "device_count": counted,
                        "equal_to_reference": boxes == reference})
        if show:
            cv2.imshow("Ember person detection", image)
            if cv2.waitKey(1) & 0xFF == 27:
                break
        elif out is not None:
            cv2.imwrite(str(out / f"{i:04d}-{name}.png"), image)
        if video is not None:
            if writer is None:
                writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"mp4v"), 10, (DISPLAY_SIDE, DISPLAY_SIDE))
            writer.write(image)
    if writer is not None:
        writer.release()
    if show:
        cv2.destroyAllWindows()
    elapsed = time.monotonic() - start
    summary = {"source": source, "frames": len(records), "host_fps": len(records) / elapsed if elapsed else 0.0,
               "counter_unit": info.counter_unit, "frames_equal_to_reference": sum(r["equal_to_reference"] for r in records),
               "per_frame": records}
    if out is not None:
        tmp = out / "demo.json.tmp"
        tmp.write_text(json.dumps(summary, indent=2) + "\n")
        tmp.replace(out / "demo.json")
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_device_arguments(parser, "a QEMU board: starts build/<board>/person_detect…/serve/firmware.elf")
    parser.add_argument("--program", type=Path, help="the program file the firmware runs (default: the build's)")
    parser.add_argument("--source", default="synthetic", help="synthetic, a camera index, a video file or an image folder")
    parser.add_argument("--frames", type=int, default=20)
    parser.add_argument("--out", type=Path, help="folder for annotated frames and demo.json")
    parser.add_argument("--video", type=Path, help="also write an annotated .mp4")
    parser.add_argument("--headless", action="store_true", help="never open a window")
    args = parser.parse_args()
    from compiler.program import Program

    if args.board:
        board = board_of(args)
        base = next((p for p in (BUILD_ROOT / board.build_name / n for n in ("person_detect-yolo", "person_detect"))
                     if (p / "serve").exists()), None)
        if base is None and (args.elf is None or args.program is None):
            raise SystemExit(f"error: no serving firmware: build it with `./scons app=person_detect board={args.board} serve=1`")
        program = Program.load(args.program or base / "gen" / "program.embr")
        with serve(board, args.elf or base / "serve" / "firmware.elf") as link:
            out = args.out or (base / "demo" if base else None)
            summary = run_demo(link, program, args.source, args.frames, out, args.headless, args.video)
            link.shutdown()
    else:
        if args.program is None:
            raise SystemExit("error: with --port, give --program (the program file the board's firmware was built with)")
        with Link.open(args.port) as link:
            summary = run_demo(link, Program.load(args.program), args.source, args.frames, args.out, args.headless, args.video)
    print(f"{summary['frames']} frames, {summary['host_fps']:.2f} fps on the host, "
          f"{summary['frames_equal_to_reference']} with the reference's boxes")


if __name__ == "__main__":
    main()
