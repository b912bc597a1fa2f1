"""The data-movement ops (pad, transpose, slice, nearest upsampling, reshape) in one chain on
float32 and int32 tensors (the kernels are dtype-generic; each tensor of the chain planned in
the arena) on the host and Cortex-M55 runners against compiler/reference.py, and malformed
options refused at load. Each op alone (int8, int32, float32, edge values) on every device is
the conformance suite's (tests/kernels/cases/pad.py, transpose.py, slice.py, upsample_nearest.py,
reshape.py, requantize.py)."""
from __future__ import annotations

import numpy as np
import pytest

from compiler.ir import Graph, Op, Quant, Tensor
from compiler.planner import Region, plan_memory
from compiler.program import Program
from compiler.target import Target
from tests.integration.runners import DEVICES, output_of, run

QUANT = Quant.per_tensor(0.05, 0)


@pytest.mark.parametrize("board,target", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_float32_and_int32_move_like_int8(tmp_path, board, target, dtype):
    """One chain: slice, reshape, pad (value -2.5 / 70000), transpose, upsample, slice with steps."""
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
    "slice_stride_past_int32": ("slice", (2, 3), (1, 3), {"begin": [0, 0], "step": [(1 << 31) - 1, 1],
                                                          "size": [1, 3]}),
    "pad_negative": ("pad", (4,), (3,), {"before": [-1], "after": [0], "value": 0}),
    "pad_wrong_output": ("pad", (4,), (7,), {"before": [1], "after": [1], "value": 0}),
    "pad_value_out_of_int8": ("pad", (4,), (6,), {"before": [1], "after": [1], "value": 128}),
    "upsample_wrong_output": ("upsample_nearest", (1, 2, 3, 4), (1, 4, 5, 4), {"scale_h": 2, "scale_w": 2}),
    "upsample_rank_3": ("upsample_nearest", (2, 3, 4), (4, 6, 4), {"scale_h": 2, "scale_w": 2}),
    "reshape_other_count": ("reshape", (2, 3), (7,), {}),
    "requantize_offset_out_of_int8": ("requantize", (4,), (4,), {"input_offset": 0, "output_offset": 200,
                                                                "output_multiplier": 1 << 30, "output_shift": 0}),
    "requantize_input_offset_int32_min": ("requantize", (4,), (4,), {"input_offset": -(1 << 31), "output_offset": 0,
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
