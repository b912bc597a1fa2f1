#!/usr/bin/env python3
"""Instruction counts of the float fallback kernels on each QEMU tier board (exact, MEASURING.md),
beside the int8 kernel of the same layer where there is one: what leaving an op in float costs.

    ./scons em_run board=corstone300 && ./scons em_run board=mps2_an386 && ./scons em_run board=mps2_an385
    .venv/bin/python tools/bench_float.py [--boards corstone300 mps2_an386 mps2_an385]

Each layer is one op (compiler.ir graph -> planner -> writer) run by the board's em_run; the
output is checked against compiler.reference (bit for bit; within FLOAT_LIBM_ULPS for libm ops)
and em_run's "instructions:" line (the counter around invoke) is reported.
"""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

import numpy as np
from ember_build.paths import BUILD_ROOT


from compiler import reference
from compiler.fixedpoint import quantize_multiplier
from compiler.ir import Graph, Op, Quant, Tensor
from compiler.ops.norm import norm_parameters
from compiler.planner import Region, plan_memory
from compiler.target import Target
from compiler.writer import write_program
from ember_build.board import load_board, one_board_per_tier
from ember_build.qemu import run_firmware

# board -> CPU of a QEMU board of each tier (bsp/): corstone300 (mve), mps2_an386 (dsp), mps2_an385 (scalar)
TARGETS = {b.name: b.cpu for b in one_board_per_tier()}
CONV = dict(stride=(1, 1), dilation=(1, 1), padding=(1, 1, 1, 1))


def _layers(rng: np.random.Generator) -> dict[str, tuple[str, list[np.ndarray], dict, tuple[int, ...], str]]:
    """name: (kind, inputs (first is the program input, the rest constants), attrs, out shape, dtype)."""
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    i8 = lambda *s: rng.integers(-128, 128, s).astype(np.int8)  # noqa: E731
    pairs = [quantize_multiplier(0.002) for _ in range(16)]
    int8_conv = dict(CONV, groups=1, input_zero_point=-3, output_offset=2, activation_min=-128, activation_max=127,
                     multiplier=np.array([m for m, _ in pairs], np.int32), shift=np.array([s for _, s in pairs], np.int32))
    return {
        "float conv 3x3 16->16 on 16x16": ("float_conv2d", [f32(1, 16, 16, 16), f32(16, 3, 3, 16), f32(16)],
                                           dict(CONV, groups=1), (1, 16, 16, 16), "float32"),
        "int8 conv 3x3 16->16 on 16x16": ("conv2d", [i8(1, 16, 16, 16), i8(16, 3, 3, 16),
                                                     rng.integers(-999, 999, 16).astype(np.int32)],
                                          int8_conv, (1, 16, 16, 16), "int8"),
        "float fully connected 256->64": ("float_fully_connected", [f32(1, 256), f32(64, 256), f32(64)], {},
                                          (1, 64), "float32"),
        "float add 4096 (broadcast row)": ("float_binary", [f32(64, 64), f32(64)], {"function": "add"},
                                           (64, 64), "float32"),
        "float sigmoid 4096": ("float_unary", [f32(4096)], {"function": "sigmoid"}, (4096,), "float32"),
        "float softmax 10x100": ("float_softmax", [f32(10, 100)], {}, (10, 100), "float32"),
        "float layer norm 16x64": ("float_layer_norm", [f32(16, 64), f32(64), f32(64)],
                                   {"epsilon": np.float32(1e-5)}, (16, 64), "float32"),
        "float layer norm 49x64": ("float_layer_norm", [f32(49, 64), f32(64), f32(64)],
                                   {"epsilon": np.float32(1e-5)}, (49, 64), "float32"),
        **{f"int8 {mode} norm 49x64": ("norm", [i8(49, 64), *_norm_constants(rng, 64, mode)[:2]],
                                       _norm_constants(rng, 64, mode)[2], (49, 64), "int8") for mode in ("layer", "rms")},
    }


def _norm_constants(rng: np.random.Generator, depth: int, mode: str) -> tuple[np.ndarray, np.ndarray, dict]:
    """The norm op's multiplier, bias and attrs for KWT-like scales (compiler/ops/norm.py); the
    same for each call of one mode (its own generator), so the inputs and attrs agree."""
    own = np.random.default_rng(len(mode))
    multiplier, bias, attrs = norm_parameters(depth, 0.04, 0.03, -3, own.normal(1, 0.3, depth),
                                              own.normal(0, 0.3, depth), 1e-5)
    return multiplier, bias, attrs | {"mode": mode, "input_zero_point": 5}


def _graph(kind: str, inputs: list[np.ndarray], attrs: dict, out_shape: tuple[int, ...], dtype: str) -> Graph:
    x = inputs[0]
    quant = Quant.per_tensor(0.05, 0) if dtype == "int8" else None
    tensors = {"x": Tensor("x", dtype, x.shape, quant=quant), "y": Tensor("y", dtype, out_shape, quant=quant)}
    for i, value in enumerate(inputs[1:], 1):
        tensors[f"c{i}"] = Tensor(f"c{i}", str(value.dtype), value.shape, data=value)
    graph = Graph(tensors, [Op(kind, ["x", *[f"c{i}" for i in range(1, len(inputs))]], ["y"], attrs)], ["x"], ["y"])
    plan_memory(graph, Region("sram", 1 << 20))
    return graph


def count_twice(board: str, workdir: Path) -> int:
    """Instructions of `em_run p.embr --input x.bin --output y.bin` in `workdir` on `board`'s
    QEMU; two identical runs must print the same count."""
    counts = []
    for _ in range(2):
        result = run_firmware(load_board(board), BUILD_ROOT / board / "em_run.elf",
                              "p.embr --input x.bin --output y.bin", timeout_s=600, cwd=workdir)
        assert result.exit_code == 0, result.console_text
        counts.append(int(re.search(r"instructions: (\d+)", result.console_text).group(1)))
    assert counts[0] == counts[1], counts
    return counts[0]


def measure(board: str, name: str, layer: tuple, workdir: Path) -> int:
    kind, inputs, attrs, out_shape, dtype = layer
    graph = _graph(kind, inputs, attrs, out_shape, dtype)
    (workdir / "p.embr").write_bytes(write_program(graph, Target(TARGETS[board])))
    (workdir / "x.bin").write_bytes(np.ascontiguousarray(inputs[0]).tobytes())
    count = count_twice(board, workdir)
    want = reference.run(graph, [inputs[0]])["y"]
    got = np.frombuffer((workdir / "y.bin").read_bytes(), want.dtype).reshape(want.shape)
    if kind in ("float_unary", "float_softmax"):
        np.testing.assert_allclose(got, want, rtol=reference.FLOAT_LIBM_ULPS * 2.0 ** -23, atol=reference.FLOAT_LIBM_ABS)
    else:
        np.testing.assert_array_equal(got, want, err_msg=f"{name} on {board}")
    return count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--boards", nargs="+", default=list(TARGETS), choices=list(TARGETS))
    args = parser.parse_args()
    layers = _layers(np.random.default_rng(1))
    print("| layer | " + " | ".join(f"{b} ({TARGETS[b]})" for b in args.boards) + " |")
    print("|---|" + "---:|" * len(args.boards))
    with tempfile.TemporaryDirectory() as tmp:
        for name, layer in layers.items():
            counts = [measure(board, name, layer, Path(tmp)) for board in args.boards]
            print(f"| {name} | " + " | ".join(f"{c:,}" for c in counts) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
