"""The data-movement kernels (pad, transpose, slice, nearest upsampling, reshape) and requantize
against compiler/reference.py, byte for byte, on the host and Cortex-M55 runners: every case
of a kind is one branch of ONE program (input sliced into the cases, each case's result
flattened and concatenated into one output), so a device runs them all in one launch. Then the
same ops on float32 and int32 tensors (the kernels are dtype-generic), and malformed options
refused at load."""
from __future__ import annotations

import numpy as np
import pytest

from compiler import reference
from compiler.fixedpoint import quantize_multiplier
from compiler.ir import Graph, Op, Quant, Tensor
from compiler.planner import Region, plan_memory
from compiler.program import Program
from compiler.target import Target
from tests.integration.runners import DEVICES, output_of, run

QUANT = Quant.per_tensor(0.05, 0)
RNG = np.random.default_rng(2026)


def _shape(rank: int, high: int = 7) -> tuple[int, ...]:
    return tuple(int(d) for d in RNG.integers(1, high, size=rank))


def _cases() -> list[tuple[str, tuple[int, ...], dict]]:
    """(op kind, input shape, attrs): random shapes of rank 1..5, odd sizes, size-1 dims."""
    cases = []
    for rank in (1, 2, 3, 4, 4, 5):
        shape = _shape(rank)
        cases.append(("transpose", shape, {"perm": [int(k) for k in RNG.permutation(rank)]}))
        cases.append(("pad", shape, {"before": [int(v) for v in RNG.integers(0, 3, rank)],
                                     "after": [int(v) for v in RNG.integers(0, 3, rank)],
                                     "value": int(RNG.integers(-128, 128))}))
        begin = [int(RNG.integers(0, d)) for d in shape]
        step = [int(RNG.integers(1, 4)) for _ in shape]
        size = [int(RNG.integers(1, (d - b - 1) // s + 2)) for d, b, s in zip(shape, begin, step)]
        cases.append(("slice", shape, {"begin": begin, "step": step, "size": size}))
        cases.append(("reshape", shape, {"shape": tuple(reversed(shape))}))
    cases += [("transpose", (1, 5, 7, 3), {"perm": [0, 3, 1, 2]}), ("transpose", (1, 3, 5, 7), {"perm": [0, 2, 3, 1]}),
              ("transpose", (2, 1, 9), {"perm": [1, 0, 2]}), ("transpose", (1, 1, 1, 1), {"perm": [3, 2, 1, 0]}),
              ("pad", (1, 4, 5, 3), {"before": [0, 1, 0, 0], "after": [0, 0, 2, 0], "value": -128}),
              ("pad", (1, 2, 2, 1), {"before": [0, 0, 0, 0], "after": [0, 0, 0, 0], "value": 127}),
              ("slice", (1, 9, 8, 5), {"begin": [0, 8, 0, 1], "step": [1, 1, 3, 2], "size": [1, 1, 3, 2]}),
              ("slice", (17,), {"begin": [16], "step": [5], "size": [1]})]
    for shape, scale in (((1, 3, 4, 5), (2, 2)), ((2, 1, 1, 7), (2, 2)), ((1, 2, 3, 1), (3, 1)), ((1, 5, 2, 16), (1, 4))):
        cases.append(("upsample_nearest", shape, {"scale_h": scale[0], "scale_w": scale[1]}))
    for real in (0.37, 1.0, 2.5, 0.004, 3.9):
        multiplier, shift = quantize_multiplier(real)
        zp_in, zp_out = (int(v) for v in RNG.choice([-128, 127, 0, 5], size=2))
        cases.append(("requantize", (3, 5, 7), {"input_offset": -zp_in, "output_offset": zp_out,
                                                "output_multiplier": multiplier, "output_shift": shift}))
    return cases


def _output_shape(kind: str, shape: tuple[int, ...], attrs: dict) -> tuple[int, ...]:
    probe = np.zeros(shape, np.int8)
    if kind == "reshape":
        return attrs["shape"]
    attrs = {k: v for k, v in attrs.items() if k != "shape"}
    return OP_SPECS[kind](probe, attrs).shape


OP_SPECS = {
    "transpose": lambda x, a: reference.transpose(x, perm=a["perm"]),
    "pad": lambda x, a: reference.pad(x, before=a["before"], after=a["after"], value=a.get("value", 0)),
    "slice": lambda x, a: reference.slice_(x, begin=a["begin"], step=a["step"], shape=tuple(a["size"])),
    "upsample_nearest": lambda x, a: reference.upsample_nearest(x, scale_h=a["scale_h"], scale_w=a["scale_w"]),
    "requantize": lambda x, a: reference.requantize_s8(x, **a),
}


def batched_program(target: str, cases: list, dtype: str = "int8") -> tuple[Program, int]:
    """One program: input [total] → per case slice, reshape, op, reshape to 1-D → one concatenation."""
    quant = QUANT if dtype == "int8" else None
    tensors: dict[str, Tensor] = {}
    ops: list[Op] = []

    def tensor(name: str, shape) -> str:
        tensors[name] = Tensor(name, dtype, tuple(shape), quant)
        return name

    total = sum(int(np.prod(shape)) for _, shape, _ in cases)
    x = tensor("x", (total,))
    flats, offset = [], 0
    for i, (kind, shape, attrs) in enumerate(cases):
        n = int(np.prod(shape))
        ops.append(Op("slice", [x], [tensor(f"s{i}", (n,))], {"begin": [offset], "step": [1], "size": [n]}))
        ops.append(Op("reshape", [f"s{i}"], [tensor(f"in{i}", shape)]))
        out_shape = _output_shape(kind, shape, attrs)
        ops.append(Op(kind, [f"in{i}"], [tensor(f"out{i}", out_shape)], {k: v for k, v in attrs.items() if k != "shape"}))
        ops.append(Op("reshape", [f"out{i}"], [tensor(f"f{i}", (int(np.prod(out_shape)),))]))
        flats.append(f"f{i}")
        offset += n
    level = 0
    while len(flats) > 1:  # concatenation takes at most 8 inputs
        joined = []
        for j in range(0, len(flats), 8):
            group = flats[j:j + 8]
            size = sum(tensors[t].shape[0] for t in group)
            joined.append(tensor(f"cat{level}_{j}", (size,)))
            ops.append(Op("concatenation", group, [joined[-1]], {"axis": 0}))
        flats, level = joined, level + 1
    graph = Graph(tensors, ops, [x], flats)
    return Program(graph, Target(target), "data_movement", plan_memory(graph, Region("sram", 1 << 20))), total


@pytest.mark.parametrize("board,target", DEVICES)
def test_every_case_equals_the_reference_in_one_launch(tmp_path, board, target):
    cases = _cases()
    program, total = batched_program(target, cases)
    x = RNG.integers(-128, 128, size=total).astype(np.int8)
    x[:4] = [-128, 127, -128, 127]
    want = program.run_reference(x)[0]
    # the batch itself is right: each case against its reference function directly
    offset, expected = 0, []
    for kind, shape, attrs in cases:
        n = int(np.prod(shape))
        case = x[offset:offset + n].reshape(shape)
        expected.append((case.reshape(attrs["shape"]) if kind == "reshape" else OP_SPECS[kind](case, attrs)).reshape(-1))
        offset += n
    np.testing.assert_array_equal(want, np.concatenate(expected))
    got = np.frombuffer(output_of(board, program, [x], tmp_path), np.int8)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("board,target", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_float32_and_int32_move_like_int8(tmp_path, board, target, dtype):
    """One chain: slice, reshape, pad (value -2.5 / 7), transpose, upsample, slice with steps."""
    shape = (1, 5, 7, 3)
    tensors = {}

    def t(name, shape):
        tensors[name] = Tensor(name, dtype, shape)
        return name

    pad_value = {"float_value": -2.5} if dtype == "float32" else {"value": 70000}
    ops = [Op("slice", [t("x", (2 * 105,))], [t("a", (105,))], {"begin": [1], "step": [2], "size": [105]}),
           Op("reshape", ["a"], [t("b", shape)]),
           Op("pad", ["b"], [t("c", (1, 6, 9, 3))], {"before": [0, 1, 2, 0], "after": [0, 0, 0, 0], **pad_value}),
           Op("transpose", ["c"], [t("d", (1, 3, 6, 9))], {"perm": [0, 3, 1, 2]}),
           Op("upsample_nearest", ["d"], [t("e", (1, 6, 12, 9))], {"scale_h": 2, "scale_w": 2}),
           Op("slice", ["e"], [t("y", (1, 3, 4, 5))], {"begin": [0, 1, 0, 0], "step": [1, 2, 3, 2], "size": [1, 3, 4, 5]})]
    graph = Graph(tensors, ops, ["x"], ["y"])
    program = Program(graph, Target(target), "moves", plan_memory(graph, Region("sram", 1 << 20)))
    x = (np.random.default_rng(3).normal(size=210) * 1e4).astype(dtype)
    want = program.run_reference(x)[0]
    assert (want == (-2.5 if dtype == "float32" else 70000)).any()
    got = np.frombuffer(output_of(board, program, [x], tmp_path), dtype).reshape(want.shape)
    np.testing.assert_array_equal(got, want)


def _single(kind: str, in_shape, out_shape, attrs, in_dtype="int8", out_dtype="int8") -> Program:
    tensors = {"x": Tensor("x", in_dtype, in_shape, QUANT if in_dtype == "int8" else None),
               "y": Tensor("y", out_dtype, out_shape, QUANT if out_dtype == "int8" else None)}
    graph = Graph(tensors, [Op(kind, ["x"], ["y"], attrs)], ["x"], ["y"])
    return Program(graph, Target("host"), "bad", plan_memory(graph, Region("sram", 1 << 16)))


BAD = {
    "transpose_not_a_permutation": ("transpose", (2, 3), (3, 2), {"perm": [1, 1]}),
    "transpose_wrong_output": ("transpose", (2, 3), (2, 3), {"perm": [1, 0]}),
    "transpose_short_perm": ("transpose", (2, 3, 4), (3, 2, 4), {"perm": [1, 0]}),
    "slice_past_the_end": ("slice", (5,), (3,), {"begin": [1], "step": [2], "size": [3]}),
    "slice_step_0": ("slice", (5,), (2,), {"begin": [0], "step": [0], "size": [2]}),
    "slice_size_not_output": ("slice", (5,), (2,), {"begin": [0], "step": [1], "size": [3]}),
    "pad_negative": ("pad", (4,), (3,), {"before": [-1], "after": [0], "value": 0}),
    "pad_wrong_output": ("pad", (4,), (7,), {"before": [1], "after": [1], "value": 0}),
    "pad_value_out_of_int8": ("pad", (4,), (6,), {"before": [1], "after": [1], "value": 128}),
    "upsample_wrong_output": ("upsample_nearest", (1, 2, 3, 4), (1, 4, 5, 4), {"scale_h": 2, "scale_w": 2}),
    "upsample_rank_3": ("upsample_nearest", (2, 3, 4), (4, 6, 4), {"scale_h": 2, "scale_w": 2}),
    "reshape_other_count": ("reshape", (2, 3), (7,), {}),
    "requantize_offset_out_of_int8": ("requantize", (4,), (4,), {"input_offset": 0, "output_offset": 200,
                                                                "output_multiplier": 1 << 30, "output_shift": 0}),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_malformed_ops_are_refused_at_load(tmp_path, name):
    code, console, _ = run("host", _single(*BAD[name]), [], tmp_path)
    assert code != 0 and "EM_ERR_BAD_OPERATOR" in console, console


def test_mixed_dtypes_are_refused_at_load(tmp_path):
    program = _single("reshape", (2, 3), (6,), {}, "int8", "float32")
    code, console, _ = run("host", program, [], tmp_path)
    assert code != 0 and "EM_ERR_BAD_OPERATOR" in console
