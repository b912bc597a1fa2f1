"""The front end before quantization (compiler/decompositions.py and the float graph passes):
each rewrites the exported graph into ops Ember lowers, asserted on the graph before and after,
and the rewritten graph computes what the model computes."""
from __future__ import annotations

import operator

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from compiler.frontend import export_float
from compiler.importer import IMPORTERS, FLOAT_IMPORTERS

aten = torch.ops.aten


class Fn(nn.Module):
    def __init__(self, forward, *layers: nn.Module) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.layers = nn.ModuleList(layers)
        self.function = forward

    def forward(self, *x):
        return self.function(self.layers, *x)


def _targets(model: nn.Module, *inputs: torch.Tensor) -> list:
    traced = export_float(model.eval(), inputs)
    with torch.no_grad():
        want, got = model(*inputs), traced(*inputs)
    for w, g in zip(*(t if isinstance(t, (tuple, list)) else (t,) for t in (want, got))):
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)
    return [n.target for n in traced.graph.nodes if n.op == "call_function"]


def _exported_targets(model: nn.Module, *inputs: torch.Tensor) -> list:
    graph = torch.export.export(model.eval(), inputs).graph
    return [n.target for n in graph.nodes if n.op == "call_function"]


CASES = [  # (model, inputs, an op the export has, the ops Ember's graph has instead)
    (Fn(lambda m, x: m[1](m[0](x)), nn.Conv1d(4, 6, 3, padding="same"), nn.Dropout(0.5)), ((1, 4, 9),),
     aten.conv1d.padding, {aten.conv2d.default}),
    (Fn(lambda m, x: F.relu6(x).clone().detach().contiguous()), ((2, 5),), aten.relu6.default, {aten.hardtanh.default}),
    (Fn(lambda m, x: torch.clamp(x, min=0.5)), ((2, 5),), aten.clamp.default, {aten.hardtanh.default}),
    (Fn(lambda m, x: m[0](x), nn.Linear(5, 3)), ((2, 4, 5),), aten.linear.default, {aten.linear.default}),
    (Fn(lambda m, x: torch.softmax(x, 0)), ((3, 4),), aten.softmax.int, {aten._softmax.default, aten.transpose.int}),
    (Fn(lambda m, x: F.log_softmax(x, -1)), ((3, 4),), aten.log_softmax.int, {aten._softmax.default, aten.log.default}),
    (Fn(lambda m, x: torch.chunk(x, 2, 1)[1] * torch.unbind(x, 1)[0][:, None]), ((2, 6),), aten.chunk.default,
     {aten.slice.Tensor, aten.select.int}),
    (Fn(lambda m, x: F.pad(x, (2, 1, 1, 2), mode="reflect")), ((1, 2, 4, 5),), aten.pad.default,
     {aten.slice.Tensor, aten.cat.default}),
    (Fn(lambda m, x: F.pad(x, (1, 2), mode="circular")), ((1, 2, 5),), aten.pad.default, {aten.cat.default}),
    (Fn(lambda m, x: m[0](x), nn.ConvTranspose2d(4, 6, 3, groups=2, dilation=2)), ((1, 4, 5, 5),),
     aten.conv_transpose2d.input, {aten.conv_transpose2d.input}),
    (Fn(lambda m, x: F.avg_pool2d(x, 2, divisor_override=3)), ((1, 3, 4, 4),), aten.avg_pool2d.default,
     {aten.conv2d.default}),
    (Fn(lambda m, x: x @ x.transpose(-1, -2)), ((1, 2, 3, 4),), aten.matmul.default, {aten.bmm.default}),
    (Fn(lambda m, x: torch.flip(x, [1])), ((2, 3),), aten.flip.default, {aten.cat.default}),
    (Fn(lambda m, x: F.interpolate(x, size=(5, 7), mode="bilinear")), ((1, 2, 3, 4),), aten.upsample_bilinear2d.vec,
     {aten.matmul.default}),
    (Fn(lambda m, x: m[0](x), nn.LayerNorm([3, 4])), ((2, 3, 4),), aten.layer_norm.default, {aten.layer_norm.default}),
    (Fn(lambda m, x: m[1](m[0](x) + 1), nn.Conv2d(3, 4, 1), nn.BatchNorm2d(4)), ((1, 3, 4, 4),),
     aten.batch_norm.default, {aten.conv2d.default}),
    (Fn(lambda m, x: m[1](m[0](x)), nn.Conv1d(3, 4, 3), nn.BatchNorm1d(4)), ((1, 3, 8),), aten.batch_norm.default,
     {aten.conv2d.default}),
    (Fn(lambda m, x: x * torch.sigmoid(x.mean([1], keepdim=True)).expand_as(x)), ((1, 4, 3),), aten.expand_as.default,
     {aten.mul.Tensor}),
    (Fn(lambda m, x: F.max_pool2d(x, 2, return_indices=True)[0]), ((1, 2, 4, 4),), aten.max_pool2d_with_indices.default,
     {aten.max_pool2d.default}),
    (Fn(lambda m, x: x + torch.ones(1, 5) * torch.arange(5.0) + torch.zeros_like(x)), ((2, 5),), aten.arange.default,
     {aten.add.Tensor}),
    (Fn(lambda m, x: m[0](x), nn.GroupNorm(2, 6)), ((2, 6, 3, 4),), aten.group_norm.default,
     {aten.layer_norm.default, aten.mul.Tensor}),
    (Fn(lambda m, x: m[0](x), nn.InstanceNorm1d(3, affine=True)), ((2, 3, 7),), aten.instance_norm.default,
     {aten.layer_norm.default}),
    (Fn(lambda m, x: x.var(dim=(1, 2)) + x.std(dim=-1, correction=0, keepdim=True).mean()), ((2, 3, 4),),
     aten.var.dim, {aten.mean.dim, aten.sub.Tensor}),
    (Fn(lambda m, x: x.amax(dim=(0, 2)) - x.amin(dim=-1, keepdim=True).sum()), ((2, 3, 4),), aten.amax.default,
     {aten.max_pool2d.default}),
    (Fn(lambda m, x: F.adaptive_max_pool2d(x, (2, 1))), ((1, 3, 4, 6),), aten.adaptive_max_pool2d.default,
     {aten.max_pool2d.default}),
    (Fn(lambda m, x: F.interpolate(x, size=(9, 5), mode="nearest")), ((1, 2, 6, 7),), aten.upsample_nearest2d.vec,
     {aten.cat.default, aten.slice.Tensor}),
    (Fn(lambda m, x: F.interpolate(x, scale_factor=(1.5, 0.7), mode="nearest")), ((1, 2, 10, 13),),
     aten.upsample_nearest2d.vec, {aten.cat.default, aten.slice.Tensor}),
]


@pytest.mark.parametrize("model,shapes,before,after", CASES, ids=[str(case[2]).removeprefix("aten.") for case in CASES])
def test_the_graph_is_said_in_ops_ember_imports(model, shapes, before, after):
    inputs = tuple(torch.randn(s, generator=torch.Generator().manual_seed(1)) for s in shapes)
    assert before in _exported_targets(model, *inputs)
    targets = _targets(model, *inputs)
    assert after <= set(targets)
    if before not in after:
        assert before not in targets
    unknown = [t for t in targets if t not in IMPORTERS and t not in FLOAT_IMPORTERS and t is not operator.getitem
               and torch.Tag.pointwise not in getattr(t, "tags", ())]
    assert not unknown


def test_a_conv1d_batch_norm_folds_into_its_weights_and_a_free_one_is_a_depthwise_conv():
    folded = _targets(Fn(lambda m, x: m[1](m[0](x)), nn.Conv1d(3, 4, 3), nn.BatchNorm1d(4)), torch.randn(1, 3, 8))
    assert folded.count(aten.conv2d.default) == 1
    free = _targets(Fn(lambda m, x: m[0](x * 2), nn.BatchNorm2d(3)), torch.randn(1, 3, 4, 4))
    assert free.count(aten.conv2d.default) == 1  # groups = channels, 1x1


def test_a_repeated_value_is_computed_once_and_identities_vanish():
    model = Fn(lambda m, x: F.elu(m[0](x)) + F.selu(m[0](x).clone()), nn.Linear(4, 4))
    targets = _targets(model, torch.randn(2, 4))
    assert targets.count(aten.linear.default) == 1 and aten.clone.default not in targets


def _conv1d_stack(m, x):
    """conv1d -> ReLU -> conv1d -> BatchNorm1d -> ReLU, a residual add and a SiLU (x * sigmoid(x))."""
    y = torch.relu(m[0](x))
    z = torch.relu(m[2](m[1](y)))
    s = y + z
    return s * torch.sigmoid(s)


def test_reshapes_sink_below_elementwise_ops_so_a_conv1d_stack_stays_four_d():
    """sink_reshapes: each conv1d's squeeze moves below the ReLU, add and SiLU that read it, so every
    elementwise op sees the conv2d's rank-4 value (the ReLU then fuses into the convolution)."""
    model = Fn(_conv1d_stack, nn.Conv1d(4, 6, 3), nn.Conv1d(6, 6, 3, padding=1), nn.BatchNorm1d(6))
    x = torch.randn(1, 4, 11)
    traced = export_float(model.eval(), (x,))
    with torch.no_grad():
        torch.testing.assert_close(traced(x), model(x), rtol=1e-5, atol=1e-5)
    reshapes = (aten.squeeze.dim, aten.reshape.default, aten.unsqueeze.default)
    for node in traced.graph.nodes:
        if node.op == "call_function" and torch.Tag.pointwise in getattr(node.target, "tags", ()):
            assert node.meta["val"].dim() == 4, node
            assert not any(isinstance(a, torch.fx.Node) and a.target in reshapes for a in node.args), node
    before = torch.export.export(model.eval(), (x,)).graph
    assert any(n.target == aten.relu.default for n in before.nodes)


def test_a_region_of_one_tensor_keeps_reading_one_side_of_a_reshape():
    """A per-channel PReLU after a conv1d: `a * x` broadcasts the slope and cannot move below the
    squeeze, so neither can `x > 0`: the region stays a function of one tensor (one table)."""
    import compiler

    model = Fn(lambda m, x: m[1](m[0](x)), nn.Conv1d(3, 5, 3), nn.PReLU(5))
    x = torch.randn(1, 3, 11)
    traced = export_float(model.eval(), (x,))
    ranks = {n.meta["val"].dim() for n in traced.graph.nodes
             if n.op == "call_function" and torch.Tag.pointwise in getattr(n.target, "tags", ())}
    assert ranks == {3}, ranks
    program = compiler.lower(model.eval(), (x,), [torch.randn(1, 3, 11) for _ in range(8)])
    assert [op.kind for op in program.graph.ops].count("lut") == 1


def test_a_conv1d_stack_lowers_to_convolutions_with_fused_activations():
    import compiler

    model = Fn(lambda m, x: torch.relu(m[1](torch.relu(m[0](x)))), nn.Conv1d(4, 6, 3), nn.Conv1d(6, 5, 1))
    x = torch.randn(1, 4, 13)
    program = compiler.lower(model.eval(), (x,), [torch.randn(1, 4, 13) for _ in range(8)])
    kinds = [op.kind for op in program.graph.ops]
    # NCL in, NCL out: a layout change at each end, nothing between the convolutions
    assert kinds[3:5] == ["conv2d", "conv2d"] and "lut" not in kinds and len(kinds) == 8, kinds
    want = program.quantized_model(x).detach().numpy()
    got = program.run_reference(x.numpy())[0]
    scale = float(program.graph.tensors[program.graph.ops[-1].inputs[0]].quant.scale[0])
    assert abs(got - want).max() <= scale * 1.001
