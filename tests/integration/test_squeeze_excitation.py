"""A MobileNetV3-style squeeze-and-excitation block: global average pool, two 1×1 convs with
ReLU and hardsigmoid, and a channel-vector mul broadcast over the map — reference within 1 LSB
of PyTorch, host and Cortex-M55 runners equal to the reference byte for byte."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn
from torch.nn import functional as F

import compiler
from tests.integration.agreement import lsb_differences
from tests.integration.runners import DEVICES, output_of
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
    lsb = lsb_differences(program, x)
    assert np.abs(lsb).max() <= 1 and (lsb == 0).mean() >= 0.99


@pytest.mark.parametrize("board,target", DEVICES)
def test_device_equals_reference(tmp_path, board, target):
    program = _program(target)
    image = np.random.default_rng(2).normal(size=(1, SHAPE[2], SHAPE[3], SHAPE[1])).astype(np.float32)
    got = np.frombuffer(output_of(board, program, [image], tmp_path), np.float32)
    np.testing.assert_array_equal(got, program.run_reference(image)[0].reshape(-1))
