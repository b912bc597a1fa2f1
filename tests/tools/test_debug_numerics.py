"""The numerics debugger (tools/debug_numerics.py): stages matched per layer on a CNN (NCHW float
vs NHWC Ember), the first divergence found when the device differs, and `scons numerics=1` on
the anomaly app in QEMU (device equal to the reference on every layer)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn

from compiler.pipeline import lower
from tools.debug_numerics import compare, op_by_op_lsb, report, sqnr, stage_values
from ember_build.paths import BUILD_ROOT

REPO = Path(__file__).resolve().parents[2]
SCONS = Path(sys.executable).with_name("scons")


class SmallCnn(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.conv, self.bn = nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8)
        self.dw = nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=8)
        self.head = nn.Linear(8 * 5 * 6, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.bn(self.conv(x)))
        x = torch.relu(self.dw(x))
        return self.head(torch.flatten(x, 1))


@pytest.fixture(scope="module")
def cnn():
    model = SmallCnn().eval()
    generator = torch.Generator().manual_seed(1)
    calibration = [torch.randn(1, 3, 9, 11, generator=generator) for _ in range(16)]
    program = lower(model, (calibration[0],), calibration, "cortex-m55", report_fallbacks=False)
    x = np.random.default_rng(2).standard_normal((1, 9, 11, 3)).astype(np.float32)  # the program's NHWC
    return model, program, [x], stage_values(model, program, [x])


def test_every_stage_matches_per_layer_in_ember_layout(cnn):
    model, program, inputs, stages = cnn
    rows = compare(program, stages)
    by_op = {row.op: row for row in rows}
    for kind in ("conv2d", "depthwise_conv2d", "fully_connected"):
        row = by_op[kind]
        assert row.sqnr["reference"] > 20.0, (kind, row.sqnr)  # NHWC vs NCHW matched: a mismatch is ~0 dB
        assert abs(row.sqnr["pt2e"] - row.sqnr["reference"]) < 3.0
        assert row.reference_vs_pt2e_1lsb > 0.95
    conv = by_op["conv2d"].tensor
    assert stages["float"][conv].shape == program.graph.tensors[conv].shape  # NHWC


def test_first_divergence_is_the_first_layer_where_the_device_differs(cnn):
    model, program, inputs, stages = cnn
    device = {name: value.copy() for name, value in stages["reference"].items()}
    names = [op.outputs[0] for op in program.graph.ops]
    device[names[2]] = device[names[2]].copy()
    device[names[2]].reshape(-1)[0] ^= 1  # one LSB off in the third op's output
    text, data = report(compare(program, {**stages, "device": device}), "cnn")
    assert data["first_divergence"] == 2
    assert f"first divergence: layer 2" in text
    assert data["layers"][2]["device_max_lsb"] == 1 and data["layers"][2]["device_equal"] < 1.0
    assert data["layers"][1]["device_equal"] == 1.0


class Squeeze(nn.Module):
    """Reductions as users write them: a global mean into a linear (squeeze-and-excitation), a
    mean over W kept as a map."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(3)
        self.conv, self.fc = nn.Conv2d(3, 8, 3, padding=1), nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = self.conv(x)
        return self.fc(x.mean((2, 3))), x.mean(3, keepdim=True) * 2.0


def test_op_by_op_compares_every_op_that_rounds_a_reduction():
    """A reduction is a pool or a ones-row linear and then reshapes that a later fold may
    remove: the op that rounds keeps PyTorch's name, so it and the linear reading it are each
    compared on PyTorch's codes (se_resnet's linear was compared on Ember's pool output instead,
    two roundings apart, and was 2 LSB off)."""
    generator = torch.Generator().manual_seed(4)
    calibration = [torch.randn(1, 3, 6, 7, generator=generator) for _ in range(8)]
    program = lower(Squeeze().eval(), (calibration[0],), calibration, "cortex-m55", report_fallbacks=False)
    x = np.random.default_rng(5).standard_normal((1, 6, 7, 3)).astype(np.float32)
    rows = op_by_op_lsb(program, [x])
    compared = {k for k, *_ in rows}
    rounding = [k for k, op in enumerate(program.graph.ops) if op.kind in ("avg_pool2d", "fully_connected", "lut")]
    assert len(rounding) == 4 and set(rounding) <= compared, (program.graph.summary(), rows)
    assert max(lsb for *_, lsb in rows) <= 1, rows


def test_sqnr():
    x = np.array([1.0, -1.0, 2.0])
    assert sqnr(x, x) == float("inf")
    assert sqnr(x, x + np.array([0.1, 0.0, 0.0])) == pytest.approx(10 * np.log10(6 / 0.01))


@pytest.mark.qemu
def test_scons_numerics_on_the_anomaly_app():
    run = subprocess.run([str(SCONS), "app=anomaly", "board=corstone300", "numerics=1"], cwd=REPO,
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    data = json.loads((BUILD_ROOT / "corstone300/anomaly/numerics.json").read_text())
    assert data["first_divergence"] is None and "agree on every layer" in data["verdict"]
    layers = data["layers"]
    assert len(layers) == 15 and all(layer["device_equal"] == 1.0 for layer in layers)  # front end, reshape, quantize, 10 dense, sub, dequantize
    # the checkpoint trained on the device's log-mel features measures 20.5 dB at the 8-unit bottleneck, 26–50 elsewhere
    assert all(layer["sqnr"]["device"] > 18.0 for layer in layers if layer["op"] == "fully_connected")
