"""The data-movement references and requantize against NumPy and hand-computed values, and the
layout passes' graphs before and after (NCHW permutations in NHWC axes, folded transposes and
slices, dequantize → quantize pairs)."""
from __future__ import annotations

import numpy as np
import pytest

from compiler import reference
from compiler.fixedpoint import quantize_multiplier
from compiler.ir import Graph, Op, Quant, Tensor
from compiler.options import LoweringOptions
from compiler.passes.fold_data_movement import fold_data_movement
from compiler.passes.fold_quantize_pairs import fold_quantize_pairs
from compiler.layout import ember_perm, reshaped
from compiler.target import Target

RNG = np.random.default_rng(11)
OPTIONS = LoweringOptions(Target("host"), False)


def test_pad_by_hand_and_against_numpy():
    x = np.array([[1, 2], [3, 4]], np.int8)
    np.testing.assert_array_equal(reference.pad(x, before=[1, 0], after=[0, 2], value=-128),
                                  [[-128, -128, -128, -128], [1, 2, -128, -128], [3, 4, -128, -128]])
    for rank in range(1, 6):
        y = RNG.integers(-128, 128, size=tuple(RNG.integers(1, 6, rank))).astype(np.int8)
        before, after = RNG.integers(0, 3, rank), RNG.integers(0, 3, rank)
        want = np.full(tuple(np.array(y.shape) + before + after), 127, np.int8)
        want[tuple(slice(b, b + d) for b, d in zip(before, y.shape))] = y
        np.testing.assert_array_equal(reference.pad(y, before=list(before), after=list(after), value=127), want)
    assert reference.pad(np.ones(3, np.float32), before=[1], after=[0], value=-2.5)[0] == np.float32(-2.5)


def test_transpose_and_slice_against_numpy():
    for rank in range(1, 6):
        x = RNG.integers(-128, 128, size=tuple(RNG.integers(1, 6, rank))).astype(np.int8)
        perm = list(RNG.permutation(rank))
        np.testing.assert_array_equal(reference.transpose(x, perm=perm), np.transpose(x, perm))
        begin = [int(RNG.integers(0, d)) for d in x.shape]
        step = [int(RNG.integers(1, 4)) for _ in x.shape]
        want = x[tuple(slice(b, None, s) for b, s in zip(begin, step))]
        np.testing.assert_array_equal(reference.slice_(x, begin=begin, step=step, shape=want.shape), want)
    with pytest.raises(ValueError):
        reference.slice_(np.zeros(5, np.int8), begin=[3], step=[2], shape=(2,))


def test_upsample_nearest_by_hand():
    x = np.arange(6, dtype=np.int8).reshape(1, 2, 3, 1)
    got = reference.upsample_nearest(x, scale_h=2, scale_w=2)[0, ..., 0]
    np.testing.assert_array_equal(got, [[0, 0, 1, 1, 2, 2], [0, 0, 1, 1, 2, 2], [3, 3, 4, 4, 5, 5], [3, 3, 4, 4, 5, 5]])


@pytest.mark.parametrize("scale_in,scale_out,zp_in,zp_out", [(0.1, 0.05, 0, 0), (0.02, 0.3, -128, 127),
                                                              (1 / 256, 0.0249, -128, 26), (0.5, 0.5, 127, -128)])
def test_requantize_within_one_lsb_of_float_and_exact_at_the_ends(scale_in, scale_out, zp_in, zp_out):
    x = np.arange(-128, 128, dtype=np.int8)
    multiplier, shift = quantize_multiplier(scale_in / scale_out)
    got = reference.requantize_s8(x, input_offset=-zp_in, output_offset=zp_out, output_multiplier=multiplier,
                                  output_shift=shift)
    exact = np.clip(np.rint((x.astype(np.float64) - zp_in) * scale_in / scale_out) + zp_out, -128, 127)
    assert np.abs(got - exact).max() <= 1 and (got == exact).mean() > 0.98
    if scale_in == scale_out:  # a pure zero-point shift is exact
        np.testing.assert_array_equal(got, np.clip(x.astype(np.int32) - zp_in + zp_out, -128, 127))


def test_pytorch_permutations_in_nhwc_axes():
    x = RNG.integers(-128, 128, size=(1, 3, 4, 5)).astype(np.int8)  # NCHW
    for perm in ([0, 2, 3, 1], [0, 1, 3, 2], [3, 2, 1, 0], [0, 3, 1, 2]):
        want = np.transpose(np.transpose(x, perm), (0, 2, 3, 1))  # PyTorch's result, stored NHWC
        np.testing.assert_array_equal(np.transpose(np.transpose(x, (0, 2, 3, 1)), ember_perm(perm)), want)


def _int8(name: str, shape) -> Tensor:
    return Tensor(name, "int8", shape, Quant.per_tensor(0.1, 0))


def test_permute_to_nhwc_then_transpose_to_nchw_cancels_and_slices_merge():
    tensors = {t.name: t for t in (_int8("x", (1, 4, 5, 6)), _int8("y", (1, 5, 6, 4)), _int8("z", (1, 4, 5, 6)),
                                   _int8("s", (1, 4, 3, 6)), _int8("t", (1, 4, 2, 3)))}
    graph = Graph(tensors, [Op("transpose", ["x"], ["y"], {"perm": [0, 2, 3, 1]}),
                            Op("transpose", ["y"], ["z"], {"perm": [0, 3, 1, 2]}),
                            Op("slice", ["z"], ["s"], {"begin": [0, 0, 1, 0], "step": [1, 1, 1, 1], "size": [1, 4, 3, 6]}),
                            Op("slice", ["s"], ["t"], {"begin": [0, 0, 1, 0], "step": [1, 1, 1, 2], "size": [1, 4, 2, 3]})],
                  ["x"], ["t"])
    x = RNG.integers(-128, 128, size=(1, 4, 5, 6)).astype(np.int8)
    want = reference.run(graph, [x])["t"]
    fold_data_movement(graph, OPTIONS)
    assert [op.kind for op in graph.ops] == ["slice"]
    assert graph.ops[0].inputs == ["x"] and graph.ops[0].attrs["begin"] == [0, 0, 2, 0]
    np.testing.assert_array_equal(reference.run(graph, [x])["t"], want)


def test_transpose_of_unit_dims_becomes_a_reshape():
    graph = Graph({"x": _int8("x", (1, 1, 1, 8)), "y": _int8("y", (1, 8, 1, 1))},
                  [Op("transpose", ["x"], ["y"], {"perm": [0, 3, 1, 2]})], ["x"], ["y"])
    fold_data_movement(graph, OPTIONS)
    assert [op.kind for op in graph.ops] == ["reshape"]


@pytest.mark.parametrize("src,dst,kinds", [((1, 4, 5, 6), (1, 120), ["transpose", "reshape"]),
                                           ((1, 1, 1, 6), (1, 6), ["reshape"]),
                                           ((1, 30, 4), (1, 5, 6, 4), ["reshape", "transpose"]),
                                           ((1, 4, 5, 6), (1, 2, 10, 6), ["transpose", "reshape", "transpose"])])
def test_reshape_keeps_pytorch_order_with_transposes_only_where_needed(src, dst, kinds):
    graph = Graph({"x": _int8("x", src), "y": _int8("y", dst)}, [], ["x"], ["y"])
    graph.ops = reshaped(graph, "x", "y", "")
    assert [op.kind for op in graph.ops] == kinds
    nchw = RNG.integers(-128, 128, size=src if len(src) != 4 else (src[0], src[3], src[1], src[2])).astype(np.int8)
    stored = np.transpose(nchw, (0, 2, 3, 1)) if len(src) == 4 else nchw
    want = nchw.reshape(dst if len(dst) != 4 else (dst[0], dst[3], dst[1], dst[2]))
    want = np.transpose(want, (0, 2, 3, 1)) if len(dst) == 4 else want
    np.testing.assert_array_equal(reference.run(graph, [stored])["y"], want)


def test_dequantize_quantize_pairs_become_requantize_or_vanish():
    a, b = Quant.per_tensor(1 / 256, -128), Quant.per_tensor(0.02, 3)
    tensors = {"x": Tensor("x", "int8", (4,)), "f": Tensor("f", "float32", (4,)), "y": Tensor("y", "int8", (4,)),
               "g": Tensor("g", "float32", (4,)), "z": Tensor("z", "int8", (4,)), "out": Tensor("out", "float32", (4,))}
    graph = Graph(tensors, [Op("dequantize", ["x"], ["f"], {"quant": a}), Op("quantize", ["f"], ["y"], {"quant": b}),
                            Op("dequantize", ["y"], ["g"], {"quant": b}), Op("quantize", ["g"], ["z"], {"quant": b}),
                            Op("dequantize", ["z"], ["out"], {"quant": b})], ["x"], ["out"])
    fold_quantize_pairs(graph, OPTIONS)
    kinds = [(op.kind, op.inputs) for op in graph.ops]
    assert ("requantize", ["x"]) in kinds and ("dequantize", ["y"]) in [(k, i) for k, i in kinds][-1:]
    requantize = next(op for op in graph.ops if op.kind == "requantize")
    assert requantize.attrs["input_offset"] == 128 and requantize.attrs["output_offset"] == 3
