"""Elementwise activations as 256-entry tables, and softmax: the reference within 1 LSB of
PyTorch's quantized model, and the host and Cortex-M55 runners equal to the reference (odd
sizes exercise the MVE gather's predicated tail)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn
from torch.nn import functional as F

import compiler
from ember_build.board import load_board
from ember_build.qemu import run_firmware

REPO = Path(__file__).resolve().parents[2]
SCONS = Path(sys.executable).with_name("scons")


class Activations(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.a, self.b, self.c, self.d = nn.Linear(12, 37), nn.Linear(37, 37), nn.Linear(37, 19), nn.Linear(19, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.sigmoid(self.a(x))
        y = torch.tanh(self.b(y))
        y = F.gelu(F.hardswish(self.c(y)))  # two tables in a row: each has its own scales
        shared = self.d(y)
        y = F.leaky_relu(shared, 0.1) + torch.relu(shared)  # a ReLU that cannot fold: a table
        return torch.softmax(y, dim=-1)


def _program(target: str) -> compiler.Program:
    calibration = [torch.randn(8, 12, generator=torch.Generator().manual_seed(i)) for i in range(8)]
    return compiler.lower(Activations().eval(), (torch.zeros(1, 12),), calibration, target=target)


def test_tables_make_the_reference_equal_to_pytorch():
    program = _program("cortex-m55")
    assert [op.kind for op in program.graph.ops].count("lut") == 6
    x = torch.randn(128, 12, generator=torch.Generator().manual_seed(5)) * 2
    ours = np.stack([program.run_reference(row[None].numpy())[0][0] for row in x])
    theirs = program.quantized_model(x).detach().numpy()
    scale = float(program.graph.producer(program.graph.outputs[0]).attrs["scale"])
    lsb = np.rint((ours - theirs) / scale)
    assert np.abs(lsb).max() <= 1 and (lsb == 0).mean() >= 0.99  # the add may differ by 1 LSB


@pytest.mark.parametrize("board,target", [("host", "host"), ("corstone300", "cortex-m55")])
def test_device_tables_equal_the_reference(tmp_path, board, target):
    build = subprocess.run([str(SCONS), "em_run", f"board={board}"], cwd=REPO, capture_output=True, text=True)
    assert build.returncode == 0, build.stdout + build.stderr
    program = _program(target)
    program.save(tmp_path / "p.embr")
    x = (np.random.default_rng(1).normal(size=(1, 12)) * 3).astype(np.float32)
    (tmp_path / "x.bin").write_bytes(x.tobytes())
    args = ["p.embr", "--input", "x.bin", "--output", "y.bin"]
    if board == "host":
        run = subprocess.run([str(REPO / "build/host/em_run"), *args], cwd=tmp_path, capture_output=True, text=True)
        code, console = run.returncode, run.stdout + run.stderr
    else:
        result = run_firmware(load_board(board), REPO / "build/corstone300/em_run.elf", args=" ".join(args),
                              timeout_s=60, cwd=tmp_path)
        code, console = result.exit_code, result.console_text
    assert code == 0, console
    got = np.frombuffer((tmp_path / "y.bin").read_bytes(), np.float32)
    np.testing.assert_array_equal(got, program.run_reference(x)[0].reshape(-1))


def test_a_table_of_the_wrong_size_is_refused_at_load(tmp_path):
    build = subprocess.run([str(SCONS), "em_run", "board=host"], cwd=REPO, capture_output=True, text=True)
    assert build.returncode == 0, build.stdout + build.stderr
    program = _program("host")
    lut = next(op for op in program.graph.ops if op.kind == "lut")
    table = program.graph.tensors[lut.inputs[1]]
    table.data, table.shape = table.data[:255].copy(), (255,)
    program.save(tmp_path / "bad.embr")
    run = subprocess.run([str(REPO / "build/host/em_run"), str(tmp_path / "bad.embr")], capture_output=True, text=True)
    assert run.returncode != 0 and "EM_ERR_BAD_OPERATOR" in run.stdout
