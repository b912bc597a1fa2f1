"""The float fallback's reference (compiler/reference.py float_*_f32) against PyTorch's float
ops on random, odd shapes. Both compute in float32 but sum in different orders (and NumPy's
exp / tanh differ from ATen's by a few ULPs), so they agree to a relative tolerance: 2e-6 on
elementwise ops without libm, 1e-5 with it, and 1e-5 · sqrt(terms) on sums (linear, conv,
softmax, layer norm). Bit-exactness is against the C kernels (the conformance suite's
tests/kernels/cases/float_*.py)."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from torch.nn import functional as F

from compiler import reference

RNG = np.random.default_rng(20261130)


def _close(ours: np.ndarray, theirs: torch.Tensor, rtol: float, atol: float = 1e-6) -> None:
    assert ours.dtype == np.float32
    np.testing.assert_allclose(ours, theirs.detach().numpy(), rtol=rtol, atol=atol)


def _randn(*shape: int, scale: float = 1.0) -> np.ndarray:
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


@pytest.mark.parametrize("b,i,o", [(1, 1, 1), (3, 37, 11), (2, 130, 5)])
def test_fully_connected(b, i, o):
    x, w, bias = _randn(b, i), _randn(o, i), _randn(o)
    ours = reference.float_fully_connected_f32(x, w, bias, activation_min=0.0, activation_max=6.0)
    theirs = F.linear(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(bias)).clamp(0, 6)
    _close(ours, theirs, rtol=1e-5 * np.sqrt(i), atol=1e-5 * np.sqrt(i))


CONV_CASES = [  # NCHW input, C_OUT, kernel, stride, padding (top, bottom, left, right), dilation, groups
    ((1, 5, 7, 9), 6, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
    ((2, 6, 6, 5), 9, (2, 3), (2, 1), (1, 0, 2, 1), (1, 2), 3),
    ((1, 4, 8, 7), 8, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 4),  # depthwise, multiplier 2
    ((1, 3, 5, 5), 1, (5, 5), (1, 1), (0, 0, 0, 0), (1, 1), 1),
]


@pytest.mark.parametrize("case", range(len(CONV_CASES)))
def test_conv2d_nhwc(case):
    shape, c_out, (kh, kw), stride, (top, bottom, left, right), dilation, groups = CONV_CASES[case]
    x, w, bias = _randn(*shape), _randn(c_out, shape[1] // groups, kh, kw), _randn(c_out)
    ours = reference.float_conv2d_f32(x.transpose(0, 2, 3, 1), w.transpose(0, 2, 3, 1), bias, stride=stride,
                                      dilation=dilation, padding=(top, bottom, left, right), groups=groups)
    padded = F.pad(torch.from_numpy(x), (left, right, top, bottom))
    theirs = F.conv2d(padded, torch.from_numpy(w), torch.from_numpy(bias), stride, 0, dilation, groups)
    taps = kh * kw * shape[1] // groups
    _close(ours, theirs.permute(0, 2, 3, 1), rtol=1e-5 * np.sqrt(taps), atol=1e-5 * np.sqrt(taps))


BINARY_TORCH = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div,
                "minimum": torch.minimum, "maximum": torch.maximum}


@pytest.mark.parametrize("function", reference.FLOAT_BINARY_FUNCTIONS)
@pytest.mark.parametrize("a_shape,b_shape", [((2, 3, 5, 7), (1, 3, 1, 7)), ((4, 5), (5,)), ((1,), (3, 1, 3)),
                                             ((6, 1), (1, 7))])
def test_binary_broadcasts_like_pytorch(function, a_shape, b_shape):
    a, b = _randn(*a_shape), _randn(*b_shape)
    b[np.abs(b) < 0.05] = 0.5  # keep the quotients finite
    ours = reference.float_binary_f32(a, b, function=function)
    theirs = BINARY_TORCH[function](torch.from_numpy(a), torch.from_numpy(b))
    np.testing.assert_array_equal(ours, theirs.numpy())  # single IEEE operations: exact


def test_minimum_maximum_propagate_nan():
    a = np.array([np.nan, 1.0, -np.inf, 2.0], np.float32)
    b = np.array([1.0, np.nan, 3.0, np.inf], np.float32)
    for function in ("minimum", "maximum"):
        ours = reference.float_binary_f32(a, b, function=function)
        np.testing.assert_array_equal(ours, BINARY_TORCH[function](torch.from_numpy(a), torch.from_numpy(b)).numpy())


UNARY_TORCH = {
    "clamp": lambda x: x.clamp(-0.5, 2.0), "sigmoid": torch.sigmoid, "tanh": torch.tanh, "exp": torch.exp,
    "log": lambda x: torch.log(x.abs() + 0.01), "sqrt": lambda x: torch.sqrt(x.abs()),
    "rsqrt": lambda x: torch.rsqrt(x.abs() + 0.01), "abs": torch.abs, "neg": torch.neg, "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"), "silu": F.silu, "hardswish": F.hardswish,
    "hardsigmoid": F.hardsigmoid, "leaky_relu": lambda x: F.leaky_relu(x, 0.125),
}
# the same transformation of the input for ours (log, sqrt, rsqrt want positive inputs)
UNARY_INPUT = {"log": lambda x: np.abs(x) + np.float32(0.01), "sqrt": np.abs,
               "rsqrt": lambda x: np.abs(x) + np.float32(0.01)}


@pytest.mark.parametrize("function", reference.FLOAT_UNARY_FUNCTIONS)
def test_unary(function):
    x = np.concatenate([_randn(97, scale=4.0), np.array([0.0, -0.0, 3.0, -3.0, 20.0, -20.0], np.float32)])
    ours = reference.float_unary_f32(UNARY_INPUT.get(function, lambda v: v)(x), function=function, alpha=0.125,
                                     min=-0.5, max=2.0)
    theirs = UNARY_TORCH[function](torch.from_numpy(x))
    exact = function not in reference.FLOAT_LIBM_FUNCTIONS
    _close(ours, theirs, rtol=2e-6 if exact else 1e-5, atol=1e-7 if exact else 1e-6)


@pytest.mark.parametrize("shape", [(3, 10), (2, 3, 17), (1, 1)])
def test_softmax_last_axis(shape):
    x = _randn(*shape, scale=5.0)
    _close(reference.float_softmax_f32(x), torch.softmax(torch.from_numpy(x), -1), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("shape", [(5, 33), (2, 3, 8), (1, 1)])
def test_layer_norm_last_axis(shape):
    x, w, b = _randn(*shape, scale=3.0) + 1.0, _randn(shape[-1]), _randn(shape[-1])
    ours = reference.float_layer_norm_f32(x, w, b, epsilon=1e-5)
    theirs = F.layer_norm(torch.from_numpy(x), shape[-1:], torch.from_numpy(w), torch.from_numpy(b), 1e-5)
    _close(ours, theirs, rtol=1e-5 * np.sqrt(shape[-1]), atol=1e-5 * np.sqrt(shape[-1]))


POOL_CASES = [  # NCHW input, kernel, stride, padding (top, bottom, left, right)
    ((1, 5, 9, 7), (3, 3), (2, 2), (1, 1, 1, 1)),
    ((2, 3, 8, 8), (2, 2), (2, 2), (0, 0, 0, 0)),
    ((1, 4, 7, 10), (3, 2), (1, 3), (1, 1, 0, 0)),
    ((1, 6, 5, 4), (5, 4), (1, 1), (0, 0, 0, 0)),  # global
]


@pytest.mark.parametrize("case", range(len(POOL_CASES)))
def test_pools_nhwc(case):
    shape, kernel, stride, (top, bottom, left, right) = POOL_CASES[case]
    x = _randn(*shape)
    nhwc = x.transpose(0, 2, 3, 1)
    padding = (top, bottom, left, right)
    symmetric = (top, left)  # PyTorch pads symmetrically: the cases keep top == bottom, left == right
    assert (top, left) == (bottom, right)
    ours = reference.float_max_pool_f32(nhwc, kernel=kernel, stride=stride, padding=padding)
    theirs = F.max_pool2d(torch.from_numpy(x), kernel, stride, symmetric)
    np.testing.assert_array_equal(ours, theirs.permute(0, 2, 3, 1).numpy())  # a max is exact
    for include in (True, False):
        ours = reference.float_avg_pool_f32(nhwc, kernel=kernel, stride=stride, padding=padding,
                                            count_include_pad=include)
        theirs = F.avg_pool2d(torch.from_numpy(x), kernel, stride, symmetric, count_include_pad=include)
        _close(ours, theirs.permute(0, 2, 3, 1), rtol=1e-5, atol=1e-6)


def test_function_enums_agree_in_schema_reference_and_c():
    """FloatBinaryFunction / FloatUnaryFunction: the schema's values, the reference's name tuples
    (the writer's index) and em_nn_float.h's C enums are one numbering."""
    import re
    from pathlib import Path

    from compiler.schema import program_generated as fb

    header = (Path(__file__).resolve().parents[2] / "runtime/kernels/include/em_nn_float.h").read_text()
    c = {name: int(value) for name, value in re.findall(r"\b(EM_FLOAT_(?:BINARY|UNARY)_[A-Z_]+)\s*=\s*(\d+)", header)}
    for enum, names, prefix in ((fb.FloatBinaryFunction, reference.FLOAT_BINARY_FUNCTIONS, "EM_FLOAT_BINARY_"),
                                (fb.FloatUnaryFunction, reference.FLOAT_UNARY_FUNCTIONS, "EM_FLOAT_UNARY_")):
        schema = {k: v for k, v in vars(enum).items() if not k.startswith("_")}
        assert [schema[n.upper()] for n in names] == list(range(len(names)))
        assert {k: c[prefix + k] for k in schema} == schema and c[prefix + "COUNT"] == len(names)
