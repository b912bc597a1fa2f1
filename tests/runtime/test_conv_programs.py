"""CONV_2D and DEPTHWISE_CONV_2D in a program of several layers (compiler IR -> planner -> writer)
through em_run on the host (scalar) and as Cortex-M55 firmware in QEMU (MVE), against
compiler.reference.run byte for byte; malformed Conv2DOptions and shapes are refused at load with
EM_ERR_BAD_OPERATOR. Single layers, every path of every tier, are the conformance suite's
(tests/kernels/cases/conv2d.py, depthwise_conv2d.py)."""
from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from build_host import build_em_run, build_em_run_firmware
from compiler import reference
from compiler.fixedpoint import quantize_multiplier
from compiler.ir import Graph, Op, Quant, Tensor
from compiler.planner import Region, plan_memory
from compiler.target import Target
from compiler.writer import write_program
from ember_build.board import load_board

EM_ERR_BAD_OPERATOR = 10


def conv_layer(kind, rng, c_in, *, k=(3, 3), c_out=None, m=1, stride=(1, 1), dilation=(1, 1),
               padding=(1, 1, 1, 1), groups=1, in_zp=0, out_zp=0, act=(-128, 127)):
    """One op's constants and attrs; scales spread the outputs over -128..127 (some clamp)."""
    kh, kw = k
    if kind == "conv2d":
        w = rng.integers(-128, 128, size=(c_out, kh, kw, c_in // groups), dtype=np.int8)
        taps = kh * kw * (c_in // groups)
    else:
        c_out = c_in * m
        w = rng.integers(-128, 128, size=(kh, kw, c_out), dtype=np.int8)
        taps = kh * kw
    spread = float(np.log2(0.012 / np.sqrt(taps)))
    reals = 2.0 ** rng.uniform(spread - 1.0, spread + 1.0, size=c_out)
    reals[(rng.random(c_out) < 0.1) & (np.arange(c_out) > 1)] = 3.0  # shift > 0
    pairs = [quantize_multiplier(float(r)) for r in reals]
    bias_range = int(3000 * np.sqrt(taps))
    attrs = dict(stride=stride, dilation=dilation, padding=padding, input_zero_point=in_zp,
                 output_offset=out_zp, activation_min=act[0], activation_max=act[1],
                 multiplier=np.array([p for p, _ in pairs], np.int32),
                 shift=np.array([s for _, s in pairs], np.int32))
    if kind == "conv2d":
        attrs["groups"] = groups
    else:
        attrs["depth_multiplier"] = m
    return kind, w, rng.integers(-bias_range, bias_range, size=c_out, dtype=np.int32), attrs


def graph_of(input_shape, layers) -> Graph:
    """input -> layers in sequence -> output; every activation int8 NHWC, planned."""
    tensors = {"x": Tensor("x", "int8", input_shape, Quant.per_tensor(0.05, layers[0][3]["input_zero_point"]))}
    ops, shape, prev = [], tuple(input_shape), "x"
    for i, (kind, w, bias, attrs) in enumerate(layers):
        kh, kw = (w.shape[1], w.shape[2]) if kind == "conv2d" else (w.shape[0], w.shape[1])
        c_out = w.shape[0] if kind == "conv2d" else w.shape[2]
        oh = reference.output_size(shape[1], kh, attrs["stride"][0], attrs["dilation"][0], *attrs["padding"][:2])
        ow = reference.output_size(shape[2], kw, attrs["stride"][1], attrs["dilation"][1], *attrs["padding"][2:])
        shape = (shape[0], oh, ow, c_out)
        out = f"y{i}"
        tensors[f"w{i}"] = Tensor(f"w{i}", "int8", w.shape, data=w)
        tensors[f"b{i}"] = Tensor(f"b{i}", "int32", bias.shape, data=bias)
        tensors[out] = Tensor(out, "int8", shape, Quant.per_tensor(0.1, attrs["output_offset"]))
        ops.append(Op(kind, [prev, f"w{i}", f"b{i}"], [out], dict(attrs), origin="test_conv_programs"))
        prev = out
    graph = Graph(tensors, ops, ["x"], [prev])
    plan_memory(graph, Region("sram", 1 << 20))
    return graph


class Runner:
    def __init__(self, name: str, exe: Path, target: Target):
        self.name, self.exe, self.target = name, exe, target

    def run(self, tmp_path: Path, graph: Graph, x: np.ndarray) -> subprocess.CompletedProcess:
        (tmp_path / "p.embr").write_bytes(write_program(graph, self.target))
        (tmp_path / "in.bin").write_bytes(np.ascontiguousarray(x, np.int8).tobytes())
        if self.name == "host":
            cmd = [str(self.exe), str(tmp_path / "p.embr"), "--input", str(tmp_path / "in.bin"),
                   "--output", str(tmp_path / "out.bin")]
            return subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        from test_em_run_qemu import qemu
        return qemu(self.exe, tmp_path, "p.embr --input in.bin --output out.bin")

    def check(self, tmp_path: Path, graph: Graph, x: np.ndarray) -> np.ndarray:
        result = self.run(tmp_path, graph, x)
        assert result.returncode == 0, result.stdout + result.stderr
        want = reference.run(graph, [x])[graph.outputs[0]]
        got = np.frombuffer((tmp_path / "out.bin").read_bytes(), np.int8).reshape(want.shape)
        np.testing.assert_array_equal(got, want)
        assert want.size < 8 or len(np.unique(want)) > 2  # not collapsed to the clamps
        return want


@pytest.fixture(scope="module")
def host():
    return Runner("host", build_em_run(), Target("host"))


@pytest.fixture(scope="module", params=["host", "m55"])
def runner(request, host):
    if request.param == "host":
        return host
    return Runner("m55", build_em_run_firmware("corstone300"),
                  Target(load_board("corstone300").cpu))


def test_small_cnn_matches_reference(runner, tmp_path):
    """conv 3x3 s2 -> depthwise 3x3 -> conv 1x1 -> depthwise 3x3 (M 2) -> conv 3x3 (groups 2)."""
    rng = np.random.default_rng(11)
    zps = [-128, 5, -7, 0, 12, -3]
    layers = [
        conv_layer("conv2d", rng, 3, c_out=16, stride=(2, 2), in_zp=zps[0], out_zp=zps[1], act=(zps[1], 127)),
        conv_layer("depthwise_conv2d", rng, 16, in_zp=zps[1], out_zp=zps[2]),
        conv_layer("conv2d", rng, 16, k=(1, 1), c_out=24, padding=(0, 0, 0, 0), in_zp=zps[2], out_zp=zps[3]),
        conv_layer("depthwise_conv2d", rng, 24, m=2, in_zp=zps[3], out_zp=zps[4]),
        conv_layer("conv2d", rng, 48, c_out=10, groups=2, in_zp=zps[4], out_zp=zps[5]),
    ]
    graph = graph_of((1, 15, 12, 3), layers)
    x = rng.integers(-128, 128, size=(1, 15, 12, 3), dtype=np.int8)
    runner.check(tmp_path, graph, x)


def _bad_graph(kind: str, change) -> Graph:
    rng = np.random.default_rng(0)
    layer = conv_layer(kind, rng, 4, c_out=4, in_zp=1, out_zp=2)
    graph = graph_of((1, 5, 5, 4), [layer])
    change(graph, graph.ops[0].attrs)
    plan_memory(graph, Region("sram", 1 << 20))  # sizes may have changed: offsets stay valid
    return graph


def _set(**values):
    return lambda graph, attrs: attrs.update(values)


def _reshape(name, shape):
    def change(graph, attrs):
        t = graph.tensors[name]
        graph.tensors[name] = Tensor(name, t.dtype, shape, t.quant,
                                     None if t.data is None else np.zeros(shape, t.data.dtype), offset=t.offset)
    return change


def _retype(name, dtype):
    def change(graph, attrs):
        t = graph.tensors[name]
        graph.tensors[name] = Tensor(name, dtype, t.shape, t.quant,
                                     None if t.data is None else np.zeros(t.shape, dtype), offset=t.offset)
    return change


COMMON_BAD = {
    "stride_h_0": _set(stride=(0, 1)),
    "stride_w_negative": _set(stride=(1, -2)),
    "dilation_0": _set(dilation=(1, 0)),
    "pad_negative": _set(padding=(1, 1, -1, 1)),
    "output_h_too_large": _set(padding=(1, 2, 1, 1)),
    "output_w_too_small": _set(padding=(1, 1, 1, 0)),
    "huge_dilation": _set(dilation=(2**30, 1)),
    "input_zero_point_128": _set(input_zero_point=128),
    "output_offset_-129": _set(output_offset=-129),
    "activation_min_above_max": _set(activation_min=10, activation_max=9),
    "activation_max_200": _set(activation_max=200),
    "shift_31": lambda g, a: a["shift"].__setitem__(1, 31),
    "shift_-32": lambda g, a: a["shift"].__setitem__(2, -32),
    "negative_multiplier": lambda g, a: a["multiplier"].__setitem__(0, -5),
    "multiplier_too_short": lambda g, a: a.update(multiplier=a["multiplier"][:-1]),
    "shift_too_long": lambda g, a: a.update(shift=np.append(a["shift"], 0).astype(np.int32)),
    "bias_int8": _retype("b0", "int8"),
    "bias_wrong_length": _reshape("b0", (3,)),
    "output_channels_wrong": _reshape("y0", (1, 5, 5, 3)),
    "output_batch_wrong": _reshape("y0", (2, 5, 5, 4)),
    "input_rank_3": _reshape("x", (5, 5, 4)),
    "output_int32": _retype("y0", "int32"),
}
CONV_BAD = {
    "groups_3": _set(groups=3),
    "groups_0": _set(groups=0),
    "depth_multiplier_2": _set(depth_multiplier=2),
    "weights_rank_3": _reshape("w0", (4, 3, 12)),
    "weights_channels_wrong": _reshape("w0", (4, 3, 3, 2)),
}
DW_BAD = {
    "depth_multiplier_2": _set(depth_multiplier=2),
    "depth_multiplier_0": _set(depth_multiplier=0),
    "groups_4": _set(groups=4),
    "weights_rank_4": _reshape("w0", (1, 3, 3, 4)),
}


@pytest.mark.parametrize("kind,bad", [("conv2d", b) for b in {**COMMON_BAD, **CONV_BAD}]
                         + [("depthwise_conv2d", b) for b in {**COMMON_BAD, **DW_BAD}])
def test_malformed_options_are_refused_at_load(host, tmp_path, kind, bad):
    changes = {**COMMON_BAD, **(CONV_BAD if kind == "conv2d" else DW_BAD)}
    graph = _bad_graph(kind, changes[bad])
    result = host.run(tmp_path, graph, np.zeros(100, np.int8))
    assert result.returncode == EM_ERR_BAD_OPERATOR, result.stdout + result.stderr
    assert "EM_ERR_BAD_OPERATOR" in result.stdout


@pytest.mark.parametrize("kind", ["conv2d", "depthwise_conv2d"])
def test_unmodified_bad_graph_base_loads(host, tmp_path, kind):
    """The base of the malformed cases is valid: each case fails for its own change only."""
    graph = _bad_graph(kind, lambda g, a: None)
    x = np.random.default_rng(1).integers(-128, 128, size=(1, 5, 5, 4), dtype=np.int8)
    host.check(tmp_path, graph, x)
