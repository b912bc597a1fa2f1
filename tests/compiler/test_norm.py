"""The int8 norm op (compiler/ops/norm.py): nn.LayerNorm, nn.RMSNorm, F.rms_norm, group norm and
instance norm (layer norms after compiler/decompositions.py) lower to `norm` with no float op;
weight-less forms too; rows longer than the kernel takes stay in float32; and the integer
program agrees with PyTorch's PT2E model within 1 LSB, measured on random inputs, where the
norm's output is the program's output (so the figure is the norm's own)."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn
from torch.nn import functional as F

import compiler
from compiler import reference
from compiler.frontend import export_float
from compiler.ops.norm import norm_parameters
from tests.integration.agreement import lsb_differences

aten = torch.ops.aten


class Norm(nn.Module):
    """A linear (so the norm's input has a calibrated scale of its own), then the norm."""

    def __init__(self, features: int, norm: nn.Module | None, functional=None) -> None:
        super().__init__()
        torch.manual_seed(3)
        self.fc = nn.Linear(12, features)
        nn.init.normal_(self.fc.bias, 0.0, 2.0)  # rows off 0: layer norm's mean matters
        self.norm, self.functional = norm, functional
        for p in (self.norm.parameters() if self.norm is not None else ()):
            nn.init.normal_(p, 0.8 if p.dim() and p is getattr(self.norm, "weight", None) else 0.0, 0.4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.fc(x)
        return self.norm(y) if self.norm is not None else self.functional(y)


class WrittenLayerNorm(nn.Module):
    """A layer norm written out, as older code has it: (x - mean) / sqrt(var + eps) * w + b."""

    def __init__(self, features: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.weight, self.bias, self.eps = nn.Parameter(torch.ones(features)), nn.Parameter(torch.zeros(features)), eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias


class WrittenVarNorm(WrittenLayerNorm):
    """The same with torch.var(unbiased=False), rsqrt and the weight first, no bias."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        var = x.var(dim=-1, keepdim=True, unbiased=False)
        return self.weight * (x - x.mean(dim=-1, keepdim=True)) * torch.rsqrt(var + self.eps)


class WrittenRMSNorm(nn.Module):
    """LLaMA's RMSNorm module, as its code writes it."""

    def __init__(self, features: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.weight, self.eps = nn.Parameter(torch.ones(features)), eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


# name: (model, input shape, the norm's mode)
MODELS = {
    "layer_norm": (lambda: Norm(40, nn.LayerNorm(40)), (1, 7, 12), "layer"),
    "layer_norm_no_affine": (lambda: Norm(33, nn.LayerNorm(33, elementwise_affine=False)), (1, 5, 12), "layer"),
    "layer_norm_no_bias": (lambda: Norm(17, nn.LayerNorm(17, bias=False, eps=1e-3)), (1, 12), "layer"),
    "rms_norm": (lambda: Norm(64, nn.RMSNorm(64)), (1, 6, 12), "rms"),
    "rms_norm_no_weight": (lambda: Norm(24, nn.RMSNorm(24, eps=1e-4, elementwise_affine=False)), (1, 12), "rms"),
    "f_rms_norm": (lambda: Norm(48, None, lambda y: F.rms_norm(y, (48,))), (1, 3, 12), "rms"),
    # written out in ops (compiler/passes/fold_written_norms.py)
    "written_layer_norm": (lambda: Norm(40, WrittenLayerNorm(40)), (1, 7, 12), "layer"),
    "written_var_norm": (lambda: Norm(20, WrittenVarNorm(20, eps=1e-3)), (1, 4, 12), "layer"),
    "written_rms_norm": (lambda: Norm(64, WrittenRMSNorm(64)), (1, 6, 12), "rms"),
    "written_rms_norm_4d": (lambda: Norm(16, None, lambda y: y.reshape(-1, 2, 3, 16) / torch.sqrt(
        (y.reshape(-1, 2, 3, 16) * y.reshape(-1, 2, 3, 16)).mean(3, keepdim=True) + 1e-5)), (1, 6, 12), "rms"),
}


def _calibration(shape: tuple[int, ...]) -> list[torch.Tensor]:
    return [torch.randn(8, *shape[1:], generator=torch.Generator().manual_seed(i)) for i in range(6)]


@pytest.fixture(scope="module")
def programs() -> dict:
    return {}


def _program(programs: dict, name: str) -> compiler.Program:
    if name not in programs:
        make, shape, _ = MODELS[name]
        programs[name] = compiler.lower(make().eval(), (torch.zeros(shape),), _calibration(shape), target="host",
                                        report_fallbacks=False)
    return programs[name]


@pytest.mark.parametrize("name", list(MODELS))
def test_norm_lowers_to_one_int8_op(programs, name):
    program = _program(programs, name)
    kinds = [op.kind for op in program.graph.ops]
    (norm,) = [op for op in program.graph.ops if op.kind == "norm"]
    assert norm.attrs["mode"] == MODELS[name][2]
    assert not [k for k in kinds if k.startswith("float_")] and "lut" not in kinds and "mul" not in kinds
    x, multiplier, bias = (program.graph.tensors[t] for t in norm.inputs)
    assert x.dtype == "int8" and multiplier.dtype == bias.dtype == "int32"
    assert multiplier.shape == bias.shape == (x.shape[-1],)


@pytest.mark.parametrize("name", list(MODELS))
def test_norm_agrees_with_pt2e(programs, name):
    program = _program(programs, name)
    _, shape, _ = MODELS[name]
    x = torch.randn(64, *shape[1:], generator=torch.Generator().manual_seed(99)) * 1.2
    lsb = lsb_differences(program, x)
    # measured: no output 2 LSB or more away; <= 0.1 % of them 1 LSB away (ties of PyTorch's float
    # rounding against the integer model's, which is within 2^-10 LSB of exact real arithmetic)
    assert np.abs(lsb).max() <= 1 and (lsb == 0).mean() >= 0.999, (np.abs(lsb).max(), (lsb != 0).mean())


@pytest.mark.parametrize("name", [n for n in MODELS if n.startswith("written")])
def test_a_written_norm_becomes_the_norm_it_computes(name):
    make, shape, mode = MODELS[name]
    model, x = make().eval(), torch.randn(5, *shape[1:])
    traced = export_float(model, (x,))
    targets = [n.target for n in traced.graph.nodes if n.op == "call_function"]
    assert targets.count(aten.layer_norm.default if mode == "layer" else aten.rms_norm.default) == 1, targets
    assert not {aten.mean.dim, aten.rsqrt.default, aten.sqrt.default} & set(targets), targets
    with torch.no_grad():
        torch.testing.assert_close(traced(x), model(x), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("forward", [
    lambda y: (y - y.mean(-1, keepdim=True)) * torch.rsqrt(y.var(-1, keepdim=True) + 1e-5),  # unbiased: not a norm
    lambda y: y * torch.rsqrt(y.pow(2).mean(1, keepdim=True) + 1e-6),  # over the tokens, not the last axis
    lambda y: y * torch.rsqrt(y.pow(2).mean(-1, keepdim=True) + 1e-6) * torch.arange(7.0).reshape(7, 1),
])
def test_what_only_looks_like_a_norm_stays_as_written(forward):
    model, x = Norm(10, None, forward).eval(), torch.randn(2, 7, 12)
    traced = export_float(model, (x,))
    targets = {n.target for n in traced.graph.nodes if n.op == "call_function"}
    assert not {aten.layer_norm.default, aten.rms_norm.default} & targets, targets
    with torch.no_grad():
        torch.testing.assert_close(traced(x), model(x), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("norm,kind", [(nn.GroupNorm(4, 8), "group"), (nn.InstanceNorm1d(8, affine=True), "instance")])
def test_group_and_instance_norm_lower_to_int8_norm(norm, kind):
    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            torch.manual_seed(4)
            self.conv, self.norm = nn.Conv1d(3, 8, 3), norm

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.norm(self.conv(x))

    shape = (1, 3, 20)
    program = compiler.lower(Net().eval(), (torch.zeros(shape),), _calibration(shape), target="host",
                             report_fallbacks=False)
    kinds = [op.kind for op in program.graph.ops]
    assert "norm" in kinds and not [k for k in kinds if k.startswith("float_")], kinds
    lsb = lsb_differences(program, torch.randn(16, *shape[1:], generator=torch.Generator().manual_seed(7)))
    assert np.abs(lsb).max() <= 1, kind


def test_rows_longer_than_the_kernel_takes_stay_in_float():
    class Long(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return F.layer_norm(x, (reference.NORM_MAX_DEPTH + 1,))

    shape = (1, reference.NORM_MAX_DEPTH + 1)
    program = compiler.lower(Long().eval(), (torch.zeros(shape),), [torch.randn(shape)], target="host",
                             report_fallbacks=False)
    (norm,) = [op for op in program.graph.ops if op.kind == "float_layer_norm"]
    assert norm.attrs["float_reason"] == f"int8 norm takes rows of at most {reference.NORM_MAX_DEPTH} values, this one has {shape[1]}"


def test_parameters_keep_the_fixed_point_in_range():
    """norm_parameters: the normalised value's bits and the multipliers fit int32, the biases the
    bound the kernel's saturating sum relies on, and the epsilon term the 62 bits of T."""
    rng = np.random.default_rng(0)
    for depth in (1, 3, 64, 255, reference.NORM_MAX_DEPTH):
        gamma, beta = rng.normal(1, 2, depth), rng.normal(0, 2, depth)
        multiplier, bias, attrs = norm_parameters(depth, 0.01, 0.02, -7, gamma, beta, 1e-5)
        assert depth << (2 * attrs["norm_bits"]) <= 1 << 60 < depth << (2 * attrs["norm_bits"] + 2) or attrs["norm_bits"] == 30
        assert np.abs(bias.astype(np.int64)).max() < 2**30 and attrs["epsilon_shift"] % 2 == 0
        assert ((depth * depth) << 16).bit_length() + attrs["epsilon_shift"] <= 61
    with pytest.raises(ValueError, match="no fixed point"):
        norm_parameters(4, 0.01, 1e-9, 0, np.full(4, 1e3), np.zeros(4), 1e-5)


def test_rsqrt_seeds_are_the_kernels():
    """The C table em_nn_rsqrt_seed holds reference.NORM_RSQRT_SEEDS, in order."""
    from pathlib import Path

    source = (Path(__file__).parents[2] / "runtime/kernels/em_norm_s8.c").read_text()
    table = source[source.index("em_nn_rsqrt_seed[24] = {"):].split("}", 1)[0]
    assert [int(v) for v in table.split("{", 1)[1].replace("u", "").replace(",", " ").split()] == list(
        reference.NORM_RSQRT_SEEDS)


def test_rsqrt_is_within_one_unit_of_q29():
    m = np.unique(np.concatenate([np.arange(1 << 28, 1 << 30, 4099, dtype=np.int64), [(1 << 30) - 1]]))
    exact = 2.0 ** 29 / np.sqrt(m / 2.0 ** 30)
    assert np.abs(reference.norm_rsqrt_q29(m) - exact).max() <= 1.0
