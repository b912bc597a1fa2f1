"""A MobileNetV3-style squeeze-and-excitation block: global average pool, two 1×1 convs with
ReLU and hardsigmoid, and a channel-vector mul broadcast over the map — reference within 1 LSB
of PyTorch, host and Cortex-M55 runners equal to the reference byte for byte."""
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
SHAPE = (1, 16, 9, 7)


class SqueezeExcitation(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(3)
        self.body = nn.Conv2d(16, 16, 3, padding=1)
        self.squeeze, self.expand = nn.Conv2d(16, 8, 1), nn.Conv2d(8, 16, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.body(x))
        gate = F.hardsigmoid(self.expand(torch.relu(self.squeeze(F.adaptive_avg_pool2d(y, 1)))))
        return y * gate


def _program(target: str) -> compiler.Program:
    calibration = [torch.randn(2, *SHAPE[1:], generator=torch.Generator().manual_seed(i)) for i in range(6)]
    return compiler.lower(SqueezeExcitation().eval(), (torch.zeros(SHAPE),), calibration, target=target)


def test_reference_agrees_with_pytorch():
    program = _program("cortex-m55")
    kinds = [op.kind for op in program.graph.ops]
    assert "mul" in kinds and "lut" in kinds and "avg_pool2d" in kinds
    x = torch.randn(16, *SHAPE[1:], generator=torch.Generator().manual_seed(9))
    ours = np.stack([program.run_reference(xi.permute(1, 2, 0)[None].numpy())[0][0] for xi in x])
    theirs = program.quantized_model(x).detach().numpy().transpose(0, 2, 3, 1)
    scale = float(program.graph.producer(program.graph.outputs[0]).attrs["scale"])
    lsb = np.rint((ours - theirs) / scale)
    assert np.abs(lsb).max() <= 1 and (lsb == 0).mean() >= 0.99


@pytest.mark.parametrize("board,target", [("host", "host"), ("corstone300", "cortex-m55")])
def test_device_equals_reference(tmp_path, board, target):
    build = subprocess.run([str(SCONS), "em_run", f"board={board}"], cwd=REPO, capture_output=True, text=True)
    assert build.returncode == 0, build.stdout + build.stderr
    program = _program(target)
    program.save(tmp_path / "p.embr")
    image = np.random.default_rng(2).normal(size=(1, SHAPE[2], SHAPE[3], SHAPE[1])).astype(np.float32)
    (tmp_path / "x.bin").write_bytes(image.tobytes())
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
    np.testing.assert_array_equal(got, program.run_reference(image)[0].reshape(-1))
