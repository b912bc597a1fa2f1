#!/usr/bin/env python3
"""Instructions per hop of a streamed model against its whole window, on QEMU boards (exact:
-icount, see ../shared/MEASURING.md).

    ./scons em_run board=corstone300 && ./scons em_run board=mps2_an386 && ./scons em_run board=mps2_an385 && \\
        .venv/bin/python -m tools.bench_stream [--boards corstone300,mps2_an386,mps2_an385] [--hops 60]

The model is the MLPerf Tiny streaming wake word model's shape with random weights: 40 features
x 30 frames, four blocks of depthwise k x 1 (k = 3, 5, 10, 15) and pointwise conv1d
(128/128/128/32) with batch norm and ReLU, a dense layer of 3. Per board it is lowered for the
board's CPU whole (one window per invoke) and streamed (compiler.options.Stream: one frame per
invoke); em_run runs the window once and the stream for --hops frames, and the streamed outputs
are checked against the windowed program's on each full window, byte for byte.
"""
from __future__ import annotations

import argparse
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import torch
from torch import nn

import compiler
from compiler.options import Stream
from ember_build.board import load_board
from ember_build.paths import BUILD_ROOT
from ember_build.qemu import emulator_command

FEATURES, FRAMES = 40, 30
BLOCKS = ((3, 128), (5, 128), (10, 128), (15, 32))


class Block(nn.Module):
    def __init__(self, cin: int, cout: int, k: int) -> None:
        super().__init__()
        self.dw, self.bn1 = nn.Conv1d(cin, cin, k, groups=cin, bias=False), nn.BatchNorm1d(cin)
        self.pw, self.bn2 = nn.Conv1d(cin, cout, 1, bias=False), nn.BatchNorm1d(cout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.bn2(self.pw(torch.relu(self.bn1(self.dw(x))))))


class StreamingWakeWordShape(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        blocks, cin = [], FEATURES
        for k, cout in BLOCKS:
            blocks.append(Block(cin, cout, k))
            cin = cout
        self.blocks, self.fc = nn.Sequential(*blocks), nn.Linear(cin, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.flatten(self.blocks(x), 1))


def model() -> nn.Module:
    torch.manual_seed(0)
    m = StreamingWakeWordShape().eval()
    for bn in (mod for mod in m.modules() if isinstance(mod, nn.BatchNorm1d)):
        bn.running_mean.uniform_(-0.2, 0.2)
        bn.running_var.uniform_(0.5, 2.0)
    return m


def instructions(stdout: str, label: str) -> int:
    line = next(line for line in stdout.splitlines() if line.startswith(label))
    return int(line.split(":")[1])


def measure(board_name: str, hops: int, work: Path) -> dict:
    board = load_board(board_name)
    elf = BUILD_ROOT / board_name / "em_run.elf"
    if not elf.exists():
        raise SystemExit(f"{elf} is missing: ./scons em_run board={board_name}")
    m, g = model(), torch.Generator().manual_seed(1)
    calibration = [torch.randn(1, FEATURES, FRAMES, generator=g) for _ in range(8)]
    windowed = compiler.lower(m, (calibration[0],), calibration, board.cpu, report_fallbacks=False)
    streamed = compiler.lower(m, (calibration[0],), calibration, board.cpu, stream=Stream(2, 1),
                              report_fallbacks=False)
    windowed.save(work / "window.embr")
    streamed.save(work / "stream.embr")
    x = torch.randn(1, FEATURES, hops, generator=g).numpy()
    np.ascontiguousarray(np.moveaxis(x, 2, 0)).astype(np.float32).tofile(work / "stream.bin")
    x[:, :, :FRAMES].astype(np.float32).tofile(work / "window.bin")

    def run(args: str) -> str:
        result = subprocess.run(emulator_command(board, elf, args), cwd=work, capture_output=True, text=True,
                                timeout=600)
        if result.returncode != 0:
            raise SystemExit(f"{board_name}: em_run {args} failed:\n{result.stdout}{result.stderr}")
        return result.stdout

    whole = run("window.embr --input window.bin")
    stream = run(f"stream.embr --input stream.bin --output out.bin --invokes {hops}")
    got = np.fromfile(work / "out.bin", np.float32).reshape(hops, -1)
    for t in range(FRAMES - 1, hops):
        want = windowed.run_reference(x[:, :, t + 1 - FRAMES:t + 1])[0].reshape(-1)
        if not np.array_equal(got[t].view(np.uint32), want.view(np.uint32)):
            raise SystemExit(f"{board_name}: the streamed output of hop {t} is not the windowed program's")
    return {"board": board_name, "window": instructions(whole, "instructions"),
            "hop_mean": instructions(stream, "instructions") // hops, "hop_max": instructions(stream, "max instructions"),
            "arena_window": sum(windowed.arena_bytes.values()), "arena_stream": sum(streamed.arena_bytes.values())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", default="corstone300,mps2_an386,mps2_an385")
    parser.add_argument("--hops", type=int, default=60)
    args = parser.parse_args()
    if args.hops < FRAMES:
        parser.error(f"--hops must be at least {FRAMES} (one whole window)")
    print("| board | whole window | per hop (mean / max) | arena window / stream |\n|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.boards.split(","):
            r = measure(name, args.hops, Path(tmp))
            print(f"| {r['board']} | {r['window']:,} | {r['hop_mean']:,} / {r['hop_max']:,} | "
                  f"{r['arena_window']:,} / {r['arena_stream']:,} B |")


if __name__ == "__main__":
    main()
