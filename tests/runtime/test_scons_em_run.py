"""The runner as README builds it: `scons em_run board=host` → build/host/em_run."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import compiler
from tests.compiler.models import calibration, mlp
from ember_build.paths import BUILD_ROOT

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # SCons builds on the host (tests/tiers.py)


@pytest.fixture(scope="module")
def em_run() -> Path:
    scons = Path(sys.executable).with_name("scons")
    build = subprocess.run([str(scons), "em_run", "board=host"], cwd=REPO, capture_output=True, text=True)
    assert build.returncode == 0, build.stdout + build.stderr
    return BUILD_ROOT / "host/em_run"


def _program(tmp_path: Path, target: str) -> tuple[compiler.Program, Path]:
    program = compiler.lower(mlp([20, 13, 6], seed=5), (torch.zeros(1, 20),), calibration(20), target=target)
    return program, program.save(tmp_path / f"{target}.embr")


def test_runs_a_host_program_and_matches_the_reference(em_run, tmp_path):
    program, path = _program(tmp_path, "host")
    x = np.random.default_rng(3).normal(size=(1, 20)).astype(np.float32)
    (tmp_path / "x.bin").write_bytes(x.tobytes())
    run = subprocess.run([str(em_run), str(path), "--input", str(tmp_path / "x.bin"),
                          "--output", str(tmp_path / "y.bin")], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    got = np.frombuffer((tmp_path / "y.bin").read_bytes(), np.float32)
    np.testing.assert_array_equal(got, program.run_reference(x)[0].reshape(-1))


@pytest.mark.parametrize("damage,status", [
    (lambda data: data[:10], "EM_ERR_TRUNCATED"),  # shorter than a header and its trailer
    (lambda data: data[:40], "EM_ERR_PROGRAM_CORRUPT"),  # cut: its last four bytes are no CRC-32 of the rest
    (lambda data: data[:4] + b"XXXX" + data[8:], "EM_ERR_BAD_MAGIC"),
])
def test_rejects_a_damaged_program_by_name(em_run, tmp_path, damage, status):
    _, path = _program(tmp_path, "host")
    path.write_bytes(damage(path.read_bytes()))
    run = subprocess.run([str(em_run), str(path)], capture_output=True, text=True, timeout=60)
    assert run.returncode != 0 and f"em_run: {status}" in run.stdout


def test_rejects_a_program_for_another_tier(em_run, tmp_path):
    _, path = _program(tmp_path, "cortex-m55")
    run = subprocess.run([str(em_run), str(path)], capture_output=True, text=True, timeout=60)
    assert run.returncode != 0 and "em_run: EM_ERR_WRONG_TIER" in run.stdout



def test_the_runtime_is_built_against_the_header_generated_from_the_schema(em_run):
    """SCons wrote build/host/schema/em_schema.h from compiler/schema/program.fbs (the text
    schema_header gives for it now), and the loader's object depends on it."""
    from ember_build.schema_header import header_text, read_schema

    assert (BUILD_ROOT / "host/schema/em_schema.h").read_text() == header_text(read_schema())
    scons = Path(sys.executable).with_name("scons")
    tree = subprocess.run([str(scons), "-n", "-Q", "--tree=all", "em_run", "board=host"], cwd=REPO,
                          capture_output=True, text=True)
    assert tree.returncode == 0, tree.stdout + tree.stderr
    loader = tree.stdout.split("em_loader.o\n", 1)[1]
    loader = loader[: loader.index(".o\n")]  # its dependencies, up to the next object
    assert "host/schema/em_schema.h" in loader and "compiler/schema/program.fbs" in loader
