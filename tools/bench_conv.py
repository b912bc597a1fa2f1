#!/usr/bin/env python3
"""Instruction counts of single conv2d / depthwise_conv2d programs on Cortex-M55 (QEMU, exact).

    ./scons em_run && .venv/bin/python tools/bench_conv.py [--elf build/corstone300/em_run.elf]
                                                            [--markdown] [--only NAME ...]

Each layer is one op (compiler.ir graph -> compiler.planner -> compiler.writer, tier MVE) run by
em_run in QEMU mps3-an547 (-icount, see /work/shared/MEASURING.md); the output is checked
against compiler.reference byte for byte, and the "instructions:" line of em_run (the counter
around invoke) is reported with MACs per instruction. Each layer runs twice: the counts must match.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "site_scons"))

from compiler import reference  # noqa: E402
from compiler.fixedpoint import quantize_multiplier  # noqa: E402
from compiler.ir import Graph, Op, Quant, Tensor  # noqa: E402
from compiler.planner import Region, plan_memory  # noqa: E402
from compiler.target import Target  # noqa: E402
from compiler.writer import write_program  # noqa: E402

# name: (input NHWC, kind, kernel (kh, kw), c_out, stride, padding (t, b, l, r))
LAYERS = {
    "dw3x3_dscnn_25x5x64_pad1": ((1, 25, 5, 64), "depthwise_conv2d", (3, 3), 64, (1, 1), (1, 1, 1, 1)),
    "dw3x3_s2_48x48x8": ((1, 48, 48, 8), "depthwise_conv2d", (3, 3), 8, (2, 2), (1, 1, 1, 1)),
    "conv1x1_64to64_25x5": ((1, 25, 5, 64), "conv2d", (1, 1), 64, (1, 1), (0, 0, 0, 0)),
    "conv3x3_3to16_32x32_pad1": ((1, 32, 32, 3), "conv2d", (3, 3), 16, (1, 1), (1, 1, 1, 1)),
    "conv10x4_s2_1to64_49x10": ((1, 49, 10, 1), "conv2d", (10, 4), 64, (2, 2), (4, 5, 1, 1)),
    "conv3x3_16to16_32x32_pad1": ((1, 32, 32, 16), "conv2d", (3, 3), 16, (1, 1), (1, 1, 1, 1)),
}


def layer_graph(name: str, rng: np.random.Generator):
    shape, kind, (kh, kw), c_out, stride, padding = LAYERS[name]
    c_in = shape[3]
    in_zp, out_zp = -128, 3
    if kind == "conv2d":
        w = rng.integers(-128, 128, size=(c_out, kh, kw, c_in), dtype=np.int8)
        taps = kh * kw * c_in
    else:
        w = rng.integers(-128, 128, size=(kh, kw, c_out), dtype=np.int8)
        taps = kh * kw
    spread = float(np.log2(0.012 / np.sqrt(taps)))
    reals = 2.0 ** rng.uniform(spread - 1.0, spread + 1.0, size=c_out)
    pairs = [quantize_multiplier(float(r)) for r in reals]
    bias = rng.integers(-3000, 3000, size=c_out, dtype=np.int32)
    attrs = dict(stride=stride, dilation=(1, 1), padding=padding, input_zero_point=in_zp,
                 output_offset=out_zp, activation_min=-128, activation_max=127,
                 multiplier=np.array([p for p, _ in pairs], np.int32),
                 shift=np.array([s for _, s in pairs], np.int32))
    if kind == "conv2d":
        attrs["groups"] = 1
    else:
        attrs["depth_multiplier"] = 1
    oh = reference.output_size(shape[1], kh, stride[0], 1, *padding[:2])
    ow = reference.output_size(shape[2], kw, stride[1], 1, *padding[2:])
    out_shape = (shape[0], oh, ow, c_out)
    tensors = {
        "x": Tensor("x", "int8", shape, Quant.per_tensor(0.05, in_zp)),
        "w": Tensor("w", "int8", w.shape, data=w),
        "b": Tensor("b", "int32", bias.shape, data=bias),
        "y": Tensor("y", "int8", out_shape, Quant.per_tensor(0.1, out_zp)),
    }
    graph = Graph(tensors, [Op(kind, ["x", "w", "b"], ["y"], attrs, origin="bench_conv")], ["x"], ["y"])
    plan_memory(graph, Region("sram", 1 << 20))
    macs = oh * ow * c_out * kh * kw * (c_in if kind == "conv2d" else 1)
    return graph, macs


def run_once(elf: Path, graph: Graph, x: np.ndarray, work: Path) -> tuple[int, np.ndarray]:
    from ember_build.board import load_board
    from ember_build.qemu import emulator_command

    (work / "p.embr").write_bytes(write_program(graph, Target("cortex-m55")))
    (work / "in.bin").write_bytes(x.tobytes())
    cmd = emulator_command(load_board("corstone300"), elf, "p.embr --input in.bin --output out.bin")
    result = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        raise SystemExit(f"em_run failed ({result.returncode}):\n{result.stdout}{result.stderr}")
    count = next(int(line.split()[1]) for line in result.stdout.splitlines()
                 if line.startswith("instructions:"))
    return count, np.frombuffer((work / "out.bin").read_bytes(), np.int8)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--elf", type=Path, default=REPO / "build/corstone300/em_run.elf")
    ap.add_argument("--only", nargs="*", default=None)
    args = ap.parse_args()
    names = args.only or list(LAYERS)
    print("| layer | instructions | MACs | MAC/instr |")
    print("|---|---:|---:|---:|")
    for name in names:
        rng = np.random.default_rng(sum(map(ord, name)))
        graph, macs = layer_graph(name, rng)
        x = rng.integers(-128, 128, size=LAYERS[name][0], dtype=np.int8)
        want = reference.run(graph, [x])["y"]
        with tempfile.TemporaryDirectory() as tmp:
            counts = []
            for _ in range(2):
                count, got = run_once(args.elf, graph, x, Path(tmp))
                if not np.array_equal(got.reshape(want.shape), want):
                    raise SystemExit(f"{name}: output differs from compiler.reference")
                counts.append(count)
        if counts[0] != counts[1]:
            raise SystemExit(f"{name}: counts differ between runs: {counts}")
        print(f"| {name} | {counts[0]:,} | {macs:,} | {macs / counts[0]:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
