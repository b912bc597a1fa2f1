"""The arithmetic ops' lowerings and references (sub, minimum, maximum, transposed conv2d,
batched matmul) against PyTorch's quantized numerics: the IR a PT2E model imports to
(dequantize → float op → quantize) is lowered by the op's pass, run by compiler.reference and
compared with the same float op on PyTorch's dequantized values, quantized by PyTorch —
≤ 1 LSB everywhere, nearly all equal. Random shapes, odd sizes, codes -128 / 127 and zero
points at both ends. The transposed convolution's integer accumulators also equal
F.conv_transpose2d on the integers exactly."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from torch.ao.quantization.fx._decomposed import quantized_decomposed_lib  # noqa: F401  (registers qd ops)
from torch.nn import functional as F

from compiler import reference
from compiler.ir import Graph, Op, Quant, Tensor
from compiler.options import LoweringOptions
from compiler.passes import lower_ops_after_folds, remove_dead_tensors

qd = torch.ops.quantized_decomposed
ZERO_POINTS = (-128, 127, 0, -7, 100)


def _q(x: torch.Tensor, quant: Quant) -> np.ndarray:
    """PyTorch's quantize of a float tensor (what PT2E's quantize node computes)."""
    return qd.quantize_per_tensor(x.float(), float(quant.scale[0]), int(quant.zero_point[0]), -128, 127,
                                  torch.int8).numpy()


def _dq(q: np.ndarray, quant: Quant) -> torch.Tensor:
    return qd.dequantize_per_tensor(torch.from_numpy(np.ascontiguousarray(q)), float(quant.scale[0]),
                                    int(quant.zero_point[0]), -128, 127, torch.int8)


def _codes(rng: np.random.Generator, shape) -> np.ndarray:
    x = rng.integers(-128, 128, size=shape).astype(np.int8)
    x.reshape(-1)[:2] = (-128, 127)[:x.size]
    return x


def _quant_of(rng: np.random.Generator, k: int) -> Quant:
    return Quant.per_tensor(float(2.0 ** rng.uniform(-7, -2)), ZERO_POINTS[k % len(ZERO_POINTS)])


def _output_quant(values: torch.Tensor) -> Quant:
    """A quantization spanning `values` (so outputs use the whole int8 range, not only the clamp)."""
    low, high = min(float(values.min()), 0.0), max(float(values.max()), 1e-3)
    scale = (high - low) / 255.0
    return Quant.per_tensor(scale, int(np.clip(round(-128 - low / scale), -128, 127)))


def _lowered(kind: str, attrs: dict, operands: list[Tensor], out_shape, out_quant: Quant, lowering) -> Graph:
    """The imported form of one quantized op, after its lowering pass."""
    tensors = {t.name: t for t in operands}
    ops = []
    for t in operands:
        tensors[f"{t.name}_f"] = Tensor(f"{t.name}_f", "float32", t.shape)
        ops.append(Op("dequantize", [t.name], [f"{t.name}_f"], {"quant": t.quant}))
    tensors["y_f"] = Tensor("y_f", "float32", out_shape)
    tensors["y"] = Tensor("y", "int8", out_shape)
    ops += [Op(kind, [f"{t.name}_f" for t in operands], ["y_f"], attrs, "test_model.py:1"),
            Op("quantize", ["y_f"], ["y"], {"quant": out_quant})]
    graph = Graph(tensors, ops, [t.name for t in operands if not t.is_constant], ["y"])
    options = LoweringOptions()
    graph = remove_dead_tensors(lowering(graph, options), options)
    assert [op.kind for op in graph.ops] == [{"aten.sub": "add", "aten.conv_transpose2d": "transpose_conv2d"}.get(
        kind, kind.removeprefix("aten."))] or kind == "aten.matmul"
    return graph


def _assert_within_one_lsb(ours: np.ndarray, theirs: np.ndarray, exact: float = 0.98) -> None:
    diff = ours.astype(np.int32) - theirs.astype(np.int32)
    assert np.abs(diff).max() <= 1, np.abs(diff).max()
    assert (diff == 0).mean() >= exact, (diff == 0).mean()


@pytest.mark.parametrize("seed", range(8))
def test_sub_is_add_with_b_negated_within_one_lsb(seed):
    rng = np.random.default_rng(seed)
    shapes = [((2, 5, 7, 3), (2, 5, 7, 3)), ((3, 9, 11), (11,)), ((1, 4, 6, 13), (1,)), ((17,), (5, 3, 17))]
    a_shape, b_shape = shapes[seed % len(shapes)]
    qa, qb = _quant_of(rng, seed), _quant_of(rng, seed + 1 + seed // 4)
    a, b = _codes(rng, a_shape), _codes(rng, b_shape)
    real = _dq(a, qa) - _dq(b, qb)
    out_q = _output_quant(real)
    graph = _lowered("aten.sub", {}, [Tensor("a", "int8", a_shape, qa), Tensor("b", "int8", b_shape, qb)],
                     real.shape, out_q, lower_ops_after_folds)
    assert graph.ops[0].attrs["b_multiplier"] < 0 < graph.ops[0].attrs["a_multiplier"]
    ours = reference.run(graph, [a, b])["y"]
    _assert_within_one_lsb(ours, _q(real, out_q))


@pytest.mark.parametrize("kind", ["aten.minimum", "aten.maximum"])
@pytest.mark.parametrize("seed", range(4))
def test_min_max_equal_pytorch(kind, seed):
    rng = np.random.default_rng(seed)
    shapes = [((2, 5, 7, 3), (2, 5, 7, 3)), ((1, 4, 6, 13), (1, 1, 1, 13)), ((3, 9, 11), (1,)), ((5,), (4, 5))]
    a_shape, b_shape = shapes[seed]
    quant = _quant_of(rng, seed)
    a, b = _codes(rng, a_shape), _codes(rng, b_shape)
    real = getattr(torch, kind.removeprefix("aten."))(_dq(a, quant), _dq(b, quant))
    graph = _lowered(kind, {}, [Tensor("a", "int8", a_shape, quant), Tensor("b", "int8", b_shape, quant)],
                     real.shape, quant, lower_ops_after_folds)
    np.testing.assert_array_equal(reference.run(graph, [a, b])["y"], _q(real, quant))


def test_min_max_constant_channel_vector_is_laid_out_nhwc():
    """A constant [1, C, 1, 1] operand (PyTorch's layout) against an NHWC map is transposed."""
    rng = np.random.default_rng(3)
    quant = Quant.per_tensor(0.05, -3)
    x = _codes(rng, (1, 4, 5, 6))  # NHWC, C = 6
    c = _codes(rng, (1, 6, 1, 1))
    graph = _lowered("aten.maximum", {}, [Tensor("x", "int8", x.shape, quant), Tensor("c", "int8", c.shape, quant, c)],
                     x.shape, quant, lower_ops_after_folds)
    np.testing.assert_array_equal(reference.run(graph, [x])["y"], np.maximum(x, c.reshape(1, 1, 1, 6)))


# (N, H, W, C_IN), C_OUT, kernel, stride, padding, output_padding: odd sizes, strides 1..3,
# output_padding beyond the padding (negative crops), 1x1 and non-square kernels.
TCONV_CASES = [
    ((1, 5, 7, 3), 4, (3, 3), (2, 2), (1, 1), (1, 1)),
    ((2, 4, 3, 5), 3, (4, 4), (2, 2), (1, 1), (0, 0)),
    ((1, 3, 6, 2), 5, (2, 3), (3, 2), (0, 1), (2, 1)),
    ((1, 6, 5, 7), 2, (3, 3), (1, 1), (1, 1), (0, 0)),
    ((1, 2, 2, 1), 1, (1, 1), (3, 3), (0, 0), (2, 1)),
    ((1, 7, 4, 9), 6, (5, 3), (2, 3), (2, 0), (1, 2)),
]


def _tconv_output_shape(x_shape, c_out, kernel, stride, padding, output_padding):
    n, h, w, _ = x_shape
    return (n, *((size - 1) * s - 2 * p + k + op for size, k, s, p, op in
                 zip((h, w), kernel, stride, padding, output_padding)), c_out)


@pytest.mark.parametrize("case", range(len(TCONV_CASES)))
def test_transpose_conv2d_accumulators_equal_pytorch(case):
    """The spec's int32 accumulators (identity requantization) equal F.conv_transpose2d of the
    centred integers computed in float64 (exact at these sizes)."""
    x_shape, c_out, kernel, stride, padding, output_padding = TCONV_CASES[case]
    rng = np.random.default_rng(case)
    x, zp = _codes(rng, x_shape), ZERO_POINTS[case % len(ZERO_POINTS)]
    w = _codes(rng, (c_out, *kernel, x_shape[3]))
    bias = rng.integers(-5000, 5000, c_out).astype(np.int32)
    centred = torch.from_numpy(x.astype(np.float64) - zp).permute(0, 3, 1, 2)
    torch_w = torch.from_numpy(w.astype(np.float64)).permute(3, 0, 1, 2)  # [C_IN, C_OUT, KH, KW]
    want = F.conv_transpose2d(centred, torch_w, torch.from_numpy(bias.astype(np.float64)), stride, padding,
                              output_padding).permute(0, 2, 3, 1).numpy()
    pads = (padding[0], padding[0] - output_padding[0], padding[1], padding[1] - output_padding[1])
    # multiplier 2^30, shift 1 − k is ×2^−k exactly, rounded half up: the sums, visible in int8
    k = int(np.ceil(np.log2(np.abs(want).max() / 127.0))) if np.abs(want).max() > 127 else 0
    got = reference.transpose_conv2d_s8(x, w, bias, np.full(c_out, 1 << 30, np.int32), np.full(c_out, 1 - k, np.int32),
                                        stride=stride, padding=pads, input_offset=-zp, output_offset=0,
                                        activation_min=-128, activation_max=127)
    assert got.shape == want.shape == _tconv_output_shape(x_shape, c_out, kernel, stride, padding, output_padding)
    np.testing.assert_array_equal(got, np.floor(want / 2.0 ** k + 0.5).clip(-128, 127))


@pytest.mark.parametrize("per_tensor", [False, True])
@pytest.mark.parametrize("case", range(len(TCONV_CASES)))
def test_transpose_conv2d_lowering_within_one_lsb(case, per_tensor):
    x_shape, c_out, kernel, stride, padding, output_padding = TCONV_CASES[case]
    rng = np.random.default_rng(10 + case)
    c_in = x_shape[3]
    qx = _quant_of(rng, case)
    x = _codes(rng, x_shape)
    w = _codes(rng, (c_in, c_out, *kernel))  # PyTorch's layout
    w[w == -128] = -127
    w_scale = (np.full(1, 0.01) if per_tensor else 2.0 ** rng.uniform(-8, -5, c_out)).astype(np.float32)
    qw = Quant(w_scale, np.zeros(w_scale.size, np.int32), None if per_tensor else 1)
    bias_scale = (float(qx.scale[0]) * np.broadcast_to(w_scale, (c_out,))).astype(np.float32)
    bias = rng.integers(-3000, 3000, c_out).astype(np.int32)
    real_w = torch.from_numpy(w.astype(np.float32) * (w_scale if per_tensor else w_scale[None, :, None, None]))
    real_x = _dq(x, qx).permute(0, 3, 1, 2)
    real = F.conv_transpose2d(real_x, real_w, torch.from_numpy((bias * bias_scale).astype(np.float32)), stride, padding,
                              output_padding).permute(0, 2, 3, 1)
    out_q = _output_quant(real)
    pads = (padding[0], padding[0] - output_padding[0], padding[1], padding[1] - output_padding[1])
    operands = [Tensor("x", "int8", x_shape, qx), Tensor("w", "int8", w.shape, qw, w),
                Tensor("b", "int32", (c_out,), Quant(bias_scale, np.zeros(c_out, np.int32), 0), bias)]
    graph = _lowered("aten.conv_transpose2d", {"stride": stride, "padding": pads}, operands, real.shape, out_q,
                     lower_ops_after_folds)
    assert graph.ops[0].attrs["multiplier"].shape == (c_out,)
    _assert_within_one_lsb(reference.run(graph, [x])["y"], _q(real, out_q))


@pytest.mark.parametrize("seed", range(6))
def test_batch_matmul_within_one_lsb(seed):
    rng = np.random.default_rng(seed)
    shapes = [((2, 5, 7), (2, 7, 3)), ((3, 1, 33), (3, 33, 9)), ((4, 6), (6, 5)), ((1, 17, 2), (1, 2, 1)),
              ((2, 8, 64), (2, 64, 8)), ((5, 3, 3), (5, 3, 3))]
    a_shape, b_shape = shapes[seed]
    qa, qb = _quant_of(rng, seed), _quant_of(rng, seed + 2)
    a, b = _codes(rng, a_shape), _codes(rng, b_shape)
    real = torch.matmul(_dq(a, qa), _dq(b, qb))
    out_q = _output_quant(real)
    graph = _lowered("aten.matmul", {}, [Tensor("a", "int8", a_shape, qa), Tensor("b", "int8", b_shape, qb)],
                     real.shape, out_q, lower_ops_after_folds)
    assert [op.kind for op in graph.ops] == ["batch_matmul"]
    _assert_within_one_lsb(reference.run(graph, [a, b])["y"], _q(real, out_q))


def test_batch_matmul_integer_sums_equal_torch():
    """Zero points at both ends: the centred products equal torch.bmm of the centred integers."""
    rng = np.random.default_rng(1)
    a, b = _codes(rng, (3, 4, 9)), _codes(rng, (3, 9, 5))
    for a_zp, b_zp in ((-128, 127), (127, -128), (0, 0)):
        want = torch.bmm(torch.from_numpy(a.astype(np.int64) - a_zp), torch.from_numpy(b.astype(np.int64) - b_zp))
        got = reference.batch_matmul_s8(a, b, a_offset=-a_zp, b_offset=-b_zp, output_offset=0,
                                        output_multiplier=1 << 30, output_shift=-14, activation_min=-128,
                                        activation_max=127)  # × 2^-15: in range
        np.testing.assert_array_equal(got, np.floor(want.numpy() / 2 ** 15 + 0.5).clip(-128, 127))
