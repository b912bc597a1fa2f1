"""Attention as users write it (tests/compiler/attention_models.py) lowers all int8: two
batch_matmuls and one softmax per block, no table, mul, add or requantization between them (the
scale is in the first batch_matmul's requantization, a mask in the softmax), within 1 LSB of
PyTorch's quantized model op by op and on nearly all outputs end to end; the masked softmax
really masks (its masked outputs are -128, where the mask used to vanish in an int8 add); the
host and the M55 (QEMU) run every program to the reference's bytes."""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn

import compiler
from compiler.errors import EmberCompileError, UnsupportedOpError
from compiler.reader import read_program
from compiler.reference import run
from tests.compiler.attention_models import ATTENTION_ARCHITECTURES, FORMS, _Projected
from tests.zoo.harness import lower_all, run_on_device

RUNTIME_TESTS = Path(__file__).resolve().parents[1] / "runtime"  # build_host, which the device runs import
if str(RUNTIME_TESTS) not in sys.path:
    sys.path.insert(0, str(RUNTIME_TESTS))

pytestmark = pytest.mark.slow  # lowers 19 models: about a minute on two cores (tests/tiers.py)

NAMES = [form.name for form in FORMS]
BETWEEN = {"lut", "mul", "add", "requantize", "quantize", "dequantize", "float_binary", "float_softmax"}


@pytest.fixture(scope="module")
def lowered() -> dict:
    (results,) = lower_all([("tests.compiler.attention_models", "ATTENTION_ARCHITECTURES")])
    return results


def _ops_between_products(kinds: list[str]) -> list[str]:
    first = kinds.index("batch_matmul")
    last = len(kinds) - 1 - kinds[::-1].index("batch_matmul")
    return [kind for kind in kinds[first + 1:last] if kind in BETWEEN]


@pytest.mark.parametrize("name", NAMES)
def test_lowers_all_int8_with_the_scale_and_mask_folded(lowered, name):
    result = lowered[name]
    assert result.lowered, result.error
    assert not result.float_ops, result.float_ops
    assert result.kinds.count("batch_matmul") == 2 and result.kinds.count("softmax") == 1, result.kinds
    assert not _ops_between_products(result.kinds), result.kinds
    assert "lut" not in result.kinds and "requantize" not in result.kinds, result.kinds


@pytest.mark.parametrize("name", NAMES)
def test_within_one_lsb_of_pytorch(lowered, name):
    result = lowered[name]
    assert result.worst_op_lsb <= 1, [row for row in result.op_lsb if row[2] > 1]
    assert result.end_to_end_max <= 1 and result.end_to_end_within_1 >= 0.99


@pytest.mark.parametrize("form", FORMS, ids=NAMES)
def test_the_softmax_carries_the_mask(lowered, form):
    graph, _, _ = read_program(lowered[form.name].program)
    (softmax,) = [op for op in graph.ops if op.kind == "softmax"]
    causal = "causal" in form.name or form.name == "mha_causal_mask"
    assert bool(softmax.attrs.get("mask_rows")) == form.masked
    assert bool(softmax.attrs.get("causal")) == (form.masked and causal)
    assert len(softmax.inputs) == (2 if form.masked and not causal else 1)


def _quant_scale(graph, name: str) -> float:
    return float(graph.tensors[name].quant.scale[0])


@pytest.mark.parametrize("form", [f for f in FORMS if not f.name.startswith("mha")], ids=lambda f: f.name)
def test_the_scale_is_in_the_first_products_requantization(lowered, form):
    """Its multiplier is scale_q · scale_k · (1/√d, or sdpa's scale=) / scale_out: the scale folded."""
    graph, _, _ = read_program(lowered[form.name].program)
    first = next(op for op in graph.ops if op.kind == "batch_matmul")
    real = first.attrs["output_multiplier"] * 2.0 ** (first.attrs["output_shift"] - 31)
    a, b = first.inputs
    unscaled = _quant_scale(graph, a) * _quant_scale(graph, b) / _quant_scale(graph, first.outputs[0])
    model = ATTENTION_ARCHITECTURES[form.name].build()
    head_dim = model.head_dim if isinstance(model, _Projected) else model.dim
    expected = model.kwargs.get("scale", head_dim ** -0.5) if hasattr(model, "kwargs") else head_dim ** -0.5
    assert real / unscaled == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("name", ["sdpa_causal", "causal_triu_forward", "sdpa_bool_mask", "sdpa_float_mask"])
def test_masked_positions_get_no_probability(lowered, name):
    """The softmax's output is -128 (probability 0) where the mask is, and every row with a kept
    position gives one of them a probability (the mask used to be lost to an int8 add of the
    quantized -inf: sdpa_causal's output was 0.63 off in a 0.95 range)."""
    result = lowered[name]
    graph, _, _ = read_program(result.program)
    (softmax,) = [op for op in graph.ops if op.kind == "softmax"]
    values = run(graph, result.inputs, keep_all=True)
    probabilities = values[softmax.outputs[0]]
    rows, row = softmax.attrs["mask_rows"], probabilities.shape[-1]
    if softmax.attrs["causal"]:
        masked = np.triu(np.ones((rows, row), bool), 1)
    else:
        masked = graph.tensors[softmax.inputs[1]].data.astype(bool)
    blocks = probabilities.reshape(-1, rows, row)
    assert np.all(blocks[:, masked] == -128)
    kept_probability = (np.where(masked, -128, blocks) > -128).any(axis=-1)
    assert np.all(kept_probability | masked.all(axis=-1))


def test_a_mask_mixing_a_bias_with_minus_inf_is_refused():
    class Biased(_Projected):
        def __init__(self):
            super().__init__(16, 1)
            bias = torch.linspace(-1, 1, 64).reshape(8, 8)
            self.register_buffer("bias", bias.masked_fill(torch.triu(torch.ones(8, 8, dtype=torch.bool), 1),
                                                          -math.inf))

        def attend(self, q, k, v):
            return ((q @ k.transpose(-2, -1)) + self.bias).softmax(-1) @ v

    x = torch.randn(1, 8, 16)
    with pytest.raises(UnsupportedOpError, match="mixes masked positions"):
        compiler.lower(Biased().eval(), (x,), [(x,)], report_fallbacks=False)


def test_an_additive_bias_without_mask_stays_an_int8_add():
    class Biased(_Projected):
        def __init__(self):
            super().__init__(16, 1)
            self.register_buffer("bias", torch.linspace(-1, 1, 64).reshape(8, 8))

        def attend(self, q, k, v):
            return ((q @ k.transpose(-2, -1)) * 0.25 + self.bias).softmax(-1) @ v

    torch.manual_seed(0)
    x = torch.randn(1, 8, 16)
    program = compiler.lower(Biased().eval(), (x,), [(torch.randn(1, 8, 16),) for _ in range(3)],
                             report_fallbacks=False)
    kinds = [op.kind for op in program.graph.ops]
    assert "add" in kinds and not any("float_reason" in op.attrs for op in program.graph.ops)
    (softmax,) = [op for op in program.graph.ops if op.kind == "softmax"]
    assert not softmax.attrs.get("mask_rows")


def test_a_product_read_twice_keeps_its_own_scale():
    """The scale folds only where the product has no other reader (it is quantized once)."""
    class Twice(nn.Module):
        def forward(self, x):
            scores = x @ x.transpose(1, 2)
            return (scores * 0.125).softmax(-1), scores

    x = torch.randn(1, 6, 8)
    program = compiler.lower(Twice().eval(), (x,), [(torch.randn(1, 6, 8),) for _ in range(3)],
                             report_fallbacks=False)
    kinds = [op.kind for op in program.graph.ops]
    assert kinds.count("batch_matmul") == 1 and "lut" in kinds


@pytest.mark.parametrize("board", ["host", "corstone300"])
def test_device_equals_the_reference(lowered, board, tmp_path):
    verdicts = run_on_device(board, list(lowered.values()), tmp_path)
    assert len({name for name, _ in verdicts}) == len(NAMES)
    assert all(v.startswith("EM_OK match") for v in verdicts.values()), verdicts


def test_a_mask_given_at_run_time_is_refused_by_name():
    """A mask that is a program input (a padding mask) is no constant: refused, saying what lowers."""
    class RuntimeMask(_Projected):
        def forward(self, x, mask):
            q, k, v = (self.split(p(x)) for p in (self.q, self.k, self.v))
            scores = (q @ k.transpose(-2, -1) * 0.25).masked_fill(mask, float("-inf"))
            return self.out(self.merge(scores.softmax(-1) @ v))

    x, mask = torch.randn(1, 8, 16), torch.rand(8, 8) > 0.5
    with pytest.raises(EmberCompileError, match="constant attention mask"):
        compiler.lower(RuntimeMask(16, 1).eval(), (x, mask), [(x, mask)], report_fallbacks=False)
