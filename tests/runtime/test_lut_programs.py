"""LUT programs at load: a table is int8 [256] or [C, 256] with C the input's size along a valid
LutOptions.axis; anything else is refused with EM_ERR_BAD_OPERATOR, and the shapes at the edges
of em_lut_channels_s8's ranges (zero dimensions next to huge ones) either run or are refused,
never undefined behaviour: em_run built with AddressSanitizer and UndefinedBehaviorSanitizer."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from build_host import build_em_run
from compiler import reference
from compiler.ir import Graph, Op, Quant, Tensor
from compiler.planner import Region, plan_memory
from compiler.target import Target
from compiler.writer import write_program
from test_overlap_defined import SANITIZE

EM_ERR_BAD_OPERATOR = 10
INT32_MAX = 2**31 - 1


@pytest.fixture(scope="module")
def em_run() -> Path:
    if shutil.which("clang") is None:
        pytest.skip("needs clang (AddressSanitizer)")
    return build_em_run(cc="clang", extra=SANITIZE)


def lut_graph(x_shape, table_shape, attrs: dict, table_dtype: str = "int8") -> Graph:
    quant = Quant.per_tensor(0.05, 0)
    table = np.random.default_rng(3).integers(-128, 128, size=table_shape).astype(
        np.int8 if table_dtype == "int8" else np.int32)
    g = Graph({"x": Tensor("x", "int8", x_shape, quant), "t": Tensor("t", table_dtype, table_shape, data=table),
               "y": Tensor("y", "int8", x_shape, quant)}, [Op("lut", ["x", "t"], ["y"], attrs)], ["x"], ["y"])
    plan_memory(g, Region("sram", 1 << 16))
    return g


def run(em_run: Path, tmp_path: Path, graph: Graph, x: np.ndarray) -> subprocess.CompletedProcess:
    (tmp_path / "p.embr").write_bytes(write_program(graph, Target("host")))
    (tmp_path / "in.bin").write_bytes(x.tobytes())
    return subprocess.run([str(em_run), "p.embr", "--input", "in.bin", "--output", "out.bin"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)


# name: (input shape, table shape, attrs[, table dtype])
BAD = {
    "per_tensor_255": ((2, 3, 4), (255,), {}),
    "per_tensor_257": ((2, 3, 4), (257,), {}),
    "rows_of_255": ((2, 3, 4), (4, 255), {}),
    "c_one_too_many": ((2, 3, 4), (5, 256), {}),
    "c_one_too_few": ((2, 3, 4), (3, 256), {}),           # the last axis is 4: 3 is axis 1's
    "c_of_another_axis": ((2, 3, 4), (3, 256), {"axis": 0}),
    "c_one_for_many": ((2, 3, 4), (1, 256), {}),
    "axis_rank": ((2, 3, 4), (2, 256), {"axis": 3}),
    "axis_below_minus_rank": ((2, 3, 4), (2, 256), {"axis": -4}),
    "axis_int32_max": ((2, 3, 4), (4, 256), {"axis": INT32_MAX}),
    "axis_int32_min": ((2, 3, 4), (4, 256), {"axis": -INT32_MAX - 1}),
    "table_rank_3": ((2, 3, 4), (1, 4, 256), {}),
    "table_transposed": ((2, 3, 4), (256, 4), {}),
    "table_int32": ((2, 3, 4), (4, 256), {}, "int32"),
    "no_channel": ((3, 0), (0, 256), {}),                  # C = 0 rows
    # a zero dimension in front lets the loader take a huge inner: int32 sizes only
    "zero_outer_huge_inner": ((0, 3, INT32_MAX, INT32_MAX), (3, 256), {"axis": 1}),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_malformed_table_or_axis_is_refused_at_load(em_run, tmp_path, name):
    x_shape, table_shape, attrs, *dtype = BAD[name]
    result = run(em_run, tmp_path, lut_graph(x_shape, table_shape, attrs, *dtype), np.zeros(0, np.int8))
    assert result.returncode == EM_ERR_BAD_OPERATOR, result.stdout + result.stderr
    assert "EM_ERR_BAD_OPERATOR" in result.stdout


def test_a_per_tensor_table_ignores_the_axis(em_run, tmp_path):
    x = np.arange(-128, 128, dtype=np.int8).reshape(2, 128)
    g = lut_graph(x.shape, (256,), {"axis": 7})
    result = run(em_run, tmp_path, g, x)
    assert result.returncode == 0, result.stdout + result.stderr
    want = reference.lut_s8(x, g.tensors["t"].data)
    np.testing.assert_array_equal(np.frombuffer((tmp_path / "out.bin").read_bytes(), np.int8).reshape(x.shape), want)


@pytest.mark.parametrize("x_shape,table_shape,axis", [
    ((0, 3), (3, 256), -1),                       # no rows
    ((4, 0), (4, 256), 0),                        # empty runs
    ((0, 5, INT32_MAX), (5, 256), 1),             # inner at INT32_MAX, no rows
    ((3, 2, 0, INT32_MAX, INT32_MAX), (2, 256), 1),  # a huge inner past a zero: 0
])
def test_empty_inputs_at_the_range_edges_run(em_run, tmp_path, x_shape, table_shape, axis):
    result = run(em_run, tmp_path, lut_graph(x_shape, table_shape, {"axis": axis}), np.zeros(0, np.int8))
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "out.bin").read_bytes() == b""
