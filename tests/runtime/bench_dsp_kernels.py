"""Instruction counts (QEMU -icount, exact: shared/MEASURING.md) of single-op programs on a QEMU
board, checked byte for byte against compiler.reference. Not a test: a measuring command.

    .venv/bin/python tests/runtime/bench_dsp_kernels.py [--board mps2_an386] [--scalar]

--scalar builds the firmware with -DEM_NN_FORCE_SCALAR (the scalar kernels on the same CPU; the
program's tier is then "scalar") for a before/after comparison.
"""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import programs  # noqa: E402
from build_host import build_em_run_firmware  # noqa: E402
from compiler import reference  # noqa: E402
from compiler.target import Target  # noqa: E402
from compiler.writer import write_program  # noqa: E402
from ember_build.board import emulated_boards  # noqa: E402
from test_conv_programs import conv_layer, graph_of  # noqa: E402
from test_em_run_qemu import qemu  # noqa: E402

CPUS = {b.name: b.cpu for b in emulated_boards()}  # every QEMU board of bsp/

CONV_CASES = {
    "conv 1x1 64->64 on 25x5": ((1, 25, 5, 64), "conv2d", dict(k=(1, 1), c_out=64, padding=(0, 0, 0, 0), in_zp=-3)),
    "depthwise 3x3 on 25x5x64": ((1, 25, 5, 64), "depthwise_conv2d", dict(in_zp=-128)),
    "conv 3x3 16->16 on 32x32": ((1, 32, 32, 16), "conv2d", dict(c_out=16, in_zp=5)),
}


def _count(stdout: str) -> int:
    return int(re.search(r"instructions: (\d+)", stdout).group(1))


def _run(elf: Path, board: str, tmp: Path, data: bytes, x: np.ndarray):
    (tmp / "p.embr").write_bytes(data)
    (tmp / "in.bin").write_bytes(np.ascontiguousarray(x).tobytes())
    result = qemu(elf, tmp, "p.embr --input in.bin --output out.bin", board=board)
    assert result.returncode == 0, result.stdout + result.stderr
    return _count(result.stdout), np.frombuffer((tmp / "out.bin").read_bytes(), np.int8)


def measure(board: str, scalar: bool) -> dict[str, int]:
    tmp = Path(tempfile.mkdtemp(prefix="bench_dsp_"))
    elf = build_em_run_firmware(board, ["-DEM_NN_FORCE_SCALAR"] if scalar else None)
    target = Target(CPUS[board], "scalar" if scalar else "")
    counts = {}
    rng = np.random.default_rng(0)
    case = programs.fc_case(batches=1, n_in=640, n_out=128, seed=1)
    spec, _ = programs.fc_program(case, 1)
    spec.tier = target.tier.number
    x = rng.integers(-128, 128, size=(1, 640), dtype=np.int8)
    n, got = _run(elf, board, tmp, programs.build(spec), x)
    want = reference.fully_connected_s8(x, case.weights, case.bias, case.multiplier, case.shift,
                                        case.output_offset, case.activation_min, case.activation_max)
    np.testing.assert_array_equal(got.reshape(want.shape), want)
    counts["FC 640->128"] = n
    for name, (shape, kind, kwargs) in CONV_CASES.items():
        graph = graph_of(shape, [conv_layer(kind, rng, shape[3], **kwargs)])
        x = rng.integers(-128, 128, size=shape, dtype=np.int8)
        n, got = _run(elf, board, tmp, write_program(graph, target), x)
        want = reference.run(graph, [x])[graph.outputs[0]]
        np.testing.assert_array_equal(got.reshape(want.shape), want)
        counts[name] = n
    return counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--board", default="mps2_an386")
    ap.add_argument("--scalar", action="store_true", help="build with -DEM_NN_FORCE_SCALAR")
    args = ap.parse_args()
    for name, n in measure(args.board, args.scalar).items():
        print(f"{name:28s} {n:>10,d}")


if __name__ == "__main__":
    main()
