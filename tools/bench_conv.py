#!/usr/bin/env python3
"""Instruction counts of single conv2d / depthwise_conv2d / fully_connected programs (QEMU, exact).

    ./scons em_run board=B && .venv/bin/python tools/bench_conv.py [--board B ...]
                                                [--only NAME ...] [--mlperf] [--json FILE]
                                                [--dtype int8 int16]

Each layer is one op (compiler.ir graph -> compiler.planner -> compiler.writer, the board's
best tier) run by build/<board>/em_run.elf in QEMU (-icount, see /work/shared/MEASURING.md);
the output is checked against compiler.reference byte for byte, and the "instructions:" line of
em_run (the counter around invoke) is reported with MACs per instruction. Each layer runs
twice: the counts must match. --mlperf adds the conv / FC layer shapes of the four MLPerf Tiny
models (MLPERF_LAYERS); --json writes {board: {layer: instructions}} ({board}-int16 for
--dtype int16: the layers with int16 activations, A16W8).
"""
from __future__ import annotations

import argparse
import json
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
from ember_build.board import emulated_boards, load_board

# name: (input NHWC, kind, kernel (kh, kw), c_out, stride, padding (t, b, l, r))
LAYERS = {
    "dw3x3_dscnn_25x5x64_pad1": ((1, 25, 5, 64), "depthwise_conv2d", (3, 3), 64, (1, 1), (1, 1, 1, 1)),
    "dw3x3_s2_48x48x8": ((1, 48, 48, 8), "depthwise_conv2d", (3, 3), 8, (2, 2), (1, 1, 1, 1)),
    "conv1x1_64to64_25x5": ((1, 25, 5, 64), "conv2d", (1, 1), 64, (1, 1), (0, 0, 0, 0)),
    "conv3x3_3to16_32x32_pad1": ((1, 32, 32, 3), "conv2d", (3, 3), 16, (1, 1), (1, 1, 1, 1)),
    "conv10x4_s2_1to64_49x10": ((1, 49, 10, 1), "conv2d", (10, 4), 64, (2, 2), (4, 5, 1, 1)),
    "conv3x3_16to16_32x32_pad1": ((1, 32, 32, 16), "conv2d", (3, 3), 16, (1, 1), (1, 1, 1, 1)),
}

# The conv2d and fully_connected shapes of the MLPerf Tiny models (one of each distinct shape).
# FC entries: name: ((1, n_in), "fully_connected", None, n_out, None, None).
MLPERF_LAYERS = {
    "ds_conv10x4_s2_1to64_49x10": ((1, 49, 10, 1), "conv2d", (10, 4), 64, (2, 2), (4, 5, 1, 1)),
    "ds_pw_64to64_25x5": ((1, 25, 5, 64), "conv2d", (1, 1), 64, (1, 1), (0, 0, 0, 0)),
    "ds_fc_64to12": ((1, 64), "fully_connected", None, 12, None, None),
    "rn_conv3x3_3to16_32x32": ((1, 32, 32, 3), "conv2d", (3, 3), 16, (1, 1), (1, 1, 1, 1)),
    "rn_conv3x3_16to16_32x32": ((1, 32, 32, 16), "conv2d", (3, 3), 16, (1, 1), (1, 1, 1, 1)),
    "rn_conv3x3_s2_16to32_32x32": ((1, 32, 32, 16), "conv2d", (3, 3), 32, (2, 2), (1, 1, 1, 1)),
    "rn_conv3x3_32to32_16x16": ((1, 16, 16, 32), "conv2d", (3, 3), 32, (1, 1), (1, 1, 1, 1)),
    "rn_conv1x1_s2_16to32_32x32": ((1, 32, 32, 16), "conv2d", (1, 1), 32, (2, 2), (0, 0, 0, 0)),
    "rn_conv3x3_s2_32to64_16x16": ((1, 16, 16, 32), "conv2d", (3, 3), 64, (2, 2), (1, 1, 1, 1)),
    "rn_conv3x3_64to64_8x8": ((1, 8, 8, 64), "conv2d", (3, 3), 64, (1, 1), (1, 1, 1, 1)),
    "rn_conv1x1_s2_32to64_16x16": ((1, 16, 16, 32), "conv2d", (1, 1), 64, (2, 2), (0, 0, 0, 0)),
    "rn_fc_64to10": ((1, 64), "fully_connected", None, 10, None, None),
    "mn_conv3x3_s2_3to8_96x96": ((1, 96, 96, 3), "conv2d", (3, 3), 8, (2, 2), (1, 1, 1, 1)),
    "mn_pw_8to16_48x48": ((1, 48, 48, 8), "conv2d", (1, 1), 16, (1, 1), (0, 0, 0, 0)),
    "mn_pw_16to32_24x24": ((1, 24, 24, 16), "conv2d", (1, 1), 32, (1, 1), (0, 0, 0, 0)),
    "mn_pw_32to32_24x24": ((1, 24, 24, 32), "conv2d", (1, 1), 32, (1, 1), (0, 0, 0, 0)),
    "mn_pw_32to64_12x12": ((1, 12, 12, 32), "conv2d", (1, 1), 64, (1, 1), (0, 0, 0, 0)),
    "mn_pw_64to64_12x12": ((1, 12, 12, 64), "conv2d", (1, 1), 64, (1, 1), (0, 0, 0, 0)),
    "mn_pw_64to128_6x6": ((1, 6, 6, 64), "conv2d", (1, 1), 128, (1, 1), (0, 0, 0, 0)),
    "mn_pw_128to128_6x6": ((1, 6, 6, 128), "conv2d", (1, 1), 128, (1, 1), (0, 0, 0, 0)),
    "mn_pw_128to256_3x3": ((1, 3, 3, 128), "conv2d", (1, 1), 256, (1, 1), (0, 0, 0, 0)),
    "mn_pw_256to256_3x3": ((1, 3, 3, 256), "conv2d", (1, 1), 256, (1, 1), (0, 0, 0, 0)),
    "mn_fc_256to2": ((1, 256), "fully_connected", None, 2, None, None),
    "ae_fc_640to128": ((1, 640), "fully_connected", None, 128, None, None),
    "ae_fc_128to128": ((1, 128), "fully_connected", None, 128, None, None),
    "ae_fc_128to8": ((1, 128), "fully_connected", None, 8, None, None),
    "ae_fc_8to128": ((1, 8), "fully_connected", None, 128, None, None),
    "ae_fc_128to640": ((1, 128), "fully_connected", None, 640, None, None),
}
ALL_LAYERS = {**LAYERS, **MLPERF_LAYERS}

# Board -> the CPU whose best tier its em_run runs.
BOARDS = [b.name for b in emulated_boards()]  # every QEMU board of bsp/


def layer_graph(name: str, rng: np.random.Generator, dtype: str = "int8"):
    """The layer's one-op graph and its MACs; `dtype` int16: A16W8 (int16 activations, zero
    points 0, int8 weights)."""
    shape, kind, kernel, c_out, stride, padding = ALL_LAYERS[name]
    c_in = shape[-1]
    in_zp, out_zp = (-128, 3) if dtype == "int8" else (0, 0)
    if kind == "fully_connected":
        return fc_graph(shape, c_out, in_zp, out_zp, rng, dtype)
    kh, kw = kernel
    if kind == "conv2d":
        w = rng.integers(-128, 128, size=(c_out, kh, kw, c_in), dtype=np.int8)
        taps = kh * kw * c_in
    else:
        w = rng.integers(-128, 128, size=(kh, kw, c_out), dtype=np.int8)
        taps = kh * kw
    spread = float(np.log2((0.012 if dtype == "int8" else 0.008) / np.sqrt(taps)))
    reals = 2.0 ** rng.uniform(spread - 1.0, spread + 1.0, size=c_out)
    pairs = [quantize_multiplier(float(r)) for r in reals]
    bias = rng.integers(-3000, 3000, size=c_out, dtype=np.int32) * (1 if dtype == "int8" else 256)
    lo, hi = _range(dtype)
    attrs = dict(stride=stride, dilation=(1, 1), padding=padding, input_zero_point=in_zp,
                 output_offset=out_zp, activation_min=lo, activation_max=hi,
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
        "x": Tensor("x", dtype, shape, Quant.per_tensor(0.05, in_zp)),
        "w": Tensor("w", "int8", w.shape, data=w),
        "b": Tensor("b", "int32", bias.shape, data=bias),
        "y": Tensor("y", dtype, out_shape, Quant.per_tensor(0.1, out_zp)),
    }
    graph = Graph(tensors, [Op(kind, ["x", "w", "b"], ["y"], attrs, origin="bench_conv")], ["x"], ["y"])
    plan_memory(graph, Region("sram", 1 << 20))
    macs = oh * ow * c_out * kh * kw * (c_in if kind == "conv2d" else 1)
    return graph, macs


def _range(dtype: str) -> tuple[int, int]:
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def fc_graph(shape: tuple[int, int], n_out: int, in_zp: int, out_zp: int, rng: np.random.Generator,
             dtype: str = "int8"):
    n_in = shape[1]
    w = rng.integers(-128, 128, size=(n_out, n_in), dtype=np.int8)
    spread = float(np.log2((0.012 if dtype == "int8" else 0.008) / np.sqrt(n_in)))
    pairs = [quantize_multiplier(float(r)) for r in 2.0 ** rng.uniform(spread - 1.0, spread + 1.0, size=n_out)]
    bias = rng.integers(-3000, 3000, size=n_out, dtype=np.int32) * (1 if dtype == "int8" else 256)
    lo, hi = _range(dtype)
    attrs = dict(output_offset=out_zp, activation_min=lo, activation_max=hi,
                 multiplier=np.array([p for p, _ in pairs], np.int32),
                 shift=np.array([s for _, s in pairs], np.int32))
    tensors = {
        "x": Tensor("x", dtype, shape, Quant.per_tensor(0.05, in_zp)),
        "w": Tensor("w", "int8", w.shape, data=w),
        "b": Tensor("b", "int32", bias.shape, data=bias),
        "y": Tensor("y", dtype, (shape[0], n_out), Quant.per_tensor(0.1, out_zp)),
    }
    graph = Graph(tensors, [Op("fully_connected", ["x", "w", "b"], ["y"], attrs, origin="bench_conv")], ["x"], ["y"])
    plan_memory(graph, Region("sram", 1 << 20))
    return graph, n_in * n_out


def run_once(elf: Path, graph: Graph, x: np.ndarray, work: Path, board: str = "corstone300") -> tuple[int, np.ndarray]:
    from ember_build.qemu import emulator_command

    (work / "p.embr").write_bytes(write_program(graph, Target(load_board(board).cpu)))
    (work / "in.bin").write_bytes(x.tobytes())
    cmd = emulator_command(load_board(board), elf, "p.embr --input in.bin --output out.bin")
    result = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        raise SystemExit(f"em_run failed ({result.returncode}):\n{result.stdout}{result.stderr}")
    count = next(int(line.split()[1]) for line in result.stdout.splitlines()
                 if line.startswith("instructions:"))
    return count, np.frombuffer((work / "out.bin").read_bytes(), graph.tensors["y"].dtype)


def measure(board: str, elf: Path, names: list[str], dtype: str = "int8") -> dict[str, tuple[int, int]]:
    """{layer: (instructions, MACs)} of each layer on `board`, checked against the reference."""
    results = {}
    for name in names:
        rng = np.random.default_rng(sum(map(ord, name)))
        graph, macs = layer_graph(name, rng, dtype)
        lo, hi = _range(dtype)
        x = rng.integers(lo, hi + 1, size=ALL_LAYERS[name][0], dtype=np.int64).astype(dtype)
        want = reference.run(graph, [x])["y"]
        with tempfile.TemporaryDirectory() as tmp:
            counts = []
            for _ in range(2):
                count, got = run_once(elf, graph, x, Path(tmp), board)
                if not np.array_equal(got.reshape(want.shape), want):
                    raise SystemExit(f"{board} {name}: output differs from compiler.reference")
                counts.append(count)
        if counts[0] != counts[1]:
            raise SystemExit(f"{board} {name}: counts differ between runs: {counts}")
        results[name] = (counts[0], macs)
        print(f"| {board} | {name} | {dtype} | {counts[0]:,} | {macs:,} | {macs / counts[0]:.2f} |", flush=True)
    return results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--board", nargs="*", default=["corstone300"], choices=BOARDS)
    ap.add_argument("--elf", type=Path, default=None, help="em_run firmware (one board only)")
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--mlperf", action="store_true", help="the MLPerf Tiny conv / FC layers")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--dtype", nargs="*", default=["int8"], choices=["int8", "int16"],
                    help="activations: int8, int16 (A16W8), or both")
    args = ap.parse_args()
    names = args.only or (list(MLPERF_LAYERS) if args.mlperf else list(LAYERS))
    print("| board | layer | activations | instructions | MACs | MAC/instr |")
    print("|---|---|---|---:|---:|---:|")
    table = {}
    for board in args.board:
        elf = args.elf or BUILD_ROOT / board / "em_run.elf"
        for dtype in args.dtype:
            key = board if dtype == "int8" else f"{board}-{dtype}"
            table[key] = {name: n for name, (n, _) in measure(board, elf, names, dtype).items()}
    if args.json is not None:
        args.json.write_text(json.dumps(table, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
