"""A16W8: int16 activations where the layer's precision is "a16w8" and its op has int16 kernels;
the boundaries to int8 regions; the program file; the reference against PyTorch's quantized model."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

import compiler
from compiler.errors import UnsupportedOpError
from compiler.fixedpoint import requantize_s64
from compiler.quantizer import CortexMQuantizer
from compiler.reader import read_program
from compiler.schema import program_generated as fb
from tools.debug_numerics import op_by_op_lsb


class Net(nn.Module):
    """conv2d, depthwise, an add of two branches, a pad, a pool, a flatten, linear, softmax."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.depthwise = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.pool = nn.AvgPool2d(2)
        self.head = nn.Linear(8 * 4 * 3, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.stem(nn.functional.pad(x, (1, 0, 0, 1))))
        y = torch.relu(self.depthwise(y)) + y
        return torch.softmax(self.head(self.pool(y).flatten(1)), -1)


SHAPE = (1, 3, 8, 6)


def _lower(precision: str = "a16w8", **options) -> compiler.Program:
    torch.manual_seed(7)
    model = Net().eval()
    calibration = [torch.randn(SHAPE) for _ in range(8)]
    return compiler.lower(model, (torch.randn(SHAPE),), calibration, "cortex-m55", report_fallbacks=False,
                          quantizer=CortexMQuantizer(precision=precision, **options))


@pytest.fixture(scope="module")
def programs() -> dict[str, compiler.Program]:
    return {precision: _lower(precision) for precision in ("a8w8", "a16w8")}


def _dtypes(program: compiler.Program) -> list[tuple[str, str]]:
    graph = program.graph
    return [(op.kind, graph.tensors[op.outputs[0]].dtype) for op in graph.ops]


def test_ops_with_int16_kernels_compute_in_int16_and_softmax_stays_int8(programs):
    assert _dtypes(programs["a16w8"]) == [
        ("quantize", "int16"), ("conv2d", "int16"), ("depthwise_conv2d", "int16"), ("add", "int16"),
        ("avg_pool2d", "int16"), ("fully_connected", "int16"), ("requantize", "int8"), ("softmax", "int8"),
        ("dequantize", "float32")]
    assert {dtype for kind, dtype in _dtypes(programs["a8w8"]) if kind != "dequantize"} == {"int8"}
    graph = programs["a16w8"].graph
    for op in graph.ops:
        if graph.tensors[op.outputs[0]].dtype == "int16":
            assert int(graph.tensors[op.outputs[0]].quant.zero_point[0]) == 0


def test_the_program_file_holds_int16_tensors_and_output_types(programs):
    graph, _, _ = read_program(programs["a16w8"].to_bytes())
    kinds = {op.kind: op for op in graph.ops}
    assert kinds["quantize"].attrs["output_type"] == fb.DType.INT16
    assert kinds["requantize"].attrs["output_type"] == fb.DType.INT8
    assert graph.tensors[kinds["conv2d"].outputs[0]].dtype == "int16"
    x = np.random.default_rng(0).standard_normal(SHAPE).astype(np.float32).transpose(0, 2, 3, 1)
    np.testing.assert_array_equal(compiler.reference.run(graph, [x])[graph.outputs[0]],
                                  programs["a16w8"].run_reference(x)[0])


def test_within_one_lsb_of_pytorch_op_by_op(programs):
    rng = np.random.default_rng(5)
    for precision, program in programs.items():
        lsbs = []
        for _ in range(4):
            x = rng.standard_normal(SHAPE).astype(np.float32)
            ours = [x.transpose(0, 2, 3, 1)]
            lsbs += [lsb for *_, lsb in op_by_op_lsb(program, ours)]
            theirs = program.quantized_model(torch.from_numpy(x)).detach().numpy()
            got = program.run_reference(*ours)[0]
            assert np.abs(got - theirs).max() <= 1.5 / 256  # the softmax's int8 output: one LSB
        assert max(lsbs) <= 1 and len(lsbs) >= 4 * (8 if precision == "a16w8" else 7)


def test_an_a16w8_region_meets_int8_ones_through_requantizes():
    program = _lower("a8w8", precision_modules={"depthwise": "a16w8"})
    kinds = _dtypes(program)
    assert ("depthwise_conv2d", "int16") in kinds and ("conv2d", "int8") in kinds
    requantizes = [op for op in program.graph.ops if op.kind == "requantize"]
    assert {program.graph.tensors[op.outputs[0]].dtype for op in requantizes} == {"int8", "int16"}
    x = np.random.default_rng(2).standard_normal(SHAPE).astype(np.float32)
    assert max(lsb for *_, lsb in op_by_op_lsb(program, [x.transpose(0, 2, 3, 1)])) <= 1


def test_requantize_s64_rounds_half_up_on_the_reduced_multiplier():
    # 0.75 as Q31 (shift 0): the Q15 multiplier is 24576, exactly 0.75
    multiplier, shift = np.int64(3 << 29), np.int64(0)
    acc = np.array([0, 1, 2, 3, -1, -2, -3, 2**46, -(2**46)], np.int64)
    expected = np.floor(acc * 0.75 + 0.5).astype(np.int64)
    np.testing.assert_array_equal(requantize_s64(acc, multiplier, shift), expected)
    # a multiplier within 2^15 of 2^31 saturates to 0x7FFF rather than wrapping to -2^15
    assert requantize_s64(np.int64(1 << 20), np.int64(0x7FFFFFFF), np.int64(0)) == ((1 << 20) * 0x7FFF + (1 << 14)) >> 15


def test_int16_with_a_zero_point_is_named():
    class Odd(nn.Module):
        def forward(self, x):
            return torch.ops.quantized_decomposed.quantize_per_tensor(x, 0.1, 3, -32768, 32767, torch.int16)

    from compiler.ops.quantize import _import_quantize

    node = torch.export.export(Odd(), (torch.randn(2),)).graph_module.graph
    quantize = next(n for n in node.nodes if n.op == "call_function")
    with pytest.raises(UnsupportedOpError, match="zero point 3"):
        _import_quantize(quantize, [])


class Gated(nn.Module):
    """A product of two activations (a gate) and one of an activation and a constant."""

    def __init__(self) -> None:
        super().__init__()
        self.value = nn.Conv2d(3, 6, 1)
        self.gate = nn.Conv2d(3, 6, 3, padding=1)
        self.register_buffer("weight", torch.linspace(-2.0, 3.0, 6).reshape(1, 6, 1, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.value(x) * self.gate(x) * self.weight


def test_a_product_of_int16_activations_is_an_int16_mul_within_one_lsb():
    torch.manual_seed(3)
    model = Gated().eval()
    calibration = [torch.randn(SHAPE) for _ in range(8)]
    program = compiler.lower(model, (torch.randn(SHAPE),), calibration, "cortex-m4", report_fallbacks=False,
                             quantizer=CortexMQuantizer(precision="a16w8"))
    graph = program.graph
    muls = [op for op in graph.ops if op.kind == "mul"]
    assert len(muls) == 2 and all(graph.tensors[t].dtype == "int16" for op in muls for t in (*op.inputs, *op.outputs))
    assert all(op.attrs["a_offset"] == op.attrs["b_offset"] == op.attrs["output_offset"] == 0 for op in muls)
    x = np.random.default_rng(4).standard_normal(SHAPE).astype(np.float32)
    compared = op_by_op_lsb(program, [x.transpose(0, 2, 3, 1)])
    assert max(lsb for *_, lsb in compared) <= 1 and [kind for _, kind, _ in compared].count("mul") == 2


class ConvTable(nn.Module):
    """conv2d, an activation table (SiLU), conv2d, a per-channel one (PReLU), conv2d."""

    def __init__(self) -> None:
        super().__init__()
        self.stem, self.mid, self.head = nn.Conv2d(3, 8, 3, padding=1), nn.Conv2d(8, 8, 1), nn.Conv2d(8, 4, 1)
        self.prelu = nn.PReLU(8)
        with torch.no_grad():
            self.prelu.weight.copy_(torch.linspace(0.05, 0.5, 8))  # a slope per channel: a table per channel

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.prelu(self.mid(nn.functional.silu(self.stem(x)))))


class LinearNormGru(nn.Module):
    """linear, layer norm, GRU, linear: the norm and the recurrent layer have int8 kernels only."""

    def __init__(self) -> None:
        super().__init__()
        self.inp, self.norm = nn.Linear(16, 16), nn.LayerNorm(16)
        self.gru, self.out = nn.GRU(16, 8, batch_first=True), nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(self.gru(self.norm(self.inp(x)))[0])


def _lower_a16w8(net: type[nn.Module], shape: tuple[int, ...], seed: int) -> compiler.Program:
    torch.manual_seed(seed)
    return compiler.lower(net().eval(), (torch.randn(shape),), [torch.randn(shape) for _ in range(8)], "cortex-m55",
                          report_fallbacks=False, quantizer=CortexMQuantizer(precision="a16w8"))


def _max_lsb(program: compiler.Program, shape: tuple[int, ...], seed: int) -> int:
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return max(lsb for *_, lsb in op_by_op_lsb(program, [x.transpose(0, 2, 3, 1) if len(shape) == 4 else x]))


def test_activation_tables_of_int16_layers_are_int16_tables_within_one_lsb():
    """SiLU (one table) and PReLU (a table per channel) after an int16 conv2d: int16 tables, each
    code within 1 LSB of PyTorch's computation (lut.table_s16 checks them all)."""
    program = _lower_a16w8(ConvTable, SHAPE, 11)
    graph = program.graph
    luts = [op for op in graph.ops if op.kind == "lut"]
    assert len(luts) == 2 and "requantize" not in {op.kind for op in graph.ops}
    assert all(graph.tensors[t].dtype == "int16" for op in luts for t in (*op.inputs, *op.outputs))
    assert sorted(len(graph.tensors[op.inputs[1]].shape) for op in luts) == [1, 2]
    assert _max_lsb(program, SHAPE, 6) <= 1


def test_ops_without_int16_kernels_in_an_a16w8_model_run_in_int8_between_requantizes():
    program = _lower_a16w8(LinearNormGru, (1, 6, 16), 11)
    graph = program.graph
    dtypes = {op.kind: graph.tensors[op.outputs[0]].dtype for op in graph.ops}
    assert dtypes["norm"] == dtypes["gru"] == "int8" and dtypes["fully_connected"] == "int16"
    assert "requantize" in dtypes
    assert _max_lsb(program, (1, 6, 16), 6) <= 1


class Means(nn.Module):
    """Means over H and W and over W (average pools), and over the last axis of a rank-3 tensor (a
    fully connected row of ones)."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        y = self.stem(x)
        return y.mean([2, 3]), y.mean(-1), y.flatten(2).mean(-1)


def test_means_of_int16_activations_stay_int16():
    torch.manual_seed(12)
    program = compiler.lower(Means().eval(), (torch.randn(SHAPE),), [torch.randn(SHAPE) for _ in range(8)],
                             "cortex-m55", report_fallbacks=False, quantizer=CortexMQuantizer(precision="a16w8"))
    graph = program.graph
    rounding = [op for op in graph.ops if op.kind in ("avg_pool2d", "fully_connected")]
    assert sorted(op.kind for op in rounding) == ["avg_pool2d", "avg_pool2d", "fully_connected"]
    assert all(graph.tensors[op.outputs[0]].dtype == "int16" for op in rounding)
    assert "requantize" not in {op.kind for op in graph.ops}
    x = np.random.default_rng(7).standard_normal(SHAPE).astype(np.float32)
    assert max(lsb for *_, lsb in op_by_op_lsb(program, [x.transpose(0, 2, 3, 1)])) <= 1
