"""The real boards (board.yaml with a cross compiler and no emulator: ra8d1, alif_e8) are
built, not run: their anomaly firmware must build (elf, hex, bin), put every section in the
memory board.yaml says, boot from the vendor's boot address, compile the kernels for the MVE
tier, and contain no semihosting call (on silicon without a debugger `bkpt 0xab` faults).

The first run compiles the model for each board (about a minute); later runs find SCons's
outputs up to date and take a few seconds."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from elftools.elf.constants import SH_FLAGS
from elftools.elf.elffile import ELFFile

from bsp_test_support import REPO_ROOT
from ember_build.board import known_boards, load_board
from ember_build.toolchain import firmware_cflags
from ember_build.paths import BUILD_ROOT

SCONS = Path(sys.executable).with_name("scons")
SILICON_BOARDS = ["ra8d1", "alif_e8"]
# The vendors' boot address: where the vector table must sit.
BOOT_ADDRESS = {"ra8d1": 0x0200_0000, "alif_e8": 0x8020_0000}


def test_real_boards_are_the_cross_boards_without_emulator():
    real = [n for n in known_boards() if load_board(n).emulator is None and load_board(n).cc != "gcc"]
    assert sorted(real) == sorted(SILICON_BOARDS)


@pytest.mark.parametrize("name, cpu, console", [("ra8d1", "cortex-m85", "sci_b_uart"),
                                                ("alif_e8", "cortex-m55", "dw_apb_uart")])
def test_facts(name, cpu, console):
    board = load_board(name)
    assert (board.cpu, board.tier, board.console.kind) == (cpu, "mve", console)
    assert (board.counter.kind, board.counter.unit) == ("dwt", "cycles")
    assert board.bin and board.emulator is None
    assert board.defines["EM_BSP_CONSOLE_BASE"] == f"0x{board.console.base:08X}u"
    # The compiler's target accepts the board's CPU at the board's tier.
    from compiler.target import Target

    assert Target(board.cpu).tier == board.tier == Target(board.cpu, board.tier).tier


def _compiler(board):
    if shutil.which(board.cc) is None:
        pytest.skip(f"{board.cc} is not installed")


@pytest.mark.qemu
@pytest.mark.parametrize("name", SILICON_BOARDS)
def test_kernels_compile_for_the_mve_tier(name, tmp_path):
    """em_nn_tier.h, with the board's flags, picks MVE with floating point."""
    board = load_board(name)
    _compiler(board)
    source = tmp_path / "tier.c"
    source.write_text('#include "em_nn_tier.h"\n'
                      '_Static_assert(EM_NN_TIER_MVE == 1 && EM_NN_TIER == 2, "not the MVE tier");\n'
                      '_Static_assert(EM_NN_MVE_FLOAT == 1, "no floating-point Helium");\n')
    subprocess.run([board.cc, *firmware_cflags(board), f"-I{REPO_ROOT / 'runtime/kernels/include'}",
                    "-c", str(source), "-o", str(tmp_path / "tier.o")], check=True)


@pytest.fixture(scope="module", params=SILICON_BOARDS)
def firmware(request):
    """(board, build folder) after `scons app=anomaly board=<name>`."""
    board = load_board(request.param)
    _compiler(board)
    run = subprocess.run([str(SCONS), "app=anomaly", f"board={board.name}"], cwd=REPO_ROOT,
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return board, BUILD_ROOT / board.name / "anomaly"


def _region_of(board, address: int, size: int):
    for region in board.memory:
        if region.base <= address and address + size <= region.end:
            return region.name
    return None


def test_images_are_built(firmware):
    board, out = firmware
    for name in ("firmware.elf", "firmware.hex", "firmware.bin"):
        assert (out / name).stat().st_size > 0, name


def test_sections_land_in_the_boards_memories(firmware):
    board, out = firmware
    placement = board.placement
    where = {"text": [".vectors", ".text"], "rodata": [".rodata"], "program": [".em_program"],
             "data": [".data"], "bss": [".bss"], "stack": [".stack"]}
    with open(out / "firmware.elf", "rb") as f:
        elf = ELFFile(f)
        sections = {s.name: s for s in elf.iter_sections() if s["sh_flags"] & SH_FLAGS.SHF_ALLOC}
        for kind, names in where.items():
            for name in names:
                s = sections[name]
                assert _region_of(board, s["sh_addr"], s["sh_size"]) == placement[kind], (name, kind)
        # Every allocated section lies inside a declared region; arenas in their own region.
        for name, s in sections.items():
            region = _region_of(board, s["sh_addr"], s["sh_size"])
            assert region is not None, name
            if name.startswith(".em_arena."):
                assert region == name[len(".em_arena."):] and board.region(region).arena
        # Writable data in RAM, code and constants in read-only (flash / MRAM) memory.
        for name in (".data", ".bss", ".stack"):
            assert "w" in board.region(_region_of(board, sections[name]["sh_addr"], 0)).access
        for name in (".vectors", ".text", ".rodata", ".em_program"):
            assert "w" not in board.region(_region_of(board, sections[name]["sh_addr"], 0)).access
        # .data's load image sits in the code region, inside the loadable image.
        data_load = [seg for seg in elf.iter_segments()
                     if seg["p_type"] == "PT_LOAD" and seg["p_filesz"]
                     and seg["p_vaddr"] == sections[".data"]["sh_addr"]]
        for seg in data_load:
            assert _region_of(board, seg["p_paddr"], seg["p_filesz"]) == placement["text"]


def test_vector_table_at_the_boot_address(firmware):
    board, out = firmware
    image = (out / "firmware.bin").read_bytes()
    with open(out / "firmware.elf", "rb") as f:
        elf = ELFFile(f)
        vectors = elf.get_section_by_name(".vectors")
        assert vectors["sh_addr"] == BOOT_ADDRESS[board.name] == board.region(board.placement["text"]).base
        symbols = elf.get_section_by_name(".symtab")
        reset = symbols.get_symbol_by_name("Reset_Handler")[0]["st_value"]
        stack_top = symbols.get_symbol_by_name("__em_stack_top")[0]["st_value"]
        # The .bin is the loadable image from the boot address on: as long as the span of the
        # loaded segments (no padding between regions), starting with SP and the reset vector.
        loads = [seg for seg in elf.iter_segments() if seg["p_type"] == "PT_LOAD" and seg["p_filesz"]]
        span = max(s["p_paddr"] + s["p_filesz"] for s in loads) - min(s["p_paddr"] for s in loads)
    assert len(image) == span
    initial_sp, reset_vector = int.from_bytes(image[0:4], "little"), int.from_bytes(image[4:8], "little")
    assert initial_sp == stack_top and _region_of(board, initial_sp - 8, 8) == board.placement["stack"]
    assert reset_vector == reset | 1  # Thumb


def test_no_semihosting_call_is_linked(firmware):
    """No `bkpt 0xab` anywhere (the console, exit and fault paths included), and none of
    bsp/cortex_m/semihosting.c linked."""
    board, out = firmware
    objdump = board.cc.replace("gcc", "objdump")
    listing = subprocess.run([objdump, "-d", str(out / "firmware.elf")], capture_output=True,
                             text=True, check=True).stdout
    breakpoints = re.findall(r"\bbkpt\s+(0x[0-9a-f]+)", listing)
    assert "0x00ab" not in breakpoints and set(breakpoints) <= {"0x0000"}
    with open(out / "firmware.elf", "rb") as f:
        names = {s.name for s in ELFFile(f).get_section_by_name(".symtab").iter_symbols()}
    assert "semihost_call" not in names
    assert {"em_bsp_exit", "em_bsp_console_write", "em_bsp_counter_read"} <= names


@pytest.mark.slow  # an SCons build on the host (tests/tiers.py)
def test_run_is_refused_for_a_real_board():
    run = subprocess.run([str(SCONS), "app=anomaly", "board=ra8d1", "run=1", "-n"], cwd=REPO_ROOT,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode != 0 and "real board" in run.stdout
