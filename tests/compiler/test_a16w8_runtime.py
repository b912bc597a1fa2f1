"""The int16 conv2d, depthwise and fully connected layers of the test_a16w8 network, each as a
program of its own on the host runtime (em_run, the scalar tier), byte for byte against the
reference on the activations the network gives them (whole programs:
test_a16w8_programs_run.py)."""
from __future__ import annotations

import subprocess
from dataclasses import replace
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import compiler
from compiler.ir import Graph
from compiler.planner import Region, plan_memory
from compiler.quantizer import CortexMQuantizer
from compiler.target import Target
from compiler.writer import write_program

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
from build_host import build_em_run  # noqa: E402
from test_a16w8 import SHAPE, Net  # noqa: E402

OURS = ("conv2d", "depthwise_conv2d", "fully_connected")  # the weighted int16 kernels


@pytest.fixture(scope="module")
def program() -> compiler.Program:
    torch.manual_seed(7)
    model = Net().eval()
    calibration = [torch.randn(SHAPE) for _ in range(8)]
    return compiler.lower(model, (torch.randn(SHAPE),), calibration, Target("host"), report_fallbacks=False,
                          quantizer=CortexMQuantizer(precision="a16w8"))


def _run(tmp_path: Path, data: bytes, inputs: list[np.ndarray]) -> subprocess.CompletedProcess:
    (tmp_path / "p.embr").write_bytes(data)
    args = [str(build_em_run()), "p.embr"]
    for i, x in enumerate(inputs):
        (tmp_path / f"in{i}.bin").write_bytes(np.ascontiguousarray(x).tobytes())
        args += ["--input", f"in{i}.bin"]
    return subprocess.run(args + ["--output", "out.bin"], cwd=tmp_path, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("kind", OURS)
def test_each_int16_layer_of_it_runs_bit_exact(program, tmp_path: Path, kind: str):
    """The network's int16 `kind` op alone: its real input (the reference's activations) in, its
    bytes out."""
    graph = program.graph
    x = np.random.default_rng(4).standard_normal(SHAPE).astype(np.float32).transpose(0, 2, 3, 1)
    values = compiler.reference.run(graph, [x], keep_all=True)
    op = next(op for op in graph.ops if op.kind == kind)
    assert graph.tensors[op.inputs[0]].dtype == graph.tensors[op.outputs[0]].dtype == "int16"
    tensors = {name: graph.tensors[name] for name in (*op.inputs, op.outputs[0])}
    tensors = {name: (t if t.is_constant else replace(t, offset=None, arena=0)) for name, t in tensors.items()}
    single = Graph(tensors, [replace(op, outputs=[op.outputs[0]], attrs=dict(op.attrs))],
                   [op.inputs[0]], [op.outputs[0]])
    plan_memory(single, Region("sram", 1 << 20))
    result = _run(tmp_path, write_program(single, Target("host")), [values[op.inputs[0]]])
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "out.bin").read_bytes() == np.ascontiguousarray(values[op.outputs[0]]).tobytes()
