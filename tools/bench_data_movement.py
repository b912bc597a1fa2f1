#!/usr/bin/env python3
"""Instruction counts of single data-movement programs on a QEMU board (exact, MEASURING.md).

    ./scons em_run board=corstone300 && .venv/bin/python -m tools.bench_data_movement [--board corstone300]

Each case is one op on an int8 map (compiler.ir graph -> planner -> writer) run by the board's
em_run; the output is checked against compiler.reference byte for byte, and each case runs twice
(the counts must match). Reports instructions and instructions per output byte.
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np


from compiler.fixedpoint import quantize_multiplier
from compiler.ir import Graph, Op, Quant, Tensor
from compiler.planner import Region, plan_memory
from compiler.program import Program
from compiler.target import Target
from ember_build.board import emulated_boards, load_board
from tools.bench_float import count_twice

BOARDS = [b.name for b in emulated_boards()]  # every QEMU board of bsp/
# name: (kind, input shape, output shape, attrs)
CASES = {
    "transpose_nhwc_to_nchw_24x24x16": ("transpose", (1, 24, 24, 16), (1, 16, 24, 24), {"perm": [0, 3, 1, 2]}),
    "transpose_swap_hw_12x12x64": ("transpose", (1, 12, 12, 64), (1, 12, 12, 64), {"perm": [0, 2, 1, 3]}),
    "slice_every_2nd_column_24x24x16": ("slice", (1, 24, 24, 16), (1, 24, 12, 16),
                                        {"begin": [0, 0, 0, 0], "step": [1, 1, 2, 1], "size": [1, 24, 12, 16]}),
    "pad_1_around_24x24x16": ("pad", (1, 24, 24, 16), (1, 26, 26, 16),
                              {"before": [0, 1, 1, 0], "after": [0, 1, 1, 0], "value": -3}),
    "upsample_x2_12x12x16": ("upsample_nearest", (1, 12, 12, 16), (1, 24, 24, 16), {"scale_h": 2, "scale_w": 2}),
    "upsample_x2_24x24x3": ("upsample_nearest", (1, 24, 24, 3), (1, 48, 48, 3), {"scale_h": 2, "scale_w": 2}),
    "reshape_aliased_24x24x16": ("reshape", (1, 24, 24, 16), (1, 9216), {}),
    "requantize_9216": ("requantize", (9216,), (9216,), dict(zip(
        ("output_multiplier", "output_shift"), quantize_multiplier(0.37)), input_offset=128, output_offset=-5)),
}


def measure(board: str, name: str, workdir: Path) -> int:
    kind, in_shape, out_shape, attrs = CASES[name]
    quant = Quant.per_tensor(0.05, 0)
    graph = Graph({"x": Tensor("x", "int8", in_shape, quant), "y": Tensor("y", "int8", out_shape, quant)},
                  [Op(kind, ["x"], ["y"], attrs)], ["x"], ["y"])
    program = Program(graph, Target(load_board(board).cpu), name, plan_memory(graph, Region("sram", 1 << 20)))
    x = np.random.default_rng(1).integers(-128, 128, size=in_shape).astype(np.int8)
    program.save(workdir / "p.embr")
    (workdir / "x.bin").write_bytes(x.tobytes())
    count = count_twice(board, workdir)  # two identical runs, one count
    output = (workdir / "y.bin").read_bytes()
    assert np.array_equal(np.frombuffer(output, np.int8), program.run_reference(x)[0].reshape(-1)), name
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default="corstone300", choices=BOARDS)
    args = parser.parse_args()
    print(f"| case ({args.board}) | instructions | per output byte |\n|---|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, (_, _, out_shape, _) in CASES.items():
            n = measure(args.board, name, Path(tmp))
            print(f"| {name} | {n:,} | {n / np.prod(out_shape):.2f} |")


if __name__ == "__main__":
    main()
