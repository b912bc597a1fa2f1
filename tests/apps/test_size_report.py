"""The size report of the anomaly firmware: every flash byte attributed, the selected kernels
named, the chart written."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ember_build.elf_check import flash_bytes
from ember_build.size_report import component_of

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "build" / "corstone300" / "anomaly"


@pytest.fixture(scope="module")
def size() -> dict:
    scons = Path(sys.executable).with_name("scons")
    build = subprocess.run([str(scons), "app=anomaly", "board=corstone300"], cwd=REPO,
                           capture_output=True, text=True, timeout=900)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    return json.loads((OUT / "size.json").read_text())


def test_components_account_for_every_flash_byte(size):
    assert size["flash_total"] == flash_bytes(OUT / "firmware.elf")
    assert sum(c["flash"] for c in size["components"]) == size["flash_total"]
    assert size["code_flash"] + size["constants_flash"] + _component(size, "app test data")["flash"] == size["flash_total"]


def test_the_programs_ops_and_kernels_are_components(size):
    names = {c["name"] for c in size["components"]}
    for op, kernel in (("fully_connected", "fully_connected_s8"), ("quantize", "quantize_f32_s8"),
                       ("dequantize", "dequantize_s8_f32")):
        assert f"op {op}" in names and f"kernel {kernel}" in names
    assert size["runtime_core_flash"] > 1000 and _component(size, "bsp")["flash"] > 0
    assert _component(size, "libc/libgcc")["flash"] > 0  # memcpy / memset
    program = (OUT / "gen" / "program.embr").stat().st_size
    assert program <= size["constants_flash"] <= program + 16


def test_ram_holds_the_planned_arena_and_the_stack(size):
    compiled = json.loads((OUT / "gen" / "compile.json").read_text())
    assert size["arena_ram"] == compiled["arena_bytes"]
    assert size["stack_ram"] == 32768  # bsp/corstone300/board.yaml stack_bytes


def test_markdown_and_chart_are_written(size):
    text = (OUT / "size.md").read_text()
    assert "| runtime core |" in text and "size.png" in text
    assert (OUT / "size.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_component_rules():
    assert component_of("runtime/kernels/em_fully_connected_s8.c") == "kernel fully_connected_s8"
    assert component_of("runtime/ops/em_op_quantize.c") == "op quantize"
    assert component_of("build/corstone300/anomaly/gen/em_registry.c") == "runtime core"
    assert component_of("bsp/common/em_print.c") == "bsp"
    assert component_of("../newlib/libc/string/memset.c") == "libc/libgcc"


def _component(size: dict, name: str) -> dict:
    return next(c for c in size["components"] if c["name"] == name)
