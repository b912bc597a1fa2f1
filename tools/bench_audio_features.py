#!/usr/bin/env python3
"""Instruction counts of the audio front end (the mel_features op) on each QEMU tier board
(exact, MEASURING.md): one MFCC of 1 s (MLPerf Tiny KWS, 49 frames) and one log-mel window
(MLPerf Tiny AD, 3072 samples, 5 frames).

    ./scons em_run board=corstone300 && ./scons em_run board=mps2_an386 && ./scons em_run board=mps2_an385
    .venv/bin/python -m tools.bench_audio_features [--boards corstone300 mps2_an386 mps2_an385]

Each front end is one op in a program of its own (compiler.ops.mel_features.front_end_op ->
planner -> writer) run twice by the board's em_run on speech-like audio; the two counts must
agree and the output must equal compiler/audio_features.py's bit for bit.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np


from compiler import audio_features as af
from compiler.ir import Graph
from compiler.ops.mel_features import front_end_op
from compiler.planner import Region, plan_memory
from compiler.target import Target
from compiler.writer import write_program
from tools.bench_float import TARGETS as FLOAT_TARGETS, count_twice

TARGETS = FLOAT_TARGETS  # a QEMU board of each tier: corstone300 (mve), mps2_an386 (dsp), mps2_an385 (scalar)
FRONT_ENDS = {"MFCC, 1 s (49 x 10)": af.MFCC_KWS, "log-mel window (5 x 128)": af.LOG_MEL_ANOMALY}


def speech_like(samples: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    t = np.arange(samples) / af.SAMPLE_RATE
    f0 = 140.0
    s = sum(np.sin(2 * np.pi * f0 * k * t + rng.uniform(0, 6)) / k for k in range(1, 50))
    s = s * (1 + 0.8 * np.sin(2 * np.pi * 4 * t)) + rng.normal(0, 0.05, samples)
    return np.round(s / np.abs(s).max() * 16000).astype(np.int16)[None]


def measure(board: str, front_end: af.FrontEnd, workdir: Path) -> int:
    tensors, op = front_end_op(front_end, "audio", "features")
    graph = Graph({t.name: t for t in tensors}, [op], ["audio"], ["features"])
    plan_memory(graph, Region("sram", 1 << 20))
    audio = speech_like(front_end.samples)
    (workdir / "p.embr").write_bytes(write_program(graph, Target(TARGETS[board])))
    (workdir / "x.bin").write_bytes(audio.tobytes())
    count = count_twice(board, workdir)  # two identical runs, one count
    got = np.frombuffer((workdir / "y.bin").read_bytes(), np.float32)
    np.testing.assert_array_equal(got, front_end(audio).reshape(-1), err_msg=f"{front_end.name} on {board}")
    return count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--boards", nargs="+", default=list(TARGETS), choices=list(TARGETS))
    args = parser.parse_args()
    print("| front end | " + " | ".join(f"{b} ({TARGETS[b]})" for b in args.boards) + " |")
    print("|---|" + "---:|" * len(args.boards))
    with tempfile.TemporaryDirectory() as tmp:
        for name, front_end in FRONT_ENDS.items():
            counts = [measure(board, front_end, Path(tmp)) for board in args.boards]
            print(f"| {name} | " + " | ".join(f"{c:,}" for c in counts) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
