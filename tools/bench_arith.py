#!/usr/bin/env python3
"""Instruction counts of single transpose_conv2d / batch_matmul / elementwise (add, mul, minimum,
maximum: each broadcast form) programs on a QEMU board (exact: -icount, see
/work/shared/MEASURING.md).

    ./scons em_run board=corstone300 && .venv/bin/python tools/bench_arith.py \
        [--board corstone300] [--target cortex-m55] [--elf build/corstone300/em_run.elf] [--only add]

Each layer is one op over a program input (compiler.ir graph -> planner -> writer, stamped for
--target's tier, which must be the firmware's); the output is checked against
compiler.reference byte for byte and the "instructions:" line of em_run is reported. Each layer
runs twice: the counts must match. A program the runner refuses (a broadcast an older runtime
had no kernel for) is reported as such, so the same table can be made before and after a change.
"""
from __future__ import annotations

import argparse
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

QUANT = Quant.per_tensor(0.05, -3)


def _tconv(rng, shape, c_out, kernel, stride, pads) -> tuple[Graph, int]:
    n, h, w, c_in = shape
    oh = reference.transpose_output_size(h, kernel[0], stride[0], pads[0], pads[1])
    ow = reference.transpose_output_size(w, kernel[1], stride[1], pads[2], pads[3])
    weights = rng.integers(-127, 128, (c_out, *kernel, c_in), dtype=np.int8)
    pairs = [quantize_multiplier(float(r)) for r in 2.0 ** rng.uniform(-14, -12, c_out)]
    attrs = dict(stride=stride, padding=pads, input_offset=3, output_offset=-2, activation_min=-128,
                 activation_max=127, multiplier=np.array([m for m, _ in pairs], np.int32),
                 shift=np.array([s for _, s in pairs], np.int32))
    tensors = {"x": Tensor("x", "int8", shape, QUANT), "w": Tensor("w", "int8", weights.shape, data=weights),
               "b": Tensor("b", "int32", (c_out,), data=rng.integers(-999, 999, c_out).astype(np.int32)),
               "y": Tensor("y", "int8", (n, oh, ow, c_out), QUANT)}
    graph = Graph(tensors, [Op("transpose_conv2d", ["x", "w", "b"], ["y"], attrs)], ["x"], ["y"])
    # MACs of the taps that exist (the gather form visits no zero-stuffed cell)
    return graph, n * h * w * kernel[0] * kernel[1] * c_in * c_out


def _bmm(rng, batches, m, k, n) -> tuple[Graph, int]:
    b = rng.integers(-128, 128, (batches, k, n), dtype=np.int8)
    multiplier, shift = quantize_multiplier(2.0 ** -13)
    attrs = dict(a_offset=5, b_offset=-7, output_offset=1, output_multiplier=multiplier, output_shift=shift,
                 activation_min=-128, activation_max=127)
    tensors = {"x": Tensor("x", "int8", (batches, m, k), QUANT), "b": Tensor("b", "int8", b.shape, data=b),
               "y": Tensor("y", "int8", (batches, m, n), QUANT)}
    return Graph(tensors, [Op("batch_matmul", ["x", "b"], ["y"], attrs)], ["x"], ["y"]), batches * m * k * n


def _elementwise_attrs(kind: str) -> dict:
    if kind == "add":
        (ma, sa), (mb, sb) = quantize_multiplier(0.4), quantize_multiplier(0.3)
        mo, so = quantize_multiplier(2.0 ** -reference.ADD_LEFT_SHIFT * 1.7)
        return dict(a_offset=3, a_multiplier=ma, a_shift=sa, b_offset=-5, b_multiplier=mb, b_shift=sb,
                    output_offset=-2, output_multiplier=mo, output_shift=so, activation_min=-128, activation_max=127)
    if kind == "mul":
        m, s = quantize_multiplier(2.0 ** -7)
        return dict(a_offset=3, b_offset=-5, output_offset=1, output_multiplier=m, output_shift=s,
                    activation_min=-128, activation_max=127)
    return {}


def _elementwise(rng, kind: str, shape, c_shape) -> tuple[Graph, int]:
    """x (program input, `shape`) op a constant of `c_shape`, NumPy broadcasting."""
    c = rng.integers(-128, 128, c_shape, dtype=np.int8)
    out = np.broadcast_shapes(tuple(shape), tuple(c_shape))
    tensors = {"x": Tensor("x", "int8", shape, QUANT), "c": Tensor("c", "int8", c.shape, QUANT, c),
               "y": Tensor("y", "int8", out, QUANT)}
    return Graph(tensors, [Op(kind, ["x", "c"], ["y"], _elementwise_attrs(kind))], ["x"], ["y"]), int(np.prod(out))


def _minimum(rng, shape) -> tuple[Graph, int]:
    return _elementwise(rng, "minimum", shape, (1, 1, 1, shape[-1]))


# (kind, x shape, constant shape): the fast paths (same shape, scalar, channel row) and general
# broadcasts (both operands broadcast, a middle axis, a per-row column)
ELEMENTWISE = [
    ("add", (1, 16, 16, 32), (1, 16, 16, 32)), ("add", (1, 16, 16, 32), (1,)), ("add", (1, 16, 16, 32), (32,)),
    ("add", (1, 16, 16, 1), (1, 1, 1, 32)), ("add", (1, 16, 16, 32), (1, 16, 1, 32)),
    ("add", (1, 16, 16, 32), (1, 16, 16, 1)),
    ("mul", (1, 16, 16, 32), (1, 16, 16, 32)), ("mul", (1, 16, 16, 32), (1,)), ("mul", (1, 16, 16, 32), (1, 1, 1, 32)),
    ("mul", (1, 16, 16, 1), (1, 1, 1, 32)), ("mul", (2, 1, 32, 16), (1, 16, 1, 16)),
    ("maximum", (1, 16, 16, 32), (1, 16, 16, 32)), ("maximum", (1, 16, 16, 32), (1,)),
    ("maximum", (1, 16, 16, 1), (1, 1, 1, 32)), ("maximum", (1, 16, 16, 32), (1, 16, 1, 32)),
]


def _name(kind: str, shape, c_shape) -> str:
    return f"{kind} {'x'.join(map(str, shape))} by {'x'.join(map(str, c_shape))}"


LAYERS = {
    "tconv 4x4/2 32->16 on 8x8 (pad 1)": lambda rng: _tconv(rng, (1, 8, 8, 32), 16, (4, 4), (2, 2), (1, 1, 1, 1)),
    "tconv 3x3/2 8->8 on 16x16 (pad 1, out_pad 1)": lambda rng: _tconv(rng, (1, 16, 16, 8), 8, (3, 3), (2, 2),
                                                                       (1, 0, 1, 0)),
    "bmm 4x(16x32 @ 32x16)": lambda rng: _bmm(rng, 4, 16, 32, 16),
    "bmm 1x(49x64 @ 64x49)": lambda rng: _bmm(rng, 1, 49, 64, 49),
    "minimum 1x16x16x32 by a channel vector": lambda rng: _minimum(rng, (1, 16, 16, 32)),
}
LAYERS.update({_name(*e): (lambda rng, e=e: _elementwise(rng, *e)) for e in ELEMENTWISE})


class Refused(Exception):
    """The runner refused the program (em_run's exit code and console)."""


def run_once(board: str, target: Target, elf: Path, graph: Graph, x: np.ndarray, work: Path) -> tuple[int, np.ndarray]:
    from ember_build.board import load_board
    from ember_build.qemu import emulator_command

    (work / "p.embr").write_bytes(write_program(graph, target))
    (work / "in.bin").write_bytes(x.tobytes())
    cmd = emulator_command(load_board(board), elf, "p.embr --input in.bin --output out.bin")
    result = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        raise Refused(f"em_run failed ({result.returncode}):\n{result.stdout}{result.stderr}")
    count = next(int(line.split()[1]) for line in result.stdout.splitlines() if line.startswith("instructions:"))
    return count, np.frombuffer((work / "out.bin").read_bytes(), np.int8)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--board", default="corstone300")
    ap.add_argument("--target", default="cortex-m55")
    ap.add_argument("--elf", type=Path, default=None)
    ap.add_argument("--only", default="", help="run the layers whose name matches this regular expression")
    args = ap.parse_args()
    elf = args.elf or BUILD_ROOT / args.board / "em_run.elf"
    print(f"| layer ({args.board}, {args.target}) | instructions | MACs or elements | per instruction |")
    print("|---|---:|---:|---:|")
    for name, build in LAYERS.items():
        if not re.search(args.only, name):
            continue
        rng = np.random.default_rng(sum(map(ord, name)))
        graph, work_items = build(rng)
        plan_memory(graph, Region("sram", 1 << 20))
        x = rng.integers(-128, 128, size=graph.tensors["x"].shape, dtype=np.int8)
        want = reference.run(graph, [x])["y"]
        with tempfile.TemporaryDirectory() as tmp:
            counts = []
            for _ in range(2):
                try:
                    count, got = run_once(args.board, Target(args.target), elf, graph, x, Path(tmp))
                except Refused as refused:
                    if "EM_ERR_BAD_OPERATOR" not in str(refused):
                        raise SystemExit(str(refused)) from None
                    break
                if not np.array_equal(got.reshape(want.shape), want):
                    raise SystemExit(f"{name}: output differs from compiler.reference")
                counts.append(count)
        if not counts:
            print(f"| {name} | refused at load (EM_ERR_BAD_OPERATOR) | {work_items:,} | - |", flush=True)
            continue
        if counts[0] != counts[1]:
            raise SystemExit(f"{name}: counts differ between runs: {counts}")
        print(f"| {name} | {counts[0]:,} | {work_items:,} | {work_items / counts[0]:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
