"""The convolution, pooling, add and flatten lowerings, graph before and after."""
from __future__ import annotations

import functools

import numpy as np
import torch
from torch import nn

from compiler.frontend import quantize, importable
from compiler.importer import import_program
from compiler.ir import Graph
from compiler.options import LoweringOptions
from compiler.passes import IR_PASSES, convert_to_nhwc, fold_activations

OPTIONS = LoweringOptions()


class Block(nn.Module):
    """conv3x3+BN+ReLU → depthwise (×2) + ReLU → two 1×1 convs added + ReLU → max, avg pools → fc."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv, self.bn = nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8)
        self.dw = nn.Conv2d(8, 16, 3, stride=2, padding=1, groups=8)
        self.pw_a, self.pw_b = nn.Conv2d(16, 16, 1), nn.Conv2d(16, 16, 1)
        self.max, self.avg = nn.MaxPool2d(2), nn.AvgPool2d(2)
        self.fc = nn.Linear(16 * 2 * 2, 10)

    def forward(self, x):
        y = torch.relu(self.bn(self.conv(x)))
        y = torch.relu(self.dw(y))
        y = torch.relu(self.pw_a(y) + self.pw_b(y))
        return self.fc(torch.flatten(self.avg(self.max(y)), 1))


@functools.cache
def _exported() -> torch.export.ExportedProgram:
    example = (torch.randn(1, 3, 16, 16),)
    calibration = [torch.randn(2, 3, 16, 16, generator=torch.Generator().manual_seed(i)) for i in range(4)]
    return importable(quantize(Block().eval(), example, calibration), example)


def _imported() -> Graph:
    """A fresh IR graph each call (passes mutate it) of one quantized export."""
    return import_program(_exported())


def _lowered() -> Graph:
    graph = _imported()
    for lowering in IR_PASSES:
        graph = lowering(graph, OPTIONS)
    return graph


def test_feature_maps_become_nhwc_and_weights_do_not():
    graph = _imported()
    conv_weights = next(t for t in graph.tensors.values() if t.is_constant and len(t.shape) == 4)
    before = conv_weights.shape
    convert_to_nhwc(graph, OPTIONS)
    assert graph.tensors[graph.inputs[0]].shape == (1, 16, 16, 3)
    assert conv_weights.shape == before
    assert all(t.shape[3] in (3, 8, 16) for t in graph.tensors.values()
               if len(t.shape) == 4 and not t.is_constant and t.dtype == "int8")


def test_activations_fold_into_conv_and_add():
    graph = fold_activations(convert_to_nhwc(_imported(), OPTIONS), OPTIONS)
    assert "aten.clamp" not in [op.kind for op in graph.ops]
    assert all("activation" in op.attrs for op in graph.ops if op.kind == "aten.add")


def test_lowering_leaves_only_integer_ember_ops():
    graph = _lowered()
    assert [op.kind for op in graph.ops] == ["quantize", "conv2d", "depthwise_conv2d", "conv2d", "conv2d", "add",
                                             "max_pool2d", "avg_pool2d", "fully_connected", "dequantize"]


def test_weights_are_laid_out_for_the_kernels():
    graph = _lowered()
    conv, depthwise = (next(op for op in graph.ops if op.kind == k) for k in ("conv2d", "depthwise_conv2d"))
    assert graph.tensors[conv.inputs[1]].shape == (8, 3, 3, 3)  # [O, KH, KW, I]
    assert graph.tensors[depthwise.inputs[1]].shape == (3, 3, 16)  # [KH, KW, C·M]
    assert depthwise.attrs["depth_multiplier"] == 2 and depthwise.attrs["padding"] == (1, 1, 1, 1)
    assert depthwise.attrs["stride"] == (2, 2)
    x = graph.tensors[conv.inputs[0]]
    assert conv.attrs["input_zero_point"] == int(x.quant.zero_point[0])
    assert conv.attrs["activation_min"] == conv.attrs["output_offset"]  # fused ReLU


def test_flatten_folds_into_the_linear_with_reordered_columns():
    graph = _lowered()
    fc = next(op for op in graph.ops if op.kind == "fully_connected")
    source = graph.tensors[fc.inputs[0]]
    assert source.shape == (1, 2, 2, 16)  # the pooled NHWC map itself
    weights = graph.tensors[fc.inputs[1]].data
    torch_weights = Block().fc.weight.detach().numpy()  # [10, C·H·W] in (c, h, w) order
    signs = np.sign(weights.reshape(10, 2, 2, 16).transpose(0, 3, 1, 2).reshape(10, -1))
    assert (signs == np.sign(torch_weights)).mean() > 0.95  # same weights, columns back in torch order


def test_pools_keep_their_inputs_quantization():
    graph = _lowered()
    for op in graph.ops:
        if op.kind in ("max_pool2d", "avg_pool2d"):
            a, b = graph.tensors[op.inputs[0]].quant, graph.tensors[op.outputs[0]].quant
            assert float(a.scale[0]) == float(b.scale[0]) and int(a.zero_point[0]) == int(b.zero_point[0])
