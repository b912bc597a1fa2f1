"""em_run as Cortex-M55 (MVE tier) firmware in QEMU mps3-an547: the Helium kernels against
compiler/reference.py byte for byte, through whole programs (files via semihosting)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import programs
from build_host import REPO, build_em_run_firmware
from compiler import reference
from compiler.schema import program_generated as fb

pytestmark = pytest.mark.qemu  # builds Arm firmware / runs it in QEMU (tests/tiers.py)


@pytest.fixture(scope="module")
def firmware():
    return build_em_run_firmware("corstone300")


def qemu(elf: Path, cwd: Path, args: str, board: str = "corstone300") -> subprocess.CompletedProcess:
    """Runs @p elf with the board's own emulator command (bsp/<board>/board.yaml)."""
    sys.path.insert(0, str(REPO / "site_scons"))
    from ember_build.board import load_board
    from ember_build.qemu import emulator_command

    cmd = emulator_command(load_board(board), elf, args)
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120)


def run_program(firmware, tmp_path, spec, input_bytes: bytes):
    (tmp_path / "p.embr").write_bytes(programs.build(spec))
    (tmp_path / "in.bin").write_bytes(input_bytes)
    result = qemu(firmware, tmp_path, "p.embr --input in.bin --output out.bin")
    return result, (tmp_path / "out.bin")


SHAPES = [(1, 1, 1), (1, 3, 5), (3, 17, 5), (1, 640, 128), (3, 640, 5), (3, 16, 128), (2, 33, 7)]


@pytest.mark.parametrize("batches,n_in,n_out", SHAPES)
def test_fc_mve_matches_reference(firmware, tmp_path, batches, n_in, n_out):
    seed = batches * 1000003 + n_in * 1009 + n_out
    case = programs.fc_case(batches=batches, n_in=n_in, n_out=n_out, seed=seed)
    rng = np.random.default_rng(seed)
    # Edge values and wide shifts (including > 0) on top of the random case.
    case.weights[0, :] = -128
    # Most channels spread over -128..127 (every product matters); a few with shift > 0 clamp.
    spread = float(np.log2(0.012 / np.sqrt(n_in)))
    reals = 2.0 ** rng.uniform(spread - 1.0, spread + 1.0, size=n_out)
    reals[rng.random(n_out) < 0.2] = 3.0
    pairs = [programs.quantize_multiplier(float(r)) for r in reals]
    case.multiplier[:] = [m for m, _ in pairs]
    case.shift[:] = [s for _, s in pairs]
    case.bias[:] = rng.integers(-2000, 2000, size=n_out)
    case.activation_min, case.activation_max = -128, 127
    case.output_offset = int(rng.integers(-128, 128))
    spec, _ = programs.fc_program(case, batches)
    spec.tier = fb.Tier.MVE
    x = rng.integers(-128, 128, size=(batches, n_in), dtype=np.int8)
    x[0, :] = 127
    result, out = run_program(firmware, tmp_path, spec, x.tobytes())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "instructions: " in result.stdout
    want = reference.fully_connected_s8(x, case.weights, case.bias, case.multiplier, case.shift,
                                        case.output_offset, case.activation_min, case.activation_max)
    got = np.frombuffer(out.read_bytes(), dtype=np.int8).reshape(want.shape)
    np.testing.assert_array_equal(got, want)


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


def test_scalar_program_refused_on_mve(firmware, tmp_path):
    spec, _ = programs.fc_program()
    result, _ = run_program(firmware, tmp_path, spec, b"")
    assert result.returncode == 4 and "em_run: EM_ERR_WRONG_TIER" in result.stdout


def test_fc_mve_requantize_ties_and_saturation(firmware, tmp_path):
    """Exact ties of the requantization (half up, both signs), INT32 extremes and
    shifts at both ends of -31..30, through the 4-lane requantization."""
    n_out = 20
    case = programs.fc_case(batches=1, n_in=1, n_out=n_out)
    case.weights[:] = 1
    case.multiplier[:] = 1 << 30  # 0.5: acc / 2^(e + 1)
    case.shift[:16] = [-(1 + i % 4) for i in range(16)]
    case.bias[:16] = [(1 if i % 2 else -1) * ((2 * i + 1) << (1 + i % 4)) for i in range(16)]
    case.multiplier[16:] = [2**31 - 1, 2**31 - 1, 1 << 30, 0]
    case.shift[16:] = [-31, 0, 30, 0]
    case.bias[16:] = [-(2**31), 2**31 - 1, -5, 7]
    case.output_offset, case.activation_min, case.activation_max = 0, -128, 127
    spec, _ = programs.fc_program(case, 1)
    spec.tier = fb.Tier.MVE
    x = np.zeros((1, 1), dtype=np.int8)
    result, out = run_program(firmware, tmp_path, spec, x.tobytes())
    assert result.returncode == 0, result.stdout + result.stderr
    want = reference.fully_connected_s8(x, case.weights, case.bias, case.multiplier, case.shift,
                                        0, -128, 127)
    np.testing.assert_array_equal(np.frombuffer(out.read_bytes(), np.int8).reshape(want.shape), want)
