"""int8 mul over every broadcast form the kernels take, edge values and offsets at both ends,
on the host and Cortex-M55 runners against reference.mul_s8; an unsupported broadcast is refused
at load."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from compiler.fixedpoint import quantize_multiplier
from compiler.ir import Graph, Op, Quant, Tensor
from compiler.planner import Region, plan_memory
from compiler.program import Program
from compiler.target import Target
from ember_build.board import load_board
from ember_build.qemu import run_firmware

REPO = Path(__file__).resolve().parents[2]
SCONS = Path(sys.executable).with_name("scons")
OUT = (2, 3, 5, 17)


def _program(target: str, a_shape, b_shape, a_zp: int, b_zp: int, real: float) -> Program:
    multiplier, shift = quantize_multiplier(real)
    tensors = {"a": Tensor("a", "int8", a_shape, Quant.per_tensor(0.1, a_zp)),
               "b": Tensor("b", "int8", b_shape, Quant.per_tensor(0.1, b_zp)),
               "y": Tensor("y", "int8", OUT, Quant.per_tensor(0.1, 3))}
    attrs = {"a_offset": -a_zp, "b_offset": -b_zp, "output_offset": 3, "output_multiplier": multiplier,
             "output_shift": shift, "activation_min": -100, "activation_max": 120}
    graph = Graph(tensors, [Op("mul", ["a", "b"], ["y"], attrs)], ["a", "b"], ["y"])
    return Program(graph, Target(target), "mul", plan_memory(graph, Region("sram", 1 << 20)))


def _run(board: str, tmp_path: Path, program: Program, inputs: list[np.ndarray]) -> tuple[int, str]:
    program.save(tmp_path / "p.embr")
    args = ["p.embr"]
    for k, x in enumerate(inputs):
        (tmp_path / f"x{k}.bin").write_bytes(x.tobytes())
        args += ["--input", f"x{k}.bin"]
    args += ["--output", "y.bin"]
    if board == "host":
        run = subprocess.run([str(REPO / "build/host/em_run"), *args], cwd=tmp_path, capture_output=True, text=True)
        return run.returncode, run.stdout + run.stderr
    result = run_firmware(load_board(board), REPO / "build/corstone300/em_run.elf", args=" ".join(args),
                          timeout_s=60, cwd=tmp_path)
    return result.exit_code, result.console_text


@pytest.fixture(scope="module", autouse=True)
def runners():
    for board in ("host", "corstone300"):
        build = subprocess.run([str(SCONS), "em_run", f"board={board}"], cwd=REPO, capture_output=True, text=True)
        assert build.returncode == 0, build.stdout + build.stderr


@pytest.mark.parametrize("board,target", [("host", "host"), ("corstone300", "cortex-m55")])
@pytest.mark.parametrize("a_shape,b_shape", [(OUT, OUT), (OUT, (1, 1, 1, 17)), ((17,), OUT), (OUT, (1,)), ((1, 1, 1, 1), OUT)])
def test_mul_equals_reference(tmp_path, board, target, a_shape, b_shape):
    program = _program(target, a_shape, b_shape, a_zp=-128, b_zp=127, real=0.37)
    rng = np.random.default_rng(len(a_shape) * 10 + len(b_shape))
    a = rng.integers(-128, 128, a_shape).astype(np.int8)
    b = rng.integers(-128, 128, b_shape).astype(np.int8)
    a.reshape(-1)[0], b.reshape(-1)[-1] = -128, 127
    program.save(tmp_path / "p.embr")
    from compiler.reference import mul_s8

    want = mul_s8(a, b, **{k: program.graph.ops[0].attrs[k] for k in program.graph.ops[0].attrs})
    np.testing.assert_array_equal(program.run_reference(a, b)[0], want)
    code, console = _run(board, tmp_path, program, [a, b])
    assert code == 0, console
    got = np.frombuffer((tmp_path / "y.bin").read_bytes(), np.int8).reshape(OUT)
    np.testing.assert_array_equal(got, want)


def test_unsupported_broadcast_is_refused_at_load(tmp_path):
    program = _program("host", (2, 3, 5, 1), (1, 1, 1, 17), a_zp=0, b_zp=0, real=0.5)
    program.save(tmp_path / "p.embr")
    run = subprocess.run([str(REPO / "build/host/em_run"), "p.embr"], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode != 0 and "EM_ERR_BAD_OPERATOR" in run.stdout
