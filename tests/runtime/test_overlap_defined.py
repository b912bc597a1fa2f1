"""Malformed placements the planner never makes (compiler/ops/overlap.py) run without undefined
behaviour: the data-movement kernels copy with memmove semantics when an output lies over its
input (bytes unspecified), and a convolution leaves a scratch over its input unused (the same
bytes, read tap by tap). memcpy there was found by the loader fuzzer (AddressSanitizer:
memcpy-param-overlap in em_concat_copy_s8); this runs em_run built with AddressSanitizer and
UndefinedBehaviorSanitizer on each such program."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "kernels"))

import conformance  # noqa: E402
from build_host import build_em_run  # noqa: E402
from compiler import scratch  # noqa: E402
from compiler.planner import Region, plan_memory  # noqa: E402
from compiler.target import Target  # noqa: E402
from compiler.writer import write_program  # noqa: E402

MOVEMENT = ["concatenation", "pad", "slice", "transpose", "upsample_nearest"]
SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-g", "-Wno-unused-function"]  # clang: -Werror


@pytest.fixture(scope="module")
def em_run() -> Path:
    if shutil.which("clang") is None:
        pytest.skip("needs clang (AddressSanitizer)")
    return build_em_run(cc="clang", extra=SANITIZE)


def _run(em_run: Path, tmp_path: Path, case: conformance.Case) -> subprocess.CompletedProcess:
    (tmp_path / "p.embr").write_bytes(write_program(case.graph, Target("host")))
    cmd = [str(em_run), "p.embr"]  # names relative to tmp_path: em_run's arguments fit 512 bytes
    for i, data in enumerate(case.input_bytes()):
        (tmp_path / f"in{i}.bin").write_bytes(data)
        cmd += ["--input", f"in{i}.bin"]
    return subprocess.run(cmd + ["--output", "out.bin"], cwd=tmp_path, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("op", MOVEMENT)
def test_an_output_over_its_input_copies_without_undefined_behaviour(em_run, tmp_path, op):
    # the largest int8 case: runs long enough for the memcpy path (> 16 bytes a run)
    case = max((c for c in conformance.all_cases() if c.op == op and c.output.dtype == "int8" and c.graph.inputs),
               key=lambda c: c.output.nbytes)
    clean = _run(em_run, tmp_path, case)
    assert clean.returncode == 0, clean.stderr[-3000:]
    assert (tmp_path / "out.bin").read_bytes() == case.expected()
    # the same arena, one byte apart (the smaller inside the larger): every run of the copy overlaps
    x, y = case.graph.tensors[case.graph.inputs[0]], case.graph.tensors[case.graph.outputs[0]]
    if y.nbytes > x.nbytes:
        x.offset = y.offset + 1
    elif y.nbytes < x.nbytes:
        y.offset = x.offset + 1
    else:
        y.offset = x.offset
    moved = _run(em_run, tmp_path, case)
    assert moved.returncode == 0 and "Sanitizer" not in moved.stderr, moved.stderr[-3000:]


def test_a_convolution_leaves_a_scratch_over_its_input_unused(em_run, tmp_path):
    case = next(c for c in conformance.all_cases() if c.op == "conv2d" and c.name.startswith("3x3"))
    graph = case.graph
    scratch.attach(graph, "scalar")  # the host's tier: patches packed with memcpy
    plan_memory(graph, Region("sram", 1 << 20))
    op = graph.ops[0]
    assert len(op.outputs) == 2, "this case's kernel asks for scratch"
    graph.tensors[op.outputs[1]].offset = graph.tensors[op.inputs[0]].offset
    result = _run(em_run, tmp_path, case)
    assert result.returncode == 0 and "Sanitizer" not in result.stderr, result.stderr[-3000:]
    assert (tmp_path / "out.bin").read_bytes() == case.expected()
