"""Each pass: the graph before and after."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

import compiler
from compiler.errors import UnsupportedOpError
from compiler.frontend import export_float, quantize, importable
from compiler.importer import import_program
from compiler.ir import Graph, Op, Quant, Tensor
from compiler.options import LoweringOptions
from compiler.passes import fold_activations, lower_boundaries, lower_ops, lower_ops_after_folds, remove_dead_tensors
from compiler.passes.fold_batch_norm import fold_batch_norm
from tests.compiler.models import calibration, mlp

aten = torch.ops.aten
OPTIONS = LoweringOptions()
INT8_IO = LoweringOptions(int8_io=True)


def _imported(model: nn.Module, features: int) -> Graph:
    example = (torch.randn(1, features),)
    return import_program(importable(quantize(model, example, calibration(features)), example))


def kinds(graph: Graph) -> list[str]:
    return [op.kind for op in graph.ops]


def test_fold_batch_norm_removes_bn_and_keeps_the_function():
    model = mlp([5, 7, 3])
    x = torch.randn(4, 5)
    gm = torch.export.export(model, (x,)).module(check_guards=False)
    before = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    assert aten.batch_norm.default in before
    folded = fold_batch_norm(gm)
    after = [n.target for n in folded.graph.nodes if n.op == "call_function"]
    assert aten.batch_norm.default not in after and after.count(aten.linear.default) == 2
    torch.testing.assert_close(folded(x), model(x), rtol=1e-5, atol=1e-5)


def test_fold_batch_norm_adds_a_bias_where_there_was_none():
    model = nn.Sequential(nn.Linear(4, 3, bias=False), nn.BatchNorm1d(3)).eval()
    model[1].running_mean.fill_(0.7)
    x = torch.randn(2, 4)
    folded = export_float(model, (x,))
    torch.testing.assert_close(folded(x), model(x), rtol=1e-5, atol=1e-5)


def test_import_mirrors_the_quantized_torch_graph():
    graph = _imported(mlp([6, 5, 4], batch_norm=False), 6)
    assert kinds(graph).count("aten.linear") == 2 and "aten.clamp" in kinds(graph)
    assert kinds(graph).count("quantize") == 3 and kinds(graph)[-1] == "dequantize"
    assert sum(1 for op in graph.ops if op.kind == "dequantize" and op.attrs.get("per_channel")) == 4


def test_fold_activations_moves_the_clamp_into_the_linear():
    graph = _imported(mlp([6, 5, 4], nn.ReLU6, batch_norm=False), 6)
    before = kinds(graph)
    folded = fold_activations(graph, OPTIONS)
    assert before.count("aten.clamp") == 1 and "aten.clamp" not in kinds(folded)
    (first_linear, _) = [op for op in folded.ops if op.kind == "aten.linear"]
    assert first_linear.attrs["activation"] == (0.0, 6.0)


def test_linear_lowering_folds_zero_point_and_requantization():
    graph = fold_activations(_imported(mlp([6, 5, 4], batch_norm=False), 6), OPTIONS)
    torch_bias = [graph.tensors[op.inputs[0]].data for op in graph.ops
                  if op.kind == "dequantize" and op.attrs.get("per_channel") and graph.tensors[op.inputs[0]].dtype == "int32"]
    lowered = lower_ops_after_folds(graph, OPTIONS)
    assert "aten.linear" not in kinds(lowered)
    fcs = [op for op in lowered.ops if op.kind == "fully_connected"]
    assert len(fcs) == 2
    first = fcs[0]
    x, w, b = (lowered.tensors[t] for t in first.inputs)
    assert x.dtype == "int8" and w.dtype == "int8" and b.dtype == "int32" and w.shape == (5, 6)
    assert np.abs(w.data).max() <= 127
    zp_in = int(x.quant.zero_point[0])
    np.testing.assert_array_equal(b.data, torch_bias[0] - zp_in * w.data.astype(np.int64).sum(axis=1))
    out = lowered.tensors[first.outputs[0]].quant
    real = float(x.quant.scale[0]) * w.quant.scale.astype(np.float64) / float(out.scale[0])
    approx = first.attrs["multiplier"] * 2.0 ** (first.attrs["shift"].astype(np.float64) - 31)
    np.testing.assert_allclose(approx, real, rtol=1e-8)
    assert first.attrs["activation_min"] == first.attrs["output_offset"]  # ReLU: clamp at the zero point
    assert first.attrs["activation_max"] == 127
    assert fcs[1].attrs["activation_min"] == -128  # the last linear has no activation


def test_linear_on_a_3d_input_folds_the_tokens_into_the_batch():
    class Tokens(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 4)

        def forward(self, x):
            return self.fc(x)

    program = compiler.lower(Tokens().eval(), (torch.randn(2, 3, 8),), [torch.randn(2, 3, 8) for _ in range(4)])
    fc = next(op for op in program.graph.ops if op.kind == "fully_connected")
    assert program.graph.tensors[fc.inputs[0]].shape == (6, 8) and program.graph.tensors[fc.outputs[0]].shape == (6, 4)
    x = torch.randn(2, 3, 8, generator=torch.Generator().manual_seed(3))
    ours = program.run_reference(x.numpy())[0]
    theirs = program.quantized_model(x).detach().numpy()
    scale = float(program.graph.producer(program.graph.outputs[0]).attrs["scale"])
    assert ours.shape == (2, 3, 4) and np.abs(np.rint((ours - theirs) / scale)).max() <= 1


def test_batch_norm_after_a_3d_linear_is_not_folded_wrongly():
    class Sequence(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc, self.bn = nn.Linear(8, 16), nn.BatchNorm1d(16)
            self.bn.running_mean.uniform_(-1, 1)

        def forward(self, x):
            return self.bn(self.fc(x))

    model = Sequence().eval()
    x = torch.randn(2, 16, 8)
    folded = export_float(model, (x,))
    torch.testing.assert_close(folded(x), model(x), rtol=1e-5, atol=1e-5)


def test_a_layer_called_twice_gets_each_calls_bias_scale():
    class Twice(nn.Module):
        def __init__(self):
            super().__init__()
            torch.manual_seed(0)
            self.fc = nn.Linear(6, 6)

        def forward(self, x):
            return self.fc(torch.relu(self.fc(x)))

    import compiler

    model = Twice().eval()
    program = compiler.lower(model, (torch.zeros(1, 6),), calibration(6))
    x = torch.randn(32, 6, generator=torch.Generator().manual_seed(7))
    ours = np.stack([program.run_reference(r[None].numpy())[0][0] for r in x])
    theirs = program.quantized_model(x).detach().numpy()
    scale = float(program.graph.producer(program.graph.outputs[0]).attrs["scale"])
    assert np.abs(np.rint((ours - theirs) / scale)).max() <= 1


def test_lower_boundaries_and_dead_tensors_leave_only_ember_ops():
    graph = lower_ops_after_folds(fold_activations(_imported(mlp([6, 5, 4]), 6), OPTIONS), OPTIONS)
    final = remove_dead_tensors(lower_boundaries(graph, OPTIONS), OPTIONS)
    assert kinds(final) == ["quantize", "fully_connected", "fully_connected", "dequantize"]
    assert set(final.tensors) == {t for op in final.ops for t in op.inputs + op.outputs}
    assert final.tensors[final.inputs[0]].dtype == "float32"
    assert final.tensors[final.outputs[0]].dtype == "float32"


def test_int8_io_removes_the_boundary_conversions():
    graph = lower_ops_after_folds(fold_activations(_imported(mlp([6, 5, 4]), 6), OPTIONS), OPTIONS)
    final = remove_dead_tensors(lower_boundaries(graph, INT8_IO), INT8_IO)
    assert kinds(final) == ["fully_connected", "fully_connected"]
    assert final.tensors[final.inputs[0]].dtype == "int8" and final.tensors[final.inputs[0]].quant is not None
    assert final.tensors[final.outputs[0]].dtype == "int8"


def test_remove_dead_tensors_drops_unread_ops():
    t = {n: Tensor(n, "int8", (2,)) for n in "abc"}
    graph = Graph(t, [Op("relu", ["a"], ["b"]), Op("relu", ["a"], ["c"])], ["a"], ["b"])
    remove_dead_tensors(graph, OPTIONS)
    assert [op.outputs for op in graph.ops] == [["b"]] and set(graph.tensors) == {"a", "b"}


def test_unsupported_op_names_the_op_and_the_model_line():
    class WithCumsum(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            return torch.cumsum(self.fc(x), dim=1)

    with pytest.raises(UnsupportedOpError) as error:
        _imported(WithCumsum().eval(), 4)
    assert "cumsum" in str(error.value) and "test_passes.py" in str(error.value)


def test_quant_per_tensor_helper():
    q = Quant.per_tensor(0.5, -3)
    assert q.scale.dtype == np.float32 and q.zero_point.tolist() == [-3]


def test_an_activation_becomes_a_table_of_pytorchs_own_codes():

    class Sigmoid(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            return torch.sigmoid(self.fc(x))

    graph = lower_ops_after_folds(fold_activations(_imported(Sigmoid().eval(), 4), OPTIONS), OPTIONS)
    assert "aten.pointwise" in kinds(graph)
    lowered = lower_ops(graph, OPTIONS)
    (lut,) = [op for op in lowered.ops if op.kind == "lut"]
    x_quant = lowered.tensors[lut.inputs[0]].quant
    out_quant = lowered.tensors[lut.outputs[0]].quant
    entries = lowered.tensors[lut.inputs[1]].data
    assert entries.shape == (256,) and np.all(np.diff(entries.astype(int)) >= 0)  # sigmoid is monotonic
    codes = torch.arange(-128, 128, dtype=torch.int8)
    x = torch.ops.quantized_decomposed.dequantize_per_tensor(codes, float(x_quant.scale[0]), int(x_quant.zero_point[0]),
                                                             -128, 127, torch.int8)
    want = torch.ops.quantized_decomposed.quantize_per_tensor(torch.sigmoid(x), float(out_quant.scale[0]),
                                                              int(out_quant.zero_point[0]), -128, 127, torch.int8)
    np.testing.assert_array_equal(entries, want.numpy())
