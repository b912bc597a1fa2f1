"""Keyword demo: 1 s clips → the keyword-spotting firmware over the serial link → keyword and score.

    ./scons app=kws demo=kws words=yes,left,stop                 # QEMU: words spoken by espeak-ng
    python -m tools.kws_demo --board corstone300 --wav a.wav b.wav
    python -m tools.kws_demo --port /dev/ttyACM0 --program build/ra8d1/kws/gen/program.embr --say go

A clip is 16 kHz mono int16, exactly one second: a shorter one is centred in silence, a longer
one cut to its first second. The device computes the MFCC features and runs DS-CNN on the raw
audio; the demo prints per clip the detected keyword, its softmax score, the device's counter
units and whether the device's output bytes equal the program reference's.
"""
from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tools.ember_link import Link, add_device_arguments, board_of, serve
from ember_build.paths import BUILD_ROOT

SPOKEN_PEAK = 0.5  # espeak-ng's clip (peak 1) scaled to a normal speaking level


class KwsDemoError(Exception):
    """A clip that cannot be used, or a device that does not run the keyword spotter."""


@dataclass(frozen=True)
class Detection:
    clip: str
    keyword: str
    score: float
    device_count: int
    equal_to_reference: bool


def one_second(samples: np.ndarray, rate: int = 16_000) -> np.ndarray:
    """`samples` (int16) centred in, or cut to, exactly one second."""
    samples = np.asarray(samples, np.int16).reshape(-1)
    if len(samples) >= rate:
        return samples[:rate].copy()
    out = np.zeros(rate, np.int16)
    start = (rate - len(samples)) // 2
    out[start:start + len(samples)] = samples
    return out


def spoken(word: str, voice: str = "en-us", speed: int = 160, pitch: int = 50) -> np.ndarray:
    """`word` spoken by espeak-ng (apps/kws/data.py), as a one-second int16 clip."""
    from apps.kws import data

    audio = data.speak(data.Utterance(word, voice, speed, pitch))
    return one_second(np.clip(np.rint(audio * SPOKEN_PEAK * 32767.0), -32768, 32767).astype(np.int16))


def wav_clip(path: Path) -> np.ndarray:
    from apps.kws import data

    if not path.is_file():
        raise KwsDemoError(f"{path} does not exist")
    return one_second(data.read_wav(path))


def classify(link, program, clips: list[tuple[str, np.ndarray]]) -> list[Detection]:
    from apps.kws import data

    info = link.info()
    if len(info.inputs) != 1 or info.inputs[0].shape[-1] != 16_000:
        raise KwsDemoError(f"the device's program takes {[t.shape for t in info.inputs]}, not one second of "
                           "16 kHz audio: is it the kws serving firmware (`scons app=kws serve=1`)?")
    output = info.outputs[0]
    detections = []
    for name, clip in clips:
        x = clip.reshape(info.inputs[0].shape).astype(info.inputs[0].dtype)
        link.set_input(0, x)
        counted = link.run()
        raw = link.output(0)
        logits = (raw.astype(np.float64) - output.zero_point) * output.scale if output.scale else raw.astype(np.float64)
        if "softmax" in [op.kind for op in program.graph.ops[-2:]]:  # ends in softmax (+ dequantize): probabilities
            p = logits.reshape(-1)
        else:
            p = np.exp(logits.reshape(-1) - logits.max())
            p /= p.sum()
        best = int(np.argmax(p))
        reference = program.run_reference(x)[0]
        detections.append(Detection(name, data.LABELS[best], float(p[best]), counted,
                                    np.asarray(reference).tobytes() == raw.tobytes()))
    return detections


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_device_arguments(parser, "a QEMU board (or host): starts build/<board>/kws/serve/firmware")
    parser.add_argument("--program", type=Path, help="the program file the firmware runs (default: the build's)")
    parser.add_argument("--say", default="", help="comma-separated words for espeak-ng to speak")
    parser.add_argument("--wav", type=Path, nargs="*", default=[], help="16 kHz mono 16-bit WAV files")
    parser.add_argument("--out", type=Path, help="folder for demo.json (the detections)")
    args = parser.parse_args()
    from compiler.program import Program

    clips = [(w, spoken(w)) for w in args.say.split(",") if w] + [(str(p), wav_clip(p)) for p in args.wav]
    if not clips:
        raise SystemExit("error: nothing to send: give --say WORDS and/or --wav FILES")
    if args.board:
        board = board_of(args)
        base = BUILD_ROOT / board.build_name / "kws"
        elf = args.elf or base / "serve" / ("firmware.elf" if board.emulator else "firmware")
        if not elf.exists():
            raise SystemExit(f"error: no serving firmware at {elf}: build it with `./scons app=kws board={args.board} serve=1`")
        with serve(board, elf) as link:
            detections = classify(link, Program.load(args.program or base / "gen" / "program.embr"), clips)
            link.shutdown()
    else:
        if args.program is None:
            raise SystemExit("error: with --port, give --program (the program file the board's firmware was built with)")
        with Link.open(args.port) as link:
            detections = classify(link, Program.load(args.program), clips)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "demo.json").write_text(json.dumps([d.__dict__ for d in detections], indent=2) + "\n")
    for d in detections:
        print(f"{d.clip}: {d.keyword} {d.score:.2f}  ({d.device_count:,} device counts; "
              f"{'equal to' if d.equal_to_reference else 'DIFFERS from'} the reference)")


if __name__ == "__main__":
    main()
