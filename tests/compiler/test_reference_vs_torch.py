"""The integer program (compiler/reference.py) against PyTorch's converted PT2E model:
≥ 99% of outputs equal, none off by more than 1 LSB."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

import compiler
from compiler import reference
from tests.compiler.models import calibration, mlp


def _lsb_differences(program: compiler.Program, x: torch.Tensor) -> np.ndarray:
    out_name = program.graph.outputs[0]
    dequantize = program.graph.producer(out_name)
    scale = float(dequantize.attrs["scale"])
    ours = np.stack([program.run_reference(row[None].numpy())[0][0] for row in x])
    theirs = program.quantized_model(x).detach().numpy()
    return np.rint((ours - theirs) / scale).astype(np.int64)


CASES = [
    ([16, 32, 8], nn.ReLU, True, 0),
    ([37, 17, 5, 3], nn.ReLU6, True, 1),
    ([64, 128, 128, 8, 128, 64], nn.ReLU, True, 2),
    ([1, 9, 1], nn.ReLU, False, 3),
    ([23, 40, 11], nn.Hardtanh, False, 4),
]


@pytest.mark.parametrize("widths,activation,batch_norm,seed", CASES)
def test_reference_agrees_with_pytorch_within_one_lsb(widths, activation, batch_norm, seed):
    model = mlp(widths, activation, batch_norm, seed)
    program = compiler.lower(model, (torch.zeros(1, widths[0]),), calibration(widths[0], seed=seed),
                             target="cortex-m55")
    x = torch.randn(64, widths[0], generator=torch.Generator().manual_seed(100 + seed)) * 1.2
    diff = _lsb_differences(program, x)
    assert np.abs(diff).max() <= 1
    assert (diff == 0).mean() >= 0.99


def test_boundary_quantize_equals_torch_quantize_per_tensor():
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.normal(0, 3, 5000), [0.5, 1.5, -2.5, 1e9, -1e9, 0.0]]).astype(np.float32)
    for scale, zero_point in [(0.02, 3), (0.1, -128), (0.0078125, 127), (1 / 3, 0)]:
        theirs = torch.ops.quantized_decomposed.quantize_per_tensor(
            torch.from_numpy(x), scale, zero_point, -128, 127, torch.int8).numpy()
        ours = reference.quantize_f32_s8(x, np.float32(1.0 / scale), zero_point)
        np.testing.assert_array_equal(ours, theirs)


def test_anomaly_app_model_agrees_with_pytorch():
    from apps.anomaly import data, model as anomaly

    net, _ = anomaly.load_trained()  # features → residual; the program here without the front end
    program = compiler.lower(net, anomaly.example_inputs(), anomaly.calibration_data(clips=4))
    x = torch.from_numpy(data.features(anomaly.test_vectors(16)[:, 0, :]))
    diff = _lsb_differences(program, x)
    assert np.abs(diff).max() <= 1
    assert (diff == 0).mean() >= 0.99
