"""Program files: round trip, schema freshness, atomic saves, C outputs, the CLI."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import compiler
from compiler.errors import ProgramFormatError
from compiler.program import Program
from compiler.reader import read_program
from tests.compiler.models import calibration, mlp

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def program() -> Program:
    return compiler.lower(mlp([12, 9, 5]), (torch.zeros(1, 12),), calibration(12), target="cortex-m55")


def test_round_trip_keeps_ops_constants_and_results(program, tmp_path):
    path = program.save(tmp_path / "m.embr")
    data = path.read_bytes()
    assert data[4:8] == b"EMBR"
    loaded = Program.load(path)
    assert [op.kind for op in loaded.graph.ops] == [op.kind for op in program.graph.ops]
    assert loaded.target == program.target and loaded.arena_bytes == program.arena_bytes
    x = np.random.default_rng(0).normal(size=(1, 12)).astype(np.float32)
    np.testing.assert_array_equal(loaded.run_reference(x)[0], program.run_reference(x)[0])


def test_constants_are_16_byte_aligned_in_the_file(program):
    from compiler.schema import program_generated as fb

    data = program.to_bytes()
    root = fb.Program.GetRootAs(data, 0)
    for i in range(root.BuffersLength()):
        vector_start = root.Buffers(i)._tab.Vector(4)  # field 0 ("data")
        assert vector_start % 16 == 0


def test_reader_rejects_other_files():
    with pytest.raises(ProgramFormatError, match="EMBR"):
        read_program(b"\x00" * 64)


def test_save_is_atomic_on_failure(program, tmp_path, monkeypatch):
    target = tmp_path / "m.embr"
    target.write_bytes(b"old")
    monkeypatch.setattr(Program, "to_bytes", lambda self: (_ for _ in ()).throw(RuntimeError("boom")))
    with pytest.raises(RuntimeError):
        program.save(target)
    assert target.read_bytes() == b"old" and list(tmp_path.iterdir()) == [target]


def test_emit_c_writes_the_aligned_array_and_the_registry_of_used_ops(program, tmp_path):
    paths = {p.name: p.read_text() for p in program.emit_c(tmp_path)}
    array = paths["em_model_program.c"]
    assert 'aligned(16), section(".em_program")' in array
    assert f"em_model_program_size = {len(program.to_bytes())}" in array
    registry = paths["em_registry.c"]
    assert "&em_op_fully_connected" in registry and "&em_op_quantize" in registry
    assert "em_registry_count = 3" in registry


def test_generated_schema_code_is_fresh(tmp_path):
    flatc = Path(sys.executable).with_name("flatc")
    subprocess.run([str(flatc), "--python", "--gen-onefile", "-o", str(tmp_path),
                    str(REPO / "compiler/schema/program.fbs")], check=True)
    assert (tmp_path / "program_generated.py").read_text() == (REPO / "compiler/schema/program_generated.py").read_text()


def test_cli_lowers_and_inspects_a_users_model(tmp_path, capsys):
    model_file = tmp_path / "user_model.py"
    model_file.write_text(
        "import torch\nfrom torch import nn\n\ndef build():\n    torch.manual_seed(0)\n"
        "    return nn.Sequential(nn.Linear(10, 16), nn.ReLU6(), nn.Linear(16, 3))\n")
    np.save(tmp_path / "cal.npy", np.random.default_rng(0).normal(size=(32, 10)).astype(np.float32))
    out = tmp_path / "user.embr"
    run = subprocess.run([sys.executable, "-m", "compiler", "lower", "--model", f"{model_file}:build",
                          "--input-shape", "1,10", "--calibration", str(tmp_path / "cal.npy"),
                          "-o", str(out), "--emit-c", str(tmp_path / "c")],
                         cwd=REPO, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert out.exists() and (tmp_path / "c" / "em_registry.c").exists()
    from compiler.cli import main  # in this process: the lower above was the real launch

    assert main(["inspect", str(out)]) in (0, None)
    printed = capsys.readouterr().out
    assert "fully_connected" in printed and "tier mve" in printed


def test_target_tiers_are_validated():
    from compiler.errors import TargetError
    from compiler.target import Target

    assert Target("cortex-m55").tier == "mve" and Target("cortex-m55", "dsp").tier == "dsp"
    with pytest.raises(TargetError):
        Target("cortex-m4", "mve")
    with pytest.raises(TargetError):
        Target("cortex-m999")
