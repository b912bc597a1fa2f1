"""Selective build: firmware links the op adapters and kernels its generated registry names, and
no others. The anomaly firmware is relinked with a registry of fully_connected alone: the
quantize / dequantize adapters and kernels must then vanish from the image."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from compiler.emit_c import registry_c
from compiler.ops import OP_TABLE
from ember_build.board import load_board
from ember_build.toolchain import firmware_cflags, firmware_ldflags
from ember_build.paths import BUILD_ROOT

pytestmark = pytest.mark.qemu  # builds Arm firmware / runs it in QEMU (tests/tiers.py)

REPO = Path(__file__).resolve().parents[2]
BUILD = BUILD_ROOT / "corstone300"
DROPPED = ["em_op_quantize", "em_quantize_f32_s8", "em_op_dequantize", "em_dequantize_s8_f32"]
KEPT = ["em_op_fully_connected", "em_fully_connected_s8", "em_program_open_sealed", "em_program_invoke"]  # sealed


def _symbols(elf: Path) -> set[str]:
    out = subprocess.run(["arm-none-eabi-nm", str(elf)], capture_output=True, text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


@pytest.fixture(scope="module")
def anomaly_firmware() -> Path:
    scons = Path(sys.executable).with_name("scons")
    build = subprocess.run([str(scons), "app=anomaly", "board=corstone300"], cwd=REPO,
                           capture_output=True, text=True, timeout=900)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    return BUILD / "anomaly" / "firmware.elf"


def test_the_apps_registry_links_exactly_its_ops(anomaly_firmware):
    symbols = _symbols(anomaly_firmware)
    assert all(name in symbols for name in DROPPED + KEPT)


def test_a_registry_without_an_op_links_none_of_its_code(anomaly_firmware, tmp_path):
    board = load_board("corstone300")
    registry = tmp_path / "em_registry.c"
    registry.write_text(registry_c([OP_TABLE["fully_connected"]]))
    registry_object = tmp_path / "em_registry.o"
    subprocess.run([board.cc, *firmware_cflags(board), f"-I{REPO / 'runtime/include'}",
                    f"-I{BUILD / 'schema'}", f"-I{REPO / 'runtime/kernels/include'}", "-c", str(registry), "-o", str(registry_object)],
                   check=True)
    app_objects = [p for p in (BUILD / "anomaly" / "obj").rglob("*.o") if p.name != "em_registry.o"]
    # the objects SConstruct builds for this board: its board.yaml sources and bsp/common
    bsp_sources = [(board.directory / s).resolve() for s in board.sources] + sorted((REPO / "bsp/common").glob("*.c"))
    bsp_objects = [BUILD / "bsp" / p.relative_to(REPO).with_suffix(".o") for p in bsp_sources]
    elf = tmp_path / "firmware.elf"
    subprocess.run([board.cc, *board.cflags, *firmware_ldflags(board), *map(str, app_objects + bsp_objects),
                    str(registry_object), str(BUILD / "runtime-sealed" / "libember-sealed.a"), "-lm", "-o", str(elf)], check=True)
    symbols = _symbols(elf)
    assert all(name in symbols for name in KEPT)
    assert not [name for name in DROPPED if name in symbols]
