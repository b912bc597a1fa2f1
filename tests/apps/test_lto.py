"""`lto=1`: the keyword-spotting firmware built with link-time optimisation at -Os runs and
matches the reference, is smaller than without LTO, and its size report still attributes
every byte to its source and bounds the stack from the link's own call graph (the depthwise
kernel's function pointers, the convolution's assembly leaf and folded copies included)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ember_build.elf_check import flash_bytes
from ember_build.paths import BUILD_ROOT

pytestmark = pytest.mark.qemu  # builds Arm firmware / runs it in QEMU (tests/tiers.py)

REPO = Path(__file__).resolve().parents[2]
LTO = BUILD_ROOT / "corstone300-Os-lto" / "kws"
PLAIN = BUILD_ROOT / "corstone300-Os" / "kws"


def _scons(*args: str) -> None:
    scons = Path(sys.executable).with_name("scons")
    build = subprocess.run([str(scons), "app=kws", "board=corstone300", "opt=-Os", *args], cwd=REPO,
                           capture_output=True, text=True, timeout=900)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]


@pytest.fixture(scope="module")
def sizes() -> tuple[dict, dict]:
    _scons("lto=1", "run=1")
    _scons()
    return tuple(json.loads((out / "size.json").read_text()) for out in (LTO, PLAIN))


def test_the_lto_firmware_matches_the_reference(sizes):
    assert json.loads((LTO / "report.json").read_text())["match"] is True


def test_lto_makes_the_code_smaller(sizes):
    lto, plain = sizes
    assert lto["code_flash"] < plain["code_flash"] - 512, (lto["code_flash"], plain["code_flash"])


def test_every_byte_is_still_attributed_to_its_source(sizes):
    lto, plain = sizes
    assert lto["flash_total"] == flash_bytes(LTO / "firmware.elf")
    assert sum(c["flash"] for c in lto["components"]) == lto["flash_total"]
    flash = {c["name"]: c["flash"] for c in lto["components"]}
    for kernel in ("kernel conv2d_s8", "kernel depthwise_conv2d_m1_s8", "kernel softmax_s8", "runtime core"):
        assert flash.get(kernel, 0) > 0, kernel
    # one "<artificial>" unit holds all the code: without following each function to its
    # source, everything would be "other"
    other = {c["name"]: c["flash"] for c in plain["components"]}["other"]
    assert flash["other"] <= other + 64


def test_the_stack_bound_comes_from_the_links_call_graph_and_covers_the_peak(sizes):
    lto, _ = sizes
    assert list(LTO.glob("firmware-*.ci")), "the LTO link wrote no call-graph dump"
    measured = json.loads((LTO / "report.json").read_text())["stack_peak_bytes"]
    assert lto["stack_bound_bytes"] is not None, lto["stack_bound_unknown_reason"]
    assert measured <= lto["stack_bound_bytes"] < 32768
    assert not [name for name in lto["stack_bound_no_call_graph"] if name.startswith("em_")]
