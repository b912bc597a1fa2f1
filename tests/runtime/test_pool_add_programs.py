"""MAX_POOL_2D, AVG_POOL_2D and ADD as whole programs (compiler IR -> planner -> writer) on the
host runner (scalar tier) and on Cortex-M55 firmware in QEMU (MVE tier), against
compiler/reference.py byte for byte: a chain of pools and adds over one tensor; malformed options
and shapes rejected at load with EM_ERR_BAD_OPERATOR (host runner: check() is the same C on every
tier). A single pool or add on every device (the constant on either side too) is
tests/kernels/test_conformance.py's."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

import programs
from build_host import build_em_run, build_em_run_firmware
from compiler import reference
from compiler.fixedpoint import quantize_multiplier
from compiler.ir import Graph, Op, Quant, Tensor
from compiler.planner import Region, plan_memory
from compiler.schema import program_generated as fb
from compiler.target import Target
from compiler.writer import write_program
from ember_build.board import load_board

EM_ERR_BAD_OPERATOR = 10


class Runner:
    def __init__(self, name: str, exe: Path, target: Target):
        self.name, self.exe, self.target = name, exe, target

    def run(self, tmp_path: Path, data: bytes, input_bytes: bytes) -> subprocess.CompletedProcess:
        (tmp_path / "p.embr").write_bytes(data)
        (tmp_path / "in.bin").write_bytes(input_bytes)
        if self.name == "host":
            cmd = [str(self.exe), str(tmp_path / "p.embr"), "--input", str(tmp_path / "in.bin"),
                   "--output", str(tmp_path / "out.bin")]
            return subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        from test_em_run_qemu import qemu
        return qemu(self.exe, tmp_path, "p.embr --input in.bin --output out.bin")

    def output(self, tmp_path: Path, graph: Graph, x: np.ndarray) -> np.ndarray:
        result = self.run(tmp_path, write_program(graph, self.target), x.tobytes())
        assert result.returncode == 0, result.stdout + result.stderr
        out = graph.tensors[graph.outputs[0]]
        return np.frombuffer((tmp_path / "out.bin").read_bytes(), np.int8).reshape(out.shape)


@pytest.fixture(scope="module", params=["host", "m55"])
def runner(request):
    if request.param == "host":
        return Runner("host", build_em_run(), Target("host"))
    return Runner("m55", build_em_run_firmware("corstone300"),
                  Target(load_board("corstone300").cpu))


@pytest.fixture(scope="module")
def host():
    return Runner("host", build_em_run(), Target("host"))


def _int8(name, shape, data=None, zp=0):
    return Tensor(name, "int8", shape, quant=Quant.per_tensor(0.05, zp), data=data)


def graph_of(tensors: list[Tensor], ops: list[Op], inputs: list[str], outputs: list[str]) -> Graph:
    g = Graph({t.name: t for t in tensors}, ops, inputs, outputs)
    plan_memory(g, Region("sram", 256 * 1024))
    return g


def pool_attrs(kernel, stride, padding, include=True, zp=0, act=(-128, 127)):
    return dict(kernel=kernel, stride=stride, padding=padding, count_include_pad=include, zero_point=zp,
                activation_min=act[0], activation_max=act[1])


def pool_graph(kind: str, x_shape, attrs: dict, out_shape=None) -> Graph:
    n, h, w, c = x_shape
    (kh, kw), (sh, sw), (top, bottom, left, right) = attrs["kernel"], attrs["stride"], attrs["padding"]
    if out_shape is None:
        out_shape = (n, reference.output_size(h, kh, sh, 1, top, bottom),
                     reference.output_size(w, kw, sw, 1, left, right), c)
    return graph_of([_int8("x", x_shape), _int8("y", out_shape)], [Op(f"{kind}_pool2d", ["x"], ["y"], attrs)],
                    ["x"], ["y"])


def run_reference(graph: Graph, x: np.ndarray) -> np.ndarray:
    return reference.run(graph, [x])[graph.outputs[0]]


# (N, H, W, C), kernel, stride, padding: channel tails 1..33 around the 16-lane groups, windows of
# > 256 cells (int16 sums widened mid-window, and mid-row), global pooling, asymmetric padding.
def add_params(rng, scales=None, zps=None):
    scale_a, scale_b, scale_out = scales or (float(v) for v in 2.0 ** rng.uniform(-8, 0, size=3))
    zp_a, zp_b, zp_out = zps if zps is not None else (int(v) for v in rng.integers(-128, 128, size=3))
    twice = 2 * max(scale_a, scale_b)
    ma, sa = quantize_multiplier(scale_a / twice)
    mb, sb = quantize_multiplier(scale_b / twice)
    mo, so = quantize_multiplier(twice / ((1 << reference.ADD_LEFT_SHIFT) * scale_out))
    return dict(a_offset=-zp_a, a_multiplier=ma, a_shift=sa, b_offset=-zp_b, b_multiplier=mb, b_shift=sb,
                output_offset=zp_out, output_multiplier=mo, output_shift=so, activation_min=-128,
                activation_max=127)


def add_graph(x_shape, c_shape, c_data, params, const_first: bool) -> Graph:
    """x (program input) + constant c, or c + x."""
    out_shape = np.broadcast_shapes(tuple(x_shape), tuple(c_shape))
    inputs = ["c", "x"] if const_first else ["x", "c"]
    return graph_of([_int8("x", x_shape), _int8("c", c_shape, c_data), _int8("y", out_shape)],
                    [Op("add", inputs, ["y"], params)], ["x"], ["y"])


def test_add_same_tensor_twice_and_chain(runner, tmp_path):
    """x + x, then max pool, average pool and a channel-vector add in one program."""
    rng = np.random.default_rng(9)
    x = rng.integers(-128, 128, size=(1, 9, 9, 20), dtype=np.int8)
    bias = rng.integers(-128, 128, size=(1, 1, 1, 20), dtype=np.int8)
    tensors = [_int8("x", (1, 9, 9, 20)), _int8("s", (1, 9, 9, 20)), _int8("m", (1, 5, 5, 20)),
               _int8("a", (1, 2, 2, 20)), _int8("bias", (1, 1, 1, 20), bias), _int8("y", (1, 2, 2, 20))]
    ops = [Op("add", ["x", "x"], ["s"], add_params(rng, (0.05, 0.05, 0.1), (3, 3, -2))),
           Op("max_pool2d", ["s"], ["m"], pool_attrs((3, 3), (2, 2), (1, 1, 1, 1))),
           Op("avg_pool2d", ["m"], ["a"], pool_attrs((3, 3), (2, 2), (0, 1, 1, 0), False, 7)),
           Op("add", ["bias", "a"], ["y"], add_params(rng, (0.03, 0.05, 0.08), (-4, 7, 5)))]
    g = graph_of(tensors, ops, ["x"], ["y"])
    want = run_reference(g, x)
    assert len(np.unique(want)) > 4
    np.testing.assert_array_equal(runner.output(tmp_path, g, x), want)


# ---- malformed operators: rejected at load, never a crash -------------------------------------

BASE_POOL = ((1, 6, 5, 3), (3, 2), (2, 1), (1, 0, 1, 1))


def _bad_pool(kind, out_shape=None, x_shape=None, **changes):
    shape, kernel, stride, padding = BASE_POOL
    attrs = pool_attrs(kernel, stride, padding)
    attrs.update(changes)
    if out_shape is None:
        out_shape = (1, 3, 5, 3)  # the formula's, for the unchanged window
    g = pool_graph(kind, shape, attrs, out_shape)
    if x_shape is not None:
        g.tensors["x"].shape = x_shape
    return g


BAD_POOLS = {
    "kernel_0": dict(kernel=(0, 2)),
    "kernel_negative": dict(kernel=(3, -2)),
    "stride_0": dict(stride=(2, 0)),
    "stride_negative": dict(stride=(-1, 1)),
    "pad_negative": dict(padding=(1, 0, -1, 1)),
    "pad_equal_kernel": dict(padding=(3, 0, 1, 1)),
    "pad_right_equal_kernel": dict(padding=(1, 0, 1, 2)),
    "output_h_wrong": dict(out_shape=(1, 4, 5, 3)),
    "output_w_wrong": dict(out_shape=(1, 3, 4, 3)),
    "output_c_wrong": dict(out_shape=(1, 3, 5, 4)),
    "output_n_wrong": dict(out_shape=(2, 3, 5, 3)),
    "input_rank_3": dict(x_shape=(6, 5, 3), out_shape=(1, 3, 5, 3)),
    "output_rank_5": dict(out_shape=(1, 1, 3, 5, 3)),
    "clamps_crossed": dict(activation_min=10, activation_max=9),
    "clamp_out_of_int8": dict(activation_max=128),
    "zero_point_out_of_int8": dict(zero_point=-129),
}


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("name", sorted(BAD_POOLS))
def test_malformed_pool_rejected(host, tmp_path, kind, name):
    g = _bad_pool(kind, **BAD_POOLS[name])
    result = host.run(tmp_path, write_program(g, host.target), b"")
    assert result.returncode == EM_ERR_BAD_OPERATOR, result.stdout + result.stderr
    assert "EM_ERR_BAD_OPERATOR" in result.stdout


def test_avg_pool_huge_kernel_rejected_max_pool_accepted(host, tmp_path):
    """Kernel 2049x2049 (> 2^22 cells) over a 1x1 input, padding 1024 on each side."""
    for kind, status in (("avg", EM_ERR_BAD_OPERATOR), ("max", 0)):
        g = pool_graph(kind, (1, 1, 1, 2), pool_attrs((2049, 2049), (1, 1), (1024,) * 4))
        x = np.array([[[[3, -4]]]], np.int8)
        result = host.run(tmp_path, write_program(g, host.target), x.tobytes())
        assert result.returncode == status, result.stdout


def test_pool_and_add_dtypes_checked(host, tmp_path):
    g = pool_graph("max", (1, 4, 4, 2), pool_attrs((2, 2), (2, 2), (0, 0, 0, 0)))
    g.tensors["x"] = Tensor("x", "int32", (1, 4, 4, 2))
    plan_memory(g, Region("sram", 1 << 16))
    assert host.run(tmp_path, write_program(g, host.target), b"").returncode == EM_ERR_BAD_OPERATOR
    g = add_graph((2, 3), (2, 3), np.zeros((2, 3), np.int8), add_params(np.random.default_rng(0)), False)
    g.tensors["y"] = Tensor("y", "int32", (2, 3))
    plan_memory(g, Region("sram", 1 << 16))
    assert host.run(tmp_path, write_program(g, host.target), b"").returncode == EM_ERR_BAD_OPERATOR


BAD_ADDS = {
    "incompatible": ((2, 3), (3, 2), (2, 3), {}),
    "output_not_broadcast_shape": ((2, 3), (2, 3), (3, 2), {}),
    "output_bigger_than_broadcast": ((2, 3), (1, 3), (4, 3), {}),
    "output_rank_too_small": ((1, 2, 3), (3,), (2, 3), {}),
    "both_broadcast_output_too_small": ((2, 3, 4, 1), (1, 1, 1, 4), (2, 3, 4, 1), {}),
    "middle_axis_incompatible": ((2, 3, 4), (1, 2, 1), (2, 3, 4), {}),
    "empty_output": ((2, 0, 4), (1, 1, 4), None, {}),
    "a_offset_129": ((2, 3), (2, 3), None, dict(a_offset=129)),
    "b_offset_minus_128": ((2, 3), (2, 3), None, dict(b_offset=-128)),
    "output_offset_128": ((2, 3), (2, 3), None, dict(output_offset=128)),
    "shift_31": ((2, 3), (2, 3), None, dict(a_shift=31)),
    "shift_minus_32": ((2, 3), (2, 3), None, dict(output_shift=-32)),
    # input multipliers may be negative (sub lowers to add with b's negated), but not INT32_MIN,
    # and the output multiplier never
    "input_multiplier_int32_min": ((2, 3), (2, 3), None, dict(b_multiplier=-(2**31))),
    "output_multiplier_negative": ((2, 3), (2, 3), None, dict(output_multiplier=-5)),
    "clamps_crossed": ((2, 3), (2, 3), None, dict(activation_min=1, activation_max=0)),
}


@pytest.mark.parametrize("name", sorted(BAD_ADDS))
def test_malformed_add_rejected(host, tmp_path, name):
    x_shape, c_shape, out_shape, changes = BAD_ADDS[name]
    params = add_params(np.random.default_rng(1))
    params.update(changes)
    tensors = [_int8("x", x_shape), _int8("c", c_shape, np.zeros(c_shape, np.int8)),
               _int8("y", out_shape or x_shape)]
    g = graph_of(tensors, [Op("add", ["x", "c"], ["y"], params)], ["x"], ["y"])
    result = host.run(tmp_path, write_program(g, host.target), b"")
    assert result.returncode == EM_ERR_BAD_OPERATOR, result.stdout + result.stderr


@pytest.mark.parametrize("opcode", [fb.OpCode.MAX_POOL_2D, fb.OpCode.AVG_POOL_2D, fb.OpCode.ADD])
def test_missing_or_foreign_options_rejected(host, tmp_path, opcode):
    """A pool or add whose options are absent, or FullyConnectedOptions, fails check()."""
    spec, _ = programs.fc_program()
    op = spec.operators[0]
    op.opcode = opcode
    op.inputs = [0, 0] if opcode == fb.OpCode.ADD else [0]
    for options_type in (fb.OpOptions.FullyConnectedOptions, fb.OpOptions.NONE):
        op.options_type = options_type
        result = host.run(tmp_path, programs.build(spec), b"")
        assert result.returncode == EM_ERR_BAD_OPERATOR, result.stdout + result.stderr


def instructions(stdout: str) -> int:
    return int(re.search(r"instructions: (\d+)", stdout).group(1))
