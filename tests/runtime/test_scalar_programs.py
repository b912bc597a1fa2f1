"""The scalar tier in QEMU: em_run firmware on mps2_an385 (Cortex-M3), programs compiled for
tier "scalar", against compiler.reference byte for byte: fully connected and conv2d.

The host runs the same C except the Thumb-2 inline assembly of em_nn_dot4_s8_scalar (four rows
per input byte, four inputs per step) and of the SMULL requantization: these cases reach it with
step counts 0, 1 and many, input tails 1..3, 4-row groups plus 1..3 rows, edge values -128 / 127,
zero points at both ends, shifts > 0, and each conv path (in place, packed, tap by tap)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import programs
from build_host import build_em_run_firmware
from compiler import reference
from compiler.schema import program_generated as fb
from compiler.target import Target
from compiler.writer import write_program
from ember_build.board import load_board
from test_conv_programs import CASES as CONV_CASES
from test_conv_programs import conv_layer, graph_of
from test_em_run_qemu import qemu

pytestmark = pytest.mark.qemu  # builds Arm firmware / runs it in QEMU (tests/tiers.py)

BOARD = "mps2_an385"


@pytest.fixture(scope="module")
def m3() -> Path:
    return build_em_run_firmware(BOARD)


def run(elf: Path, tmp_path: Path, data: bytes, x: np.ndarray) -> np.ndarray:
    (tmp_path / "p.embr").write_bytes(data)
    (tmp_path / "in.bin").write_bytes(np.ascontiguousarray(x).tobytes())
    result = qemu(elf, tmp_path, "p.embr --input in.bin --output out.bin", board=BOARD)
    assert result.returncode == 0, result.stdout + result.stderr
    return np.frombuffer((tmp_path / "out.bin").read_bytes(), np.int8)


# batches, I, O: 0 / 1 / many steps of four (4 rows) or eight (6 rows) inputs, input tails 1..7,
# groups of 6 rows, then 4, then 1..3.
FC_SHAPES = [(1, 3, 5), (2, 4, 4), (1, 7, 9), (2, 8, 6), (1, 15, 13), (3, 33, 6), (1, 640, 11)]


@pytest.mark.parametrize("batches,n_in,n_out", FC_SHAPES)
def test_fc_scalar_m3_matches_reference(m3, tmp_path, batches, n_in, n_out):
    data, x, want = programs.fc_edge_program(batches, n_in, n_out, fb.Tier.SCALAR)
    np.testing.assert_array_equal(run(m3, tmp_path, data, x).reshape(want.shape), want)


def test_fc_scalar_m3_requantize_ties_and_saturation(m3, tmp_path):
    """Exact ties (half up, both signs), INT32 extremes, shifts at both ends of -31..30."""
    data, x, want = programs.fc_ties_program(fb.Tier.SCALAR)
    np.testing.assert_array_equal(run(m3, tmp_path, data, x).reshape(want.shape), want)


SCALAR_CONV_CASES = [
    "conv3x3_c3_pairs_odd_pixels",   # packed columns, K = 27, zp -128
    "conv1x1_in_place_c64",          # in place, 4-row groups + 1 row
    "conv1x1_padded_borders",        # in place inside, packed at the padded borders
    "conv3x3_c260_taps_no_scratch",  # K = 2340 > the adapter's scratch: tap by tap, zp 127
    "conv_groups3_c6",               # groups, dilation, stride, asymmetric padding
    "conv10x4_s2_c1_dscnn_first",    # K = 40, rows fully padded
]


@pytest.mark.parametrize("name", SCALAR_CONV_CASES)
def test_conv_scalar_m3_matches_reference(m3, tmp_path, name):
    shape, kind, kwargs = CONV_CASES[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    graph = graph_of(shape, [conv_layer(kind, rng, shape[3], **kwargs)])
    x = rng.integers(-128, 128, size=shape, dtype=np.int8)
    x[..., 0] = 127
    x[0, 0, :, :] = -128
    want = reference.run(graph, [x])[graph.outputs[0]]
    got = run(m3, tmp_path, write_program(graph, Target(load_board(BOARD).cpu)), x).reshape(want.shape)
    np.testing.assert_array_equal(got, want)
