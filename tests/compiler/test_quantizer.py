"""CortexMQuantizer's annotations on exported graphs."""
from __future__ import annotations

import torch
from torch import nn

from compiler.frontend import export_float
from compiler.quantizer import ACTIVATION_QSPEC, WEIGHT_QSPEC, CortexMQuantizer

aten = torch.ops.aten


def _annotated(model: nn.Module, example: torch.Tensor, **kwargs) -> dict:
    gm = CortexMQuantizer(**kwargs).annotate(export_float(model, (example,)))
    return {n.name: (n, n.meta.get("quantization_annotation")) for n in gm.graph.nodes if n.op == "call_function"}


def test_linear_relu_is_one_unit_with_int8_specs():
    nodes = _annotated(nn.Sequential(nn.Linear(6, 4), nn.ReLU()).eval(), torch.randn(2, 6))
    linear, annotation = nodes["linear"]
    specs = annotation.input_qspec_map
    assert specs[linear.args[0]] is ACTIVATION_QSPEC
    assert specs[linear.args[1]] is WEIGHT_QSPEC
    bias = specs[linear.args[2]]
    assert bias.dtype == torch.int32 and bias.qscheme == torch.per_channel_symmetric
    assert annotation.output_qspec is None  # no q/dq between linear and its ReLU
    assert nodes["relu"][1].output_qspec is ACTIVATION_QSPEC
    assert ACTIVATION_QSPEC.dtype == torch.int8 and (ACTIVATION_QSPEC.quant_min, ACTIVATION_QSPEC.quant_max) == (-128, 127)
    assert ACTIVATION_QSPEC.qscheme == torch.per_tensor_affine
    assert WEIGHT_QSPEC.qscheme == torch.per_channel_symmetric and WEIGHT_QSPEC.ch_axis == 0
    assert (WEIGHT_QSPEC.quant_min, WEIGHT_QSPEC.quant_max) == (-127, 127)


def test_conv_relu6_fused_and_plain_linear_keeps_output_spec():
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU6(), nn.Flatten(), nn.Linear(4 * 4 * 4, 2)).eval()
    nodes = _annotated(model, torch.randn(1, 3, 6, 6))
    assert nodes["conv2d"][1].output_qspec is None
    assert nodes["hardtanh"][1].output_qspec is ACTIVATION_QSPEC
    assert nodes["linear"][1].output_qspec is ACTIVATION_QSPEC


def test_batch_norm_is_folded_before_annotation():
    model = nn.Sequential(nn.Linear(6, 4), nn.BatchNorm1d(4), nn.ReLU()).eval()
    model[1].running_mean.fill_(0.3)
    nodes = _annotated(model, torch.randn(2, 6))
    assert not any(n.target in (aten.batch_norm.default,) for n, _ in nodes.values())
    assert nodes["linear"][1].output_qspec is None


def test_skipped_modules_stay_unannotated():
    model = nn.Sequential(nn.Linear(6, 4), nn.ReLU(), nn.Linear(4, 2)).eval()
    nodes = _annotated(model, torch.randn(2, 6), skip_modules=("2",))
    assert nodes["linear"][1] is not None
    assert nodes["linear_1"][1] is None
