"""em_run as firmware in QEMU (files via semihosting): a float -> QUANTIZE -> FC -> DEQUANTIZE
program on the Cortex-M55 against compiler/reference.py bit for bit, and every QEMU board
refusing the other tiers' programs by name. Single ops on every device, tier and edge are
tests/kernels/test_conformance.py's."""
from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

import programs
from build_host import build_em_run_firmware
from compiler import reference
from compiler.target import Tier
from compiler.schema import program_generated as fb
from ember_build.board import emulated_boards, load_board
from ember_build.qemu import emulator_command

pytestmark = pytest.mark.qemu  # builds Arm firmware / runs it in QEMU (tests/tiers.py)


@pytest.fixture(scope="module")
def firmware():
    return build_em_run_firmware("corstone300")


def qemu(elf: Path, cwd: Path, args: str, board: str = "corstone300") -> subprocess.CompletedProcess:
    """Runs @p elf with the board's own emulator command (bsp/<board>/board.yaml)."""
    cmd = emulator_command(load_board(board), elf, args)
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120)


def run_program(firmware, tmp_path, spec, input_bytes: bytes):
    (tmp_path / "p.embr").write_bytes(programs.build(spec))
    (tmp_path / "in.bin").write_bytes(input_bytes)
    result = qemu(firmware, tmp_path, "p.embr --input in.bin --output out.bin")
    return result, (tmp_path / "out.bin")


def test_pipeline_mve_matches_reference(firmware, tmp_path):
    spec, case = programs.pipeline_program(batches=2, inv_scale=20.0, in_zp=4)
    spec.tier = fb.Tier.MVE
    x = (np.random.default_rng(6).standard_normal((2, 17)) * 3).astype(np.float32)
    x[0, :6] = [np.nan, np.inf, -np.inf, 0.525, 0.025, -0.075]  # ties at inv_scale 20
    result, out = run_program(firmware, tmp_path, spec, x.tobytes())
    assert result.returncode == 0, result.stdout + result.stderr
    q = reference.quantize_f32_s8(x, np.float32(20.0), 4)
    y = reference.fully_connected_s8(q, case.weights, case.bias, case.multiplier, case.shift,
                                     case.output_offset, case.activation_min, case.activation_max)
    want = reference.dequantize_s8_f32(y, np.float32(0.1), -3)
    got = np.frombuffer(out.read_bytes(), dtype=np.float32).reshape(want.shape)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("board", [b.name for b in emulated_boards()])
def test_a_program_of_another_tier_is_refused(board, tmp_path):
    """Each QEMU board loads only its own tier's programs: the others fail with EM_ERR_WRONG_TIER."""
    elf, tier = build_em_run_firmware(board), load_board(board).tier
    for other in set(Tier) - {tier}:
        spec, _ = programs.fc_program()
        spec.tier = other.number
        (tmp_path / "p.embr").write_bytes(programs.build(spec))
        result = qemu(elf, tmp_path, "p.embr", board=board)
        assert result.returncode == 4 and "em_run: EM_ERR_WRONG_TIER" in result.stdout, (other, result.stdout)
