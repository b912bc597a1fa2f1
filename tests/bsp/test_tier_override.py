"""Tier override (`scons ... tier=<tier>`, `python -m compiler lower --tier`): a board built for a
lower ISA tier than its CPU's best (an M55 without MVE runs dsp), into its own build folder, with
the runtime's tier (em_nn_tier.h) equal to the program's; a higher tier (mve on an M4) is a named
error before anything builds. The override builds' kernels are checked bit-exact by the
conformance suite (tests/kernels/test_conformance.py, device corstone300-dsp)."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ember_build.board import TIERS, TierOverrideError, known_boards, load_board
from ember_build.toolchain import firmware_cflags
from ember_build.paths import BUILD_ROOT

REPO = Path(__file__).resolve().parents[2]
SCONS = Path(sys.executable).with_name("scons")
# Helium instructions in objdump's text: any vector op on a q register, VPT blocks, tail-predicated loops.
MVE_INSTRUCTION = re.compile(r"\t(v\S*\t.*\bq[0-7]\b|vpst|vpt\S*|vctp\S*|dlstp\S*|wlstp\S*|letp|lctp)")


def runtime_tier(board) -> str:
    """The tier em_nn_tier.h selects under the board's compile flags."""
    source = '#include "em_nn_tier.h"\nEM_NN_TIER\n'
    run = subprocess.run([board.cc, *firmware_cflags(board), f"-I{REPO / 'runtime/kernels/include'}",
                          "-E", "-P", "-x", "c", "-"], input=source, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return TIERS[int(run.stdout.split()[-1])]


@pytest.mark.qemu
@pytest.mark.parametrize("name", [n for n in known_boards() if n != "host"])
def test_every_runnable_tier_selects_its_kernels(name):
    """For each tier up to the board's best, the override's flags make em_nn_tier.h (the runtime's
    tier, checked against the program's at load) select exactly that tier."""
    board = load_board(name)
    if shutil.which(board.cc) is None:
        pytest.skip(f"{board.cc} is not installed")
    for tier in TIERS[: TIERS.index(board.tier) + 1]:
        lower = board.for_tier(tier)
        assert (lower.tier, lower.best_tier) == (tier, board.tier)
        assert runtime_tier(lower) == tier, f"{name} tier={tier}: flags {lower.cflags}"
        assert lower.build_name == (name if tier == board.tier else f"{name}-{tier}")


def test_m55_without_mve_flags():
    board = load_board("corstone300")
    assert board.for_tier("dsp").cflags[0] == "-mcpu=cortex-m55+nomve"
    assert board.for_tier("scalar").cflags[0] == "-mcpu=cortex-m55+nomve+nodsp"
    assert board.for_tier("mve") is board and board.for_tier("") is board


@pytest.mark.parametrize("name,tier", [("mps2_an386", "mve"), ("mps2_an505", "mve"), ("mps2_an385", "dsp"),
                                       ("host", "dsp"), ("corstone300", "avx")])
def test_a_tier_the_cpu_cannot_run_is_a_named_error(name, tier):
    with pytest.raises(TierOverrideError, match=f"'{tier}'"):
        load_board(name).for_tier(tier)


@pytest.mark.slow  # an SCons build on the host (tests/tiers.py)
def test_scons_refuses_mve_on_an_m4_before_building():
    run = subprocess.run([str(SCONS), "app=anomaly", "board=mps2_an386", "tier=mve"], cwd=REPO,
                         capture_output=True, text=True, timeout=120)
    out = run.stdout + run.stderr
    assert run.returncode == 2, out
    assert "TierOverrideError" in out and "cannot run tier 'mve'" in out and "scalar, dsp" in out
    assert "CC " not in out and "compiling model" not in out
    assert not (BUILD_ROOT / "mps2_an386-mve").exists()


def _objdump(elf: Path) -> str:
    return subprocess.run(["arm-none-eabi-objdump", "-d", "-marmv8.1-m.main", str(elf)], capture_output=True,
                          text=True, check=True).stdout


@pytest.mark.qemu
def test_dsp_override_firmware_has_no_mve_instruction():
    """em_run for corstone300 tier=dsp lands in <build>/corstone300-dsp/, apart from the default
    build's <build>/corstone300/, and its disassembly has no Helium instruction (the default
    build's has many: the check bites)."""
    sys.path.insert(0, str(REPO / "tests" / "kernels"))
    from conformance import Device

    dsp = Device("corstone300-dsp", "corstone300", "dsp").build_runner()
    mve = Device("corstone300", "corstone300").build_runner()
    assert dsp.parts[-2:] == ("corstone300-dsp", "em_run.elf") and mve.parts[-2:] == ("corstone300", "em_run.elf")
    found = [line for line in _objdump(dsp).splitlines() if MVE_INSTRUCTION.search(line)]
    assert not found, "\n".join(found[:20])
    assert sum(1 for line in _objdump(mve).splitlines() if MVE_INSTRUCTION.search(line)) > 100
    attributes = subprocess.run(["arm-none-eabi-readelf", "-A", str(dsp)], capture_output=True, text=True).stdout
    assert "Tag_MVE_arch" not in attributes


def test_cli_records_the_override_and_refuses_mve_on_an_m4(tmp_path, capsys):
    from compiler import cli
    from compiler.program import Program

    model_file = tmp_path / "user_model.py"
    model_file.write_text("import torch\nfrom torch import nn\n\ndef build():\n    torch.manual_seed(0)\n"
                          "    return nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 3))\n")
    np.save(tmp_path / "cal.npy", np.random.default_rng(0).normal(size=(16, 10)).astype(np.float32))
    common = ["lower", "--model", f"{model_file}:build", "--input-shape", "1,10",
              "--calibration", str(tmp_path / "cal.npy"), "-o", str(tmp_path / "m.embr")]
    assert cli.main(common + ["--target", "cortex-m4", "--tier", "mve"]) == 2
    assert "cortex-m4 cannot run tier 'mve'" in capsys.readouterr().err
    assert not (tmp_path / "m.embr").exists()
    assert cli.main(common + ["--target", "cortex-m55", "--tier", "dsp"]) == 0
    target = Program.load(tmp_path / "m.embr").target
    assert (target.cpu, target.tier) == ("cortex-m55", "dsp")
