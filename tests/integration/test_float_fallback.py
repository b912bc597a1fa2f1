"""Float fallback end to end: ops left in float by CortexMQuantizer's config, and ops with no
int8 lowering, run in float32 kernels between quantize / dequantize; the compiler reports each
one and why; an op with no kernel at all is a compile-time error naming it and the model's line.

Tolerances: against PyTorch's converted (PT2E) model, the program's outputs (dequantized int8)
agree within 1 output LSB (the float ops sum in another order than ATen, which can move a value
across a rounding boundary of the next quantize); on the devices (host, Cortex-M55) they equal
the reference byte for byte, the float ops here being exact ones (the kernels on the M4 and the
soft-float M3: the conformance suite's tests/kernels/cases/float_*.py).
"""
from __future__ import annotations

import inspect

import numpy as np
import pytest
import torch
from torch import nn
from torch.nn import functional as F

import compiler
from compiler.errors import UnsupportedOpError
from compiler.quantizer import CortexMQuantizer
from tests.integration.agreement import lsb_differences, nhwc
from tests.integration.runners import DEVICES, output_of


class SkippedHead(nn.Module):
    """int8 stem and output conv; a depthwise conv + ReLU + max pool in `head` and a global
    average pool that the config keeps in float."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(11)
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.head = nn.Sequential(nn.Conv2d(8, 8, 3, padding=1, groups=8), nn.ReLU(), nn.MaxPool2d(3, 2, 1))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.out = nn.Conv2d(8, 5, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(self.pool(self.head(torch.relu(self.stem(x)))))


class FloatNorms(nn.Module):
    """Layer norm and RMS norm left in float by the config (skip_module_types; both have int8
    lowerings, tests/compiler/test_norm.py): float32 between two int8 linears, the RMS norm in
    float_layer_norm's RMS mode; the division after them is int8 (a table of 1 / (|z| + 1), a
    function of one tensor, and an int8 product)."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(12)
        self.fc1, self.norm, self.rms, self.fc2 = nn.Linear(12, 24), nn.LayerNorm(24), nn.RMSNorm(24), nn.Linear(24, 6)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        z = torch.relu(self.fc1(x))
        return self.fc2(self.rms(self.norm(z)) / (z.abs() + 1.0))


MODELS = {
    "skipped_head": (SkippedHead, (1, 3, 9, 7), CortexMQuantizer(skip_modules=("head", "pool"))),
    "float_norms": (FloatNorms, (1, 12), CortexMQuantizer(skip_module_types=(nn.LayerNorm, nn.RMSNorm))),
}


def _lower(model: str, target: str) -> compiler.Program:
    cls, shape, quantizer = MODELS[model]
    calibration = [torch.randn(4, *shape[1:], generator=torch.Generator().manual_seed(i)) for i in range(6)]
    return compiler.lower(cls().eval(), (torch.zeros(shape),), calibration, target=target, quantizer=quantizer,
                          report_fallbacks=False)


@pytest.fixture(scope="module")
def programs() -> dict:
    return {}


def _program(programs: dict, model: str, target: str) -> compiler.Program:
    """Lowered once per model: no pass depends on the target here (no tier-specific layout), so
    the other targets take the same graph and only their tier in the file differs."""
    if model not in programs:
        programs[model] = _lower(model, "host")
    lowered = programs[model]
    return compiler.Program(lowered.graph, compiler.Target(target), model, lowered.plan, lowered.quantized_model)


def test_skipped_module_runs_in_float_and_is_reported(programs, capsys):
    program = _program(programs, "skipped_head", "host")
    kinds = [op.kind for op in program.graph.ops]
    assert kinds.count("conv2d") == 2 and "float_conv2d" in kinds and "depthwise_conv2d" not in kinds
    (conv,) = [op for op in program.graph.ops if op.kind == "float_conv2d"]
    assert conv.attrs["groups"] == 8 and conv.attrs["activation_min"] == 0.0  # the head's ReLU, folded
    assert conv.attrs["float_reason"] == "left in float by quantizer config (skip_modules 'head')"
    # int8 -> float -> int8 around it: Ember's own dequantize and quantize ops
    position = kinds.index("float_conv2d")
    assert kinds[position - 1:position + 4] == ["dequantize", "float_conv2d", "float_max_pool2d", "float_avg_pool2d",
                                                 "quantize"]
    summary = program.summary()
    assert "3 ops fell back to float32" in summary and "skip_modules 'pool'" in summary and "skip_modules 'head'" in summary and "head.0 (Conv2d)" in summary


def test_norms_left_in_float_run_in_float_and_are_reported(programs):
    program = _program(programs, "float_norms", "host")
    kinds = [op.kind for op in program.graph.ops]
    assert kinds.count("fully_connected") == 2 and "norm" not in kinds
    norms = [op for op in program.graph.ops if op.kind == "float_layer_norm"]
    assert [op.attrs["rms"] for op in norms] == [False, True]
    assert [op.attrs["float_reason"] for op in norms] == [
        "left in float by quantizer config (skip_module_types LayerNorm)",
        "left in float by quantizer config (skip_module_types RMSNorm)"]
    assert kinds.count("lut") == 1 and kinds.count("mul") == 1


@pytest.mark.parametrize("model", list(MODELS))
def test_reference_agrees_with_pytorch(programs, model):
    program = _program(programs, model, "host")
    _, shape, _ = MODELS[model]
    x = torch.randn(16, *shape[1:], generator=torch.Generator().manual_seed(99))
    lsb = lsb_differences(program, x)
    assert np.abs(lsb).max() <= 1 and (lsb == 0).mean() >= 0.97, np.abs(lsb).max()


@pytest.mark.parametrize("model", list(MODELS))
@pytest.mark.parametrize("board,target", DEVICES)
def test_device_equals_reference(programs, tmp_path, model, board, target):
    program = _program(programs, model, target)
    _, shape, _ = MODELS[model]
    x = nhwc(torch.randn(*shape, generator=torch.Generator().manual_seed(5)))
    got = np.frombuffer(output_of(board, program, [x], tmp_path), np.float32)
    np.testing.assert_array_equal(got, program.run_reference(x)[0].reshape(-1))


class NoKernel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(6, 6)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cumsum(self.fc(x), dim=1)  # NO_KERNEL_LINE


def test_op_without_any_kernel_names_it_and_the_line():
    line = next(n for n, text in enumerate(inspect.getsource(inspect.getmodule(NoKernel)).splitlines(), 1)
                if text.endswith("# NO_KERNEL_LINE"))
    with pytest.raises(UnsupportedOpError) as error:
        compiler.lower(NoKernel().eval(), (torch.zeros(1, 6),), [torch.randn(2, 6)], target="host")
    message = str(error.value)
    assert "aten.cumsum.default" in message and f"test_float_fallback.py:{line}" in message
    assert "torch.triu" in message  # the rewrite that exists


def test_skip_by_module_type_and_op_kind():
    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a, self.b = nn.Linear(8, 8), nn.Linear(8, 8)
            self.norm = nn.LayerNorm(8)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            y = self.a(x) + self.b(x)
            return torch.sigmoid(self.norm(y))

    calibration = [torch.randn(2, 8) for _ in range(3)]
    quantizer = CortexMQuantizer(skip_ops=("add", torch.ops.aten.sigmoid.default))
    program = compiler.lower(Net().eval(), (torch.zeros(1, 8),), calibration, target="host", quantizer=quantizer,
                             report_fallbacks=False)
    reasons = {op.attrs.get("function", op.kind): op.attrs["float_reason"]
               for op in program.graph.ops if "float_reason" in op.attrs}
    assert reasons["add"] == "left in float by quantizer config (skip_ops 'add')"
    assert reasons["sigmoid"].startswith("left in float by quantizer config (skip_ops")
    assert [op.kind for op in program.graph.ops].count("fully_connected") == 2
    tokens = [torch.randn(2, 3, 8) for _ in range(3)]  # [batch, tokens, features]: linears over the last axis
    program = compiler.lower(Net().eval(), (torch.zeros(1, 3, 8),), tokens, target="host",
                             quantizer=CortexMQuantizer(skip_module_types=(nn.Linear,)), report_fallbacks=False)
    linear = [op for op in program.graph.ops if op.kind == "float_fully_connected"]
    assert len(linear) == 2 and "skip_module_types Linear" in linear[0].attrs["float_reason"]
    x = np.random.default_rng(0).normal(size=(1, 3, 8)).astype(np.float32)
    theirs = program.quantized_model(torch.from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(program.run_reference(x)[0], theirs, atol=2 / 256)


def test_quantizer_options_are_validated():
    with pytest.raises(TypeError, match="skip_modules takes a tuple"):
        CortexMQuantizer(skip_modules="head")
    with pytest.raises(TypeError, match="nn.Module classes"):
        CortexMQuantizer(skip_module_types=(int,))


class EveryFloatOp(nn.Module):
    """An int8 linear, then every elementwise float op and softmax, kept in float by skip_ops."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(13)
        self.fc = nn.Linear(10, 16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.fc(x)
        m = y.abs()
        a = torch.exp(-m) + torch.log(m + 1) - torch.sqrt(m) * torch.rsqrt(m + 1)
        b = torch.minimum(F.gelu(y), F.silu(y)) + torch.maximum(torch.tanh(y), F.leaky_relu(y, 0.2))
        c = F.hardswish(y) / (F.hardsigmoid(y) + 1) - torch.sigmoid(-y) * F.gelu(y, approximate="tanh")
        return torch.softmax(a + b + torch.relu(c), dim=-1)


def test_every_float_op_from_pytorch_agrees_with_pytorch(capsys):
    skipped = ("add", "sub", "mul", "minimum", "maximum", "gelu", "silu", "tanh", "leaky_relu", "hardswish",
               "hardsigmoid", "sigmoid", "relu", "softmax", "exp", "log", "sqrt", "rsqrt", "abs", "neg", "div")
    # (all of them also lower to int8: tables, or int8 ops of two tensors)
    program = compiler.lower(EveryFloatOp().eval(), (torch.zeros(1, 10),), [torch.randn(4, 10) for _ in range(4)],
                             target="host", quantizer=CortexMQuantizer(skip_ops=skipped))
    err = capsys.readouterr().err  # lower() prints the report
    # 29, not 30: m + 1, written twice, is computed once
    assert "ember: model: 29 ops fell back to float32" in err and "float_unary(exp)" in err
    assert "left in float by quantizer config (skip_ops 'exp')" in err and "left in float by quantizer config (skip_ops 'gelu')" in err
    functions = {op.attrs.get("function", op.kind) for op in program.graph.ops if "float_reason" in op.attrs}
    assert functions == {"exp", "neg", "abs", "log", "add", "sqrt", "rsqrt", "mul", "sub", "minimum", "maximum",
                         "gelu", "gelu_tanh", "silu", "tanh", "leaky_relu", "hardswish", "hardsigmoid", "div",
                         "sigmoid", "float_softmax"}  # the ReLU folds into the float sub before it
    assert [op.kind for op in program.graph.ops][:2] == ["quantize", "fully_connected"]
    x = torch.randn(8, 10, generator=torch.Generator().manual_seed(4))
    ours = np.concatenate([program.run_reference(xi[None].numpy())[0] for xi in x])
    np.testing.assert_allclose(ours, program.quantized_model(x).detach().numpy(), rtol=1e-5, atol=1e-6)
