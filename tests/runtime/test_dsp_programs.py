"""The DSP tier in QEMU: em_run firmware on mps2_an386 (Cortex-M4) and mps2_an505 (Cortex-M33),
programs compiled for tier "dsp", against compiler.reference byte for byte: fully connected,
conv2d, depthwise conv2d, max / average pool and add.

Few but sharp cases per board (the QEMU suites of corstone300 hold the long lists): odd sizes
around the 4-byte words of SMLAD / SXTB16 (row tails 1..3, channel tails 1..3), edge values
-128 / 127, zero points at both ends, shifts > 0 (the saturating pre-shift of the
requantization), and each path of the conv kernel: in-place 1x1 columns, packed columns (im2col
into the adapter's scratch), tap by tap (K > the scratch), groups, depth multipliers (scalar)."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

import programs
from build_host import build_em_run_firmware
from compiler import reference
from compiler.schema import program_generated as fb
from compiler.target import Target
from compiler.writer import write_program
from ember_build.board import emulated_boards
from test_conv_programs import CASES as CONV_CASES
from test_conv_programs import conv_layer, graph_of
from test_em_run_qemu import qemu
from test_pool_add_programs import (ADD_CASES, POOL_CASES, add_graph, add_params, pool_attrs,
                                    pool_graph)

BOARDS = {b.name: b.cpu for b in emulated_boards() if b.tier == "dsp"}  # the QEMU DSP boards: mps2_an386, mps2_an505

pytestmark = pytest.mark.skipif(
    shutil.which("qemu-system-arm") is None or shutil.which("arm-none-eabi-gcc") is None,
    reason="needs qemu-system-arm and arm-none-eabi-gcc")


class DspRunner:
    def __init__(self, board: str, elf: Path):
        self.board, self.elf, self.target = board, elf, Target(BOARDS[board])
        assert self.target.tier == "dsp"

    def run(self, tmp_path: Path, data: bytes, x: np.ndarray) -> np.ndarray:
        (tmp_path / "p.embr").write_bytes(data)
        (tmp_path / "in.bin").write_bytes(np.ascontiguousarray(x).tobytes())
        result = qemu(self.elf, tmp_path, "p.embr --input in.bin --output out.bin", board=self.board)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "instructions: " in result.stdout
        return np.frombuffer((tmp_path / "out.bin").read_bytes(), np.int8)

    def check_graph(self, tmp_path: Path, graph, x: np.ndarray) -> np.ndarray:
        want = reference.run(graph, [x])[graph.outputs[0]]
        got = self.run(tmp_path, write_program(graph, self.target), x).reshape(want.shape)
        np.testing.assert_array_equal(got, want)
        return want


@pytest.fixture(scope="module", params=list(BOARDS))
def dsp(request):
    board = request.param
    return DspRunner(board, build_em_run_firmware(board))


def test_wrong_tier_refused(dsp, tmp_path):
    """A program of another tier (scalar, mve) fails to load with EM_ERR_WRONG_TIER."""
    for tier in (fb.Tier.SCALAR, fb.Tier.MVE):
        spec, _ = programs.fc_program()
        spec.tier = tier
        (tmp_path / "p.embr").write_bytes(programs.build(spec))
        result = qemu(dsp.elf, tmp_path, "p.embr", board=dsp.board)
        assert result.returncode == 4 and "EM_ERR_WRONG_TIER" in result.stdout


# batches, I, O: row tails 0..3, 4-row groups plus 1..3 rows, the DS-CNN classifier size; I 47:
# 16-input loop passes, then 4-input steps, then a tail of 3.
FC_SHAPES = [(1, 1, 1), (2, 7, 5), (3, 33, 6), (1, 640, 128), (2, 130, 11), (2, 47, 9)]


@pytest.mark.parametrize("batches,n_in,n_out", FC_SHAPES)
def test_fc_dsp_matches_reference(dsp, tmp_path, batches, n_in, n_out):
    data, x, want = programs.fc_edge_program(batches, n_in, n_out, fb.Tier.DSP)
    np.testing.assert_array_equal(dsp.run(tmp_path, data, x).reshape(want.shape), want)


def test_fc_dsp_requantize_ties_and_saturation(dsp, tmp_path):
    """Exact ties of the requantization (half up, both signs), INT32 extremes, shifts at both
    ends of -31..30 (the 32-bit split of em_nn_requantize)."""
    data, x, want = programs.fc_ties_program(fb.Tier.DSP)
    np.testing.assert_array_equal(dsp.run(tmp_path, data, x).reshape(want.shape), want)


# The conv / depthwise cases of the corstone300 suite that reach every DSP path.
DSP_CONV_CASES = [
    "conv3x3_c3_pairs_odd_pixels",    # packed columns, K = 27 (word tail 3), zp -128
    "conv1x1_in_place_c64",           # in place, 4-row groups + 1 row (33 channels)
    "conv1x1_padded_borders",         # in place inside, packed at the padded borders, Cg 17
    "conv3x3_c260_taps_no_scratch",   # K = 2340 > the adapter's 2304 B: tap by tap, zp 127
    "conv_groups3_c6",                # groups, dilation, stride, asymmetric padding
    "conv1x1_s2_k33_c5",              # pixel pairs: K tail 1, an odd last row
    "conv3x3_c32_k288_blocks",        # pixel pairs of packed columns, an odd last pixel, 9 rows
    "conv10x4_s2_c1_dscnn_first",     # pixel pairs, K = 40, rows fully padded
    "dw3x3_dscnn_c64",                # depthwise M 1, full words, zp -128
    "dw5x3_m3_c17",                   # M 3 (scalar on DSP)
    "dw3x3_dil2_c5",                  # M 1, channel tail 1, dilation, zp 127
    "dw10x4_c7",                      # M 1, channel tail 3, rows and taps fully padded
]


@pytest.mark.parametrize("name", DSP_CONV_CASES)
def test_conv_dsp_matches_reference(dsp, tmp_path, name):
    shape, kind, kwargs = CONV_CASES[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    graph = graph_of(shape, [conv_layer(kind, rng, shape[3], **kwargs)])
    x = rng.integers(-128, 128, size=shape, dtype=np.int8)
    x[..., 0] = 127
    x[0, 0, :, :] = -128
    want = dsp.check_graph(tmp_path, graph, x)
    assert want.size < 8 or len(np.unique(want)) > 2


def test_conv_dsp_word_tails(dsp, tmp_path):
    """conv 3x3 with Cg 5 (K = 45: tail 1) and 7 channels, then depthwise with 6 channels (one
    word + 2), zero points 127 then -128, output clamps."""
    rng = np.random.default_rng(77)
    layers = [conv_layer("conv2d", rng, 5, c_out=7, stride=(1, 2), in_zp=127, out_zp=-128,
                         act=(-128, 90)),
              conv_layer("depthwise_conv2d", rng, 7, padding=(2, 0, 0, 2), in_zp=-128, out_zp=127)]
    graph = graph_of((1, 6, 9, 5), layers)
    x = rng.integers(-128, 128, size=(1, 6, 9, 5), dtype=np.int8)
    dsp.check_graph(tmp_path, graph, x)


@pytest.mark.parametrize("case", [0, 2, 7])
def test_pools_dsp_match_reference(dsp, tmp_path, case):
    shape, kernel, stride, padding = POOL_CASES[case]
    rng = np.random.default_rng(100 + case)
    x = rng.integers(-128, 128, size=shape, dtype=np.int8)
    x.reshape(-1)[:8] = [-128, 127] * 4
    zp = [-128, 127, 0, -5][case % 4]
    for kind, include in (("max", True), ("avg", True), ("avg", False)):
        g = pool_graph(kind, shape, pool_attrs(kernel, stride, padding, include, zp))
        dsp.check_graph(tmp_path, g, x)


@pytest.mark.parametrize("case", [1, 3, 4])
def test_add_dsp_matches_reference(dsp, tmp_path, case):
    x_shape, c_shape = ADD_CASES[case]
    rng = np.random.default_rng(case * 2)
    x = rng.integers(-128, 128, size=x_shape, dtype=np.int8)
    c = rng.integers(-128, 128, size=c_shape, dtype=np.int8)
    params = add_params(rng, None, [(-128, 127, -128), (127, -128, 127), None][case % 3])
    dsp.check_graph(tmp_path, add_graph(x_shape, c_shape, c, params, case % 2 == 1), x)
