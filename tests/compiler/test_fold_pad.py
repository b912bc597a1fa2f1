"""pad's fold (ops/pad.py): zero pads over H/W fold into the conv2d / depthwise / avg_pool2d reading them; the
reference output is byte-identical with and without the fold; other pads stay."""
from __future__ import annotations

import dataclasses
import functools

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from compiler import reference
from compiler.frontend import quantize, importable
from compiler.importer import import_program
from compiler.ir import Graph
from compiler.ops import OP_TABLE
from compiler.options import LoweringOptions
from compiler.passes import IR_PASSES

OPTIONS = LoweringOptions()
SHAPE = (1, 3, 13, 10)


class Pads(nn.Module):
    """Folds: asymmetric zero pad → strided conv; zero pad → depthwise (own padding 1); zero pad →
    avg pool. Stays: pad of 0.5 → conv; a pad read by two convs; a channel pad; a pad → max pool."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.stem = nn.Conv2d(3, 8, (4, 3), stride=2)
        self.dw = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.valued = nn.Conv2d(8, 8, 3)
        self.left, self.right = nn.Conv2d(8, 4, 1), nn.Conv2d(8, 4, 3)
        self.channels = nn.Conv2d(10, 8, 1)

    def forward(self, x):
        y = torch.relu(self.stem(F.pad(x, (1, 2, 4, 5))))  # left, right, top, bottom
        y = torch.relu(self.dw(F.pad(y, (0, 1, 0, 1))))
        y = F.avg_pool2d(F.pad(y, (1, 0, 1, 0)), 2)
        y = torch.relu(self.valued(F.pad(y, (1, 1, 1, 1), value=0.5)))
        shared = F.pad(y, (1, 1, 1, 1))
        y = torch.cat([self.left(shared)[..., 1:-1, 1:-1], self.right(shared)], 1)
        y = self.channels(F.pad(y, (0, 0, 0, 0, 1, 1)))
        return F.max_pool2d(F.pad(y, (0, 1, 0, 1)), 2)


@functools.cache
def _exported() -> torch.export.ExportedProgram:
    example = (torch.randn(SHAPE),)
    calibration = [torch.randn(2, *SHAPE[1:], generator=torch.Generator().manual_seed(i)) for i in range(4)]
    return importable(quantize(Pads().eval(), example, calibration), example)


def _lowered(fold: bool) -> Graph:
    graph = import_program(_exported())
    pad = OP_TABLE["pad"]
    OP_TABLE["pad"] = pad if fold else dataclasses.replace(pad, fold=None)
    try:
        for lowering in IR_PASSES:
            graph = lowering(graph, OPTIONS)
    finally:
        OP_TABLE["pad"] = pad
    return graph


def _kinds(graph: Graph) -> list[str]:
    return [op.kind for op in graph.ops if op.kind not in ("quantize", "dequantize")]


def test_graph_before_and_after():
    before, after = _lowered(fold=False), _lowered(fold=True)
    assert _kinds(before).count("pad") == 7
    assert _kinds(after).count("pad") == 4  # 0.5, the shared one, the channel pad, the max pool's
    stem, dw, avg = [op for op in after.ops if op.kind in ("conv2d", "depthwise_conv2d", "avg_pool2d")][:3]
    assert (stem.kind, stem.attrs["padding"]) == ("conv2d", (4, 5, 1, 2))
    assert (dw.kind, dw.attrs["padding"]) == ("depthwise_conv2d", (1, 2, 1, 2))
    assert (avg.kind, avg.attrs["padding"], avg.attrs["count_include_pad"]) == ("avg_pool2d", (1, 0, 1, 0), True)
    assert stem.inputs[0] in [op.outputs[0] for op in after.ops if op.kind == "quantize"]
    kept = [op for op in after.ops if op.kind == "pad"]
    assert [op.attrs["value"] for op in kept][0] != after.tensors[kept[0].inputs[0]].quant.zero_point[0]
    assert [op.attrs["before"][3] for op in kept] == [0, 0, 1, 0]
    readers = [op.kind for op in after.consumers(kept[1].outputs[0])]
    assert readers == ["conv2d", "conv2d"]
    assert [op.kind for op in after.consumers(kept[3].outputs[0])] == ["max_pool2d"]


def test_fold_leaves_the_reference_output_unchanged():
    before, after = _lowered(fold=False), _lowered(fold=True)
    x = np.random.default_rng(3).standard_normal(before.tensors[before.inputs[0]].shape).astype(np.float32)
    (want,) = reference.run(before, [x]).values()
    (got,) = reference.run(after, [x]).values()
    np.testing.assert_array_equal(got, want)
    assert np.ptp(want) > 0  # the check compares something


def test_quantizer_gives_the_pad_its_producers_quantization():
    graph = _lowered(fold=False)
    for pad in [op for op in graph.ops if op.kind == "pad"]:
        source, output = graph.tensors[pad.inputs[0]].quant, graph.tensors[pad.outputs[0]].quant
        np.testing.assert_array_equal(source.scale, output.scale)
        np.testing.assert_array_equal(source.zero_point, output.zero_point)
