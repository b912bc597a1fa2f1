#!/usr/bin/env python3
"""Instruction counts of single lut programs, one table and one table per channel, on a QEMU
board (exact: -icount, see /work/shared/MEASURING.md).

    ./scons em_run board=corstone300 && .venv/bin/python tools/bench_lut.py \
        [--board corstone300] [--tier scalar] [--elf build/corstone300-scalar/em_run.elf]

Each case is one lut over a program input (compiler.ir graph -> planner -> writer, stamped for
the board's tier, or --tier's for a firmware built with `scons tier=...`); the output is checked
against compiler.reference byte for byte and each case runs twice (the counts must match).
Reports instructions and instructions per element; a per-channel case's shape and axis choose
em_lut_channels_s8's path (compiler/ops/lut.py: its path rule).
"""
from __future__ import annotations

import argparse
import subprocess
import tempfile
from pathlib import Path

import numpy as np
from ember_build.paths import BUILD_ROOT


from compiler import kernel_variants, reference
from compiler.ir import Graph, Op, Quant, Tensor
from compiler.planner import Region, plan_memory
from compiler.target import Target
from compiler.writer import write_program
from ember_build.board import load_board
from ember_build.qemu import emulator_command

# name: (input shape, channels axis or None for one [256] table)
CASES = {
    "one table 1x16 (about the invoke's fixed cost)": ((1, 16), None),
    "one table 1x16x16x32": ((1, 16, 16, 32), None),
    "per channel, NHWC 1x16x16x32 (channel last)": ((1, 16, 16, 32), -1),
    "per channel, NHWC 1x32x32x3 (channel last, C 3)": ((1, 32, 32, 3), -1),
    "per channel, NHWC 1x4x4x600 (channel last, C 600)": ((1, 4, 4, 600), -1),
    "per channel, NCHW 1x32x16x16 (runs of 256)": ((1, 32, 16, 16), 1),
    "per channel, 1x256x17 (runs of 17)": ((1, 256, 17), 1),
    "per channel, 1x512x8 (runs of 8)": ((1, 512, 8), 1),
}


def graph(shape: tuple, axis: int | None, rng: np.random.Generator) -> Graph:
    quant = Quant.per_tensor(0.05, 0)
    table_shape = (256,) if axis is None else (shape[axis], 256)
    table = rng.integers(-128, 128, size=table_shape).astype(np.int8)
    g = Graph({"x": Tensor("x", "int8", shape, quant), "t": Tensor("t", "int8", table_shape, data=table),
               "y": Tensor("y", "int8", shape, quant)},
              [Op("lut", ["x", "t"], ["y"], {} if axis is None else {"axis": axis})], ["x"], ["y"])
    plan_memory(g, Region("sram", 1 << 20))
    return g


def measure(board: str, target: Target, elf: Path, name: str, workdir: Path) -> tuple[int, int, str]:
    shape, axis = CASES[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    g = graph(shape, axis, rng)
    x = rng.integers(-128, 128, size=shape).astype(np.int8)
    want = reference.run(g, [x])["y"]
    (workdir / "p.embr").write_bytes(write_program(g, target))
    (workdir / "in.bin").write_bytes(x.tobytes())
    counts = []
    for _ in range(2):
        cmd = emulator_command(load_board(board).for_tier(target.tier), elf, "p.embr --input in.bin --output out.bin")
        result = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True, timeout=600)
        if result.returncode != 0:
            raise SystemExit(f"{name}: em_run failed ({result.returncode}):\n{result.stdout}{result.stderr}")
        if not np.array_equal(np.frombuffer((workdir / "out.bin").read_bytes(), np.int8).reshape(shape), want):
            raise SystemExit(f"{name}: output differs from compiler.reference")
        counts.append(next(int(line.split()[1]) for line in result.stdout.splitlines()
                           if line.startswith("instructions:")))
    if counts[0] != counts[1]:
        raise SystemExit(f"{name}: counts differ between runs: {counts}")
    return counts[0], int(np.prod(shape)), kernel_variants.kernel_variant(g, g.ops[0], target.tier)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default="corstone300", help="a QEMU board (bsp/<board>/board.yaml)")
    parser.add_argument("--tier", default="", help="the firmware's tier when built with `scons tier=...`")
    parser.add_argument("--elf", type=Path, default=None, help="default: the board's (and tier's) em_run.elf")
    args = parser.parse_args()
    target = Target(load_board(args.board).cpu, args.tier)
    elf = args.elf or BUILD_ROOT / (args.board + (f"-{args.tier}" if args.tier else "")) / "em_run.elf"
    print(f"| case ({args.board}, {target.tier}) | path | instructions | per element |\n|---|---|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in CASES:
            n, elements, path = measure(args.board, target, elf, name, Path(tmp))
            print(f"| {name} | {path} | {n:,} | {n / elements:.2f} |", flush=True)


if __name__ == "__main__":
    main()
