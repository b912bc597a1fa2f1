"""Whole A16W8 programs on the host runtime (em_run, the scalar tier) and on a QEMU board of each
tier, byte for byte against the reference: each test_a16w8 model, so that every int16 op kind the
lowering writes (and each int8 op between requantizes in an A16W8 model) is one the runtime takes."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import compiler
from compiler.quantizer import CortexMQuantizer
from compiler.target import Target

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kernels"))
from build_host import build_em_run  # noqa: E402
from conformance import Device, run_batch  # noqa: E402
from test_a16w8 import SHAPE, ConvTable, Gated, LinearNormGru, Means, Net  # noqa: E402

MODELS = {"net": (Net, SHAPE), "gated": (Gated, SHAPE), "tables": (ConvTable, SHAPE),
          "norm_gru": (LinearNormGru, (1, 6, 16)), "means": (Means, SHAPE)}


def _program(name: str, target: Target) -> tuple[compiler.Program, np.ndarray]:
    """Model `name` lowered at A16W8 for `target`, and an input in Ember's layout."""
    net, shape = MODELS[name]
    torch.manual_seed(21)
    model = net().eval()
    program = compiler.lower(model, (torch.randn(shape),), [torch.randn(shape) for _ in range(8)], target,
                             report_fallbacks=False, quantizer=CortexMQuantizer(precision="a16w8"))
    assert "int16" in {t.dtype for t in program.graph.tensors.values()}
    x = np.random.default_rng(8).standard_normal(shape).astype(np.float32)
    return program, (x.transpose(0, 2, 3, 1) if len(shape) == 4 else x)


@pytest.mark.parametrize("name", list(MODELS))
def test_the_a16w8_program_runs_bit_exact_on_the_runtime(name: str, tmp_path: Path):
    program, x = _program(name, Target("host"))
    (tmp_path / "p.embr").write_bytes(program.to_bytes())
    (tmp_path / "in0.bin").write_bytes(np.ascontiguousarray(x).tobytes())
    outputs = [f"out{i}.bin" for i in range(len(program.graph.outputs))]
    args = [str(build_em_run()), "p.embr", "--input", "in0.bin"] + [w for o in outputs for w in ("--output", o)]
    result = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    for out, want in zip(outputs, program.run_reference(x)):
        assert (tmp_path / out).read_bytes() == np.ascontiguousarray(want).tobytes(), (name, out)


@pytest.mark.parametrize("device", [Device("corstone300", "corstone300"), Device("mps2_an386", "mps2_an386"),
                                    Device("mps2_an385", "mps2_an385")], ids=lambda d: d.name)
def test_the_a16w8_programs_run_bit_exact_on_each_tier(device: Device, tmp_path: Path):
    """The one-output models on the M55 (Helium), the M4 (DSP) and the M3 (scalar)."""
    runs = []
    for name in ("net", "gated", "tables", "norm_gru"):
        program, x = _program(name, device.target)
        (want,) = program.run_reference(x)
        runs.append((program.to_bytes(), [np.ascontiguousarray(x).tobytes()], np.ascontiguousarray(want).tobytes()))
    verdicts = run_batch(device, device.build_runner(), runs, tmp_path).verdicts
    assert [v.matched for v in verdicts] == [True] * len(runs), [(v.status, v.detail) for v in verdicts]
