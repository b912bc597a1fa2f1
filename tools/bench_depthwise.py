#!/usr/bin/env python3
"""Instruction counts (QEMU -icount, exact: /work/shared/MEASURING.md) of single-op programs on
each tier's board: the depthwise layers of DS-CNN and MobileNetV1-0.25 (96x96), the global
average pools of DS-CNN / ResNet-8 / MobileNet, ResNet-8's residual adds, a max pool and a mul.

    ./scons em_run board=corstone300 && ./scons em_run board=mps2_an386 && ./scons em_run board=mps2_an385
    .venv/bin/python tools/bench_depthwise.py [--boards corstone300 mps2_an386 mps2_an385]
                                              [--only SUBSTRING ...] [--json out.json]

For each board, the SCons-built em_run firmware (build/<board>/em_run.elf) runs the programs;
each layer's output is checked against compiler.reference byte for byte, and each layer runs
twice: the counts must match. Prints one Markdown table per board (instructions, MACs or
elements, per instruction).
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from ember_build.paths import BUILD_ROOT


from compiler import reference
from compiler.fixedpoint import quantize_multiplier
from compiler.ir import Graph, Op, Quant, Tensor
from compiler.planner import Region, plan_memory
from compiler.target import Target
from compiler.writer import write_program
from ember_build.board import load_board, one_board_per_tier

BOARDS = [b.name for b in one_board_per_tier()]  # a QEMU board of each tier: corstone300, mps2_an386, mps2_an385

# name: (input NHWC, stride, padding (t, b, l, r)); depthwise 3x3, multiplier 1. Stride-2 layers
# pad like TFLite's "same" on even sizes (0, 1, 0, 1), as the MLPerf Tiny model does.
DEPTHWISE = {
    "ds_cnn dw 25x5x64": ((1, 25, 5, 64), (1, 1), (1, 1, 1, 1)),
    "mbv1 dw 48x48x8": ((1, 48, 48, 8), (1, 1), (1, 1, 1, 1)),
    "mbv1 dw 48x48x16 s2": ((1, 48, 48, 16), (2, 2), (0, 1, 0, 1)),
    "mbv1 dw 24x24x32": ((1, 24, 24, 32), (1, 1), (1, 1, 1, 1)),
    "mbv1 dw 24x24x32 s2": ((1, 24, 24, 32), (2, 2), (0, 1, 0, 1)),
    "mbv1 dw 12x12x64": ((1, 12, 12, 64), (1, 1), (1, 1, 1, 1)),
    "mbv1 dw 12x12x64 s2": ((1, 12, 12, 64), (2, 2), (0, 1, 0, 1)),
    "mbv1 dw 6x6x128 (x5)": ((1, 6, 6, 128), (1, 1), (1, 1, 1, 1)),
    "mbv1 dw 6x6x128 s2": ((1, 6, 6, 128), (2, 2), (0, 1, 0, 1)),
    "mbv1 dw 3x3x256": ((1, 3, 3, 256), (1, 1), (1, 1, 1, 1)),
}
# name: (kind, input NHWC, kernel, stride)
POOLS = {
    "ds_cnn avgpool 25x5x64": ("avg", (1, 25, 5, 64), (25, 5), (1, 1)),
    "resnet8 avgpool 8x8x64": ("avg", (1, 8, 8, 64), (8, 8), (1, 1)),
    "mbv1 avgpool 3x3x256": ("avg", (1, 3, 3, 256), (3, 3), (1, 1)),
    "maxpool 2x2 s2 32x32x16": ("max", (1, 32, 32, 16), (2, 2), (2, 2)),
}
# name: (kind, shape)
ELEMENTWISE = {
    "resnet8 add 32x32x16": ("add", (1, 32, 32, 16)),
    "resnet8 add 16x16x32": ("add", (1, 16, 16, 32)),
    "resnet8 add 8x8x64": ("add", (1, 8, 8, 64)),
    "mul 16x16x32": ("mul", (1, 16, 16, 32)),
}


def _planned(tensors: list[Tensor], op: Op, inputs: list[str]) -> Graph:
    g = Graph({t.name: t for t in tensors}, [op], inputs, [op.outputs[0]])
    plan_memory(g, Region("sram", 1 << 20))
    return g


def depthwise_graph(name: str, rng: np.random.Generator) -> tuple[Graph, int]:
    shape, stride, padding = DEPTHWISE[name]
    c = shape[3]
    in_zp, out_zp = -128, 3
    w = rng.integers(-127, 128, size=(3, 3, c), dtype=np.int8)  # the quantizer's -127..127
    spread = float(np.log2(0.012 / 3.0))
    pairs = [quantize_multiplier(float(r)) for r in 2.0 ** rng.uniform(spread - 1, spread + 1, size=c)]
    attrs = dict(stride=stride, dilation=(1, 1), padding=padding, input_zero_point=in_zp,
                 output_offset=out_zp, activation_min=-128, activation_max=127, depth_multiplier=1,
                 multiplier=np.array([m for m, _ in pairs], np.int32),
                 shift=np.array([s for _, s in pairs], np.int32))
    oh = reference.output_size(shape[1], 3, stride[0], 1, *padding[:2])
    ow = reference.output_size(shape[2], 3, stride[1], 1, *padding[2:])
    bias = rng.integers(-3000, 3000, size=c, dtype=np.int32)
    tensors = [Tensor("x", "int8", shape, Quant.per_tensor(0.05, in_zp)), Tensor("w", "int8", w.shape, data=w),
               Tensor("b", "int32", bias.shape, data=bias),
               Tensor("y", "int8", (1, oh, ow, c), Quant.per_tensor(0.1, out_zp))]
    op = Op("depthwise_conv2d", ["x", "w", "b"], ["y"], attrs, origin="bench_depthwise")
    return _planned(tensors, op, ["x"]), oh * ow * c * 9


def pool_graph(name: str, rng: np.random.Generator) -> tuple[Graph, int]:
    kind, shape, kernel, stride = POOLS[name]
    n, h, w, c = shape
    oh, ow = (h - kernel[0]) // stride[0] + 1, (w - kernel[1]) // stride[1] + 1
    attrs = dict(kernel=kernel, stride=stride, padding=(0, 0, 0, 0), count_include_pad=True,
                 zero_point=-128 if kind == "avg" else 0, activation_min=-128, activation_max=127)
    tensors = [Tensor("x", "int8", shape, Quant.per_tensor(0.05, attrs["zero_point"])),
               Tensor("y", "int8", (n, oh, ow, c), Quant.per_tensor(0.05, attrs["zero_point"]))]
    return _planned(tensors, Op(f"{kind}_pool2d", ["x"], ["y"], attrs), ["x"]), h * w * c


def elementwise_graph(name: str, rng: np.random.Generator) -> tuple[Graph, int]:
    kind, shape = ELEMENTWISE[name]
    if kind == "add":
        ma, sa = quantize_multiplier(0.5)
        mb, sb = quantize_multiplier(0.31)
        mo, so = quantize_multiplier(2 * 0.05 / ((1 << reference.ADD_LEFT_SHIFT) * 0.07))
        attrs = dict(a_offset=5, a_multiplier=ma, a_shift=sa, b_offset=-3, b_multiplier=mb, b_shift=sb,
                     output_offset=-7, output_multiplier=mo, output_shift=so, activation_min=-128,
                     activation_max=127)
    else:
        mo, so = quantize_multiplier(0.0071)
        attrs = dict(a_offset=5, b_offset=-3, output_offset=-7, output_multiplier=mo, output_shift=so,
                     activation_min=-128, activation_max=127)
    c = rng.integers(-128, 128, size=shape, dtype=np.int8)
    tensors = [Tensor("x", "int8", shape, Quant.per_tensor(0.05, 0)),
               Tensor("c", "int8", shape, Quant.per_tensor(0.05, 0), data=c),
               Tensor("y", "int8", shape, Quant.per_tensor(0.07, 0))]
    return _planned(tensors, Op(kind, ["x", "c"], ["y"], attrs), ["x"]), int(np.prod(shape))


def layers() -> dict[str, tuple]:
    table = {name: (depthwise_graph, "MAC") for name in DEPTHWISE}
    table.update({name: (pool_graph, "elem") for name in POOLS})
    table.update({name: (elementwise_graph, "elem") for name in ELEMENTWISE})
    return table


def run_once(board: str, elf: Path, data: bytes, x: np.ndarray, work: Path) -> tuple[int, np.ndarray]:
    from ember_build.board import load_board
    from ember_build.qemu import emulator_command

    (work / "p.embr").write_bytes(data)
    (work / "in.bin").write_bytes(np.ascontiguousarray(x).tobytes())
    cmd = emulator_command(load_board(board), elf, "p.embr --input in.bin --output out.bin")
    result = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        raise SystemExit(f"em_run failed on {board} ({result.returncode}):\n{result.stdout}{result.stderr}")
    count = int(re.search(r"instructions: (\d+)", result.stdout).group(1))
    return count, np.frombuffer((work / "out.bin").read_bytes(), np.int8)


def measure(board: str, names: list[str], work: Path) -> dict[str, dict]:
    elf = BUILD_ROOT / board / "em_run.elf"
    if not elf.exists():
        raise SystemExit(f"no em_run firmware for {board}: build it with `./scons em_run board={board}`")
    target = Target(load_board(board).cpu)
    results = {}
    for name in names:
        make, unit = layers()[name]
        rng = np.random.default_rng(sum(map(ord, name)))
        graph, work_items = make(name, rng)
        x = rng.integers(-128, 128, size=graph.tensors["x"].shape, dtype=np.int8)
        want = reference.run(graph, [x])["y"]
        data = write_program(graph, target)
        counts = []
        for _ in range(2):
            count, got = run_once(board, elf, data, x, work)
            if not np.array_equal(got.reshape(want.shape), want):
                raise SystemExit(f"{board} {name}: output differs from compiler.reference")
            counts.append(count)
        if counts[0] != counts[1]:
            raise SystemExit(f"{board} {name}: counts differ between runs: {counts}")
        results[name] = {"instructions": counts[0], "work": work_items, "unit": unit}
        print(f"| {name} | {counts[0]:,} | {work_items:,} {unit} | {work_items / counts[0]:.3f} |", flush=True)
    return results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--boards", nargs="*", default=BOARDS)
    ap.add_argument("--only", nargs="*", default=None, help="substrings of layer names")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    names = [n for n in layers() if args.only is None or any(s in n for s in args.only)]
    out = {}
    for board in args.boards:
        print(f"\n### {board} ({load_board(board).tier})\n")
        print("| layer | instructions | work | per instr |")
        print("|---|---:|---:|---:|")
        with tempfile.TemporaryDirectory(prefix=f"bench_dw_{board}_") as tmp:
            out[board] = measure(board, names, Path(tmp))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
