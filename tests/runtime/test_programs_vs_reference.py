"""Whole programs on the host runner and on Cortex-M55 firmware (MVE tier, QEMU) against
compiler/reference.py: many-op programs (invoke's trusted per-operator path, operator after
operator) and the float boundary kernels, whose MVE paths must give the scalar path's bits on
NaN, ±inf, ties, huge and denormal values and every tail length. Correctness only: nothing
here counts instructions."""
from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

import programs
from build_host import build_em_run, build_em_run_firmware
from compiler import reference
from compiler.schema import program_generated as fb


class Runner:
    """Runs a program spec on one target; returns the raw output bytes."""

    def __init__(self, name: str, exe: Path, tier: int):
        self.name, self.exe, self.tier = name, exe, tier

    def run(self, tmp_path: Path, spec: programs.ProgramSpec, input_bytes: bytes) -> bytes:
        spec.tier = self.tier
        (tmp_path / "p.embr").write_bytes(programs.build(spec))
        (tmp_path / "in.bin").write_bytes(input_bytes)
        out = tmp_path / "out.bin"
        if self.name == "host":
            cmd = [str(self.exe), str(tmp_path / "p.embr"), "--input", str(tmp_path / "in.bin"),
                   "--output", str(out)]
            result = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        else:
            from test_em_run_qemu import qemu
            result = qemu(self.exe, tmp_path, "p.embr --input in.bin --output out.bin")
        assert result.returncode == 0, result.stdout + result.stderr
        return out.read_bytes()


@pytest.fixture(scope="module", params=["host", "m55"])
def runner(request):
    if request.param == "host":
        return Runner("host", build_em_run(), fb.Tier.SCALAR)
    return Runner("m55", build_em_run_firmware("corstone300"),
                  fb.Tier.MVE)


@pytest.mark.parametrize("n_ops,width,batches", [(20, 7, 2), (33, 16, 1), (20, 5, 3)])
def test_many_chained_fcs_match_reference(runner, tmp_path, n_ops, width, batches):
    spec, cases = programs.fc_chain_program(n_ops, width, batches, seed=n_ops * 31 + width)
    x = np.random.default_rng(width).integers(-128, 128, size=(batches, width), dtype=np.int8)
    got = np.frombuffer(runner.run(tmp_path, spec, x.tobytes()), np.int8).reshape(batches, width)
    want = programs.fc_chain_reference(x, cases)
    assert len(np.unique(want)) > 2  # the chain did not collapse to a constant
    np.testing.assert_array_equal(got, want)


SPECIALS = np.array(
    [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 126.5, 127.5,
     -128.5, -127.5, 1e10, -1e10, 3.4e38, -3.4e38, 1.1754942e-38, -1.1754942e-38, 1e-38, -1e-39,
     1e-45, 0.49999997, 127.49999], dtype=np.float32)


def quantize_input(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * 4).astype(np.float32)
    k = min(n, len(SPECIALS))
    x[:k] = SPECIALS[:k]
    return x


def check_quantize(runner, tmp_path, n, inv_scale, zero_point, seed=0):
    x = quantize_input(n, seed)
    inv = np.float32(inv_scale)
    got = np.frombuffer(runner.run(tmp_path, programs.quantize_program(n, float(inv), zero_point),
                                   x.tobytes()), np.int8)
    with np.errstate(all="ignore"):
        want = reference.quantize_f32_s8(x, inv, zero_point).reshape(-1)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("n", [1, 3, 4, 5, 15, 16, 17, 27, 33, 257])
def test_quantize_every_tail_length(runner, tmp_path, n):
    """inv_scale 1: the ties 0.5 / 1.5 / -2.5 ... round half to even, NaN -> zp, ±inf clamp."""
    check_quantize(runner, tmp_path, n, 1.0, -3, seed=n)


# 2^125 is the largest inv_scale of the MVE path; beyond it, denormal or non-finite ones take
# the scalar path (a denormal x times 3e38 is 3: a flushed denormal would give 0).
@pytest.mark.parametrize("inv_scale", [20.0, 37.3, 1 / 0.0078125, 2.0**125, 2.0**126, 3e38, 1e-40,
                                       1.2e-38, 0.0, -5.0, np.inf, np.nan])
def test_quantize_scales(runner, tmp_path, inv_scale):
    check_quantize(runner, tmp_path, 67, inv_scale, 5, seed=3)


@pytest.mark.parametrize("scale,n", [
    (1.0, 256), (0.0078125, 259), (0.1, 1), (-0.37, 5), (0.0, 7), (-1.0, 13), (2.0**-126, 17),
    (3e-39, 33), (1e-45, 6), (1e37, 31), (np.inf, 9), (np.nan, 3)])
def test_dequantize_scales_and_tails(runner, tmp_path, scale, n):
    zero_point = -7
    q = np.resize(np.arange(-128, 128, dtype=np.int8), n)
    s = np.float32(scale)
    got = np.frombuffer(runner.run(tmp_path, programs.dequantize_program(n, float(s), zero_point),
                                   q.tobytes()), np.float32)
    with np.errstate(all="ignore"):
        want = reference.dequantize_s8_f32(q, s, zero_point)
    # NaN bits differ between hosts (x86's default NaN is negative, Arm's positive): NaN-ness only.
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    keep = ~np.isnan(want)
    np.testing.assert_array_equal(got[keep].view(np.uint32), want[keep].view(np.uint32))
