"""BSP behaviour in QEMU on every QEMU board (corstone300 and the MPS2 boards): exit status,
faults, timeouts, host files, arguments, memory placement and the no-heap rule."""

from __future__ import annotations

import re
import subprocess
import time

import pytest

from bsp_test_support import FIRMWARE_DIR, QEMU_TIMEOUT_S
from ember_build.qemu import run_firmware
from ember_build.toolchain import BuildError, compile_firmware

pytestmark = pytest.mark.qemu  # builds Arm firmware / runs it in QEMU (tests/tiers.py)

FAULT_EXIT_STATUS = 134


def test_exit_status_reaches_qemu(qemu_board, build):
    result = run_firmware(qemu_board, build(qemu_board, "exit_status.c"), timeout_s=QEMU_TIMEOUT_S)
    assert (result.timed_out, result.exit_code) == (False, 3)


CFSR_UNDEFINSTR = 1 << 16
CFSR_STKOF = 1 << 20
CFSR_PRECISERR = 1 << 9
CFSR_DACCVIOL = 1 << 1
CFSR_MSTKERR = 1 << 4

# Armv7-M CPUs have no MSPLIM: the BSP guards the stack with an MPU region instead.
ARMV7M_CPUS = ("cortex-m3", "cortex-m4", "cortex-m7")

# An address with nothing behind it in QEMU 7.2 (`info mtree`), so a read is a BusFault. On the
# MPS2 AN385/AN386 images 0x0101_0000..0x1FFF_FFFF is an "unimplemented device" (reads as 0).
UNMAPPED_ADDRESS = {
    "corstone300": 0x1FFF_FF00,  # between the ITCM secure alias and DTCM
    "mps2_an385": 0x3FFF_FF00,   # above the bit-band alias, below the peripherals
    "mps2_an386": 0x3FFF_FF00,
    "mps2_an505": 0x1FFF_FF00,   # secure alias of 0x0FFF_FF00, beyond SSRAM1
}


def stack_overflow_cfsr_bits(board) -> int:
    """MSPLIM reports STKOF; the Armv7-M MPU guard reports a data access violation."""
    return CFSR_DACCVIOL if board.cpu in ARMV7M_CPUS else CFSR_STKOF


@pytest.mark.parametrize("kind", ["udf", "bus", "stack"])
def test_fault_reports_and_exits_nonzero_promptly(qemu_board, build, kind):
    """An undefined instruction, a read of unmapped memory and a stack overflow (caught by
    MSPLIM, or the MPU guard on Armv7-M) all escalate to HardFault (exception 3, the
    configurable faults are not enabled): the handler prints one line naming the cause and
    exits with 134 instead of hanging."""
    cfsr_bit = {"udf": CFSR_UNDEFINSTR, "bus": CFSR_PRECISERR, "stack": stack_overflow_cfsr_bits(qemu_board)}[kind]
    elf = build(qemu_board, "fault.c", [f"-DEM_TEST_UNMAPPED_ADDRESS=0x{UNMAPPED_ADDRESS[qemu_board.name]:08X}u"])
    start = time.monotonic()
    result = run_firmware(qemu_board, elf, kind, timeout_s=10)
    assert time.monotonic() - start < 5
    assert not result.timed_out
    assert result.exit_code == FAULT_EXIT_STATUS
    match = re.search(r"EM FAULT exc=([0-9a-f]{8}) pc=([0-9a-f]{8}) cfsr=([0-9a-f]{8})", result.console_text)
    assert match, result.console_text
    exception, pc, cfsr = (int(g, 16) for g in match.groups())
    assert exception == 3
    assert cfsr & cfsr_bit, result.console_text
    if kind != "stack":  # after an overflow the frame is not trusted
        code = qemu_board.region(qemu_board.placement["text"])
        assert code.base <= pc < code.end


def test_hung_firmware_is_killed_at_the_timeout(qemu_board, build):
    start = time.monotonic()
    result = run_firmware(qemu_board, build(qemu_board, "hang.c"), timeout_s=2)
    assert result.timed_out and result.exit_code is None
    assert time.monotonic() - start < 10


def test_host_files_and_arguments(qemu_board, build, tmp_path):
    payload = bytes(range(256)) * 3 + b"tail"
    (tmp_path / "in.bin").write_bytes(payload)
    result = run_firmware(qemu_board, build(qemu_board, "io.c"), "in.bin out.bin",
                          timeout_s=QEMU_TIMEOUT_S, cwd=tmp_path)
    assert result.exit_code == 0, result
    lines = result.console_text.splitlines()
    assert lines == ["args=2 in.bin|out.bin|", f"read=0 len={len(payload)}", "small=-2", "missing=-1", "write=0"]
    assert (tmp_path / "out.bin").read_bytes() == payload[::-1]


def test_no_arguments_gives_zero_words(qemu_board, build, tmp_path):
    result = run_firmware(qemu_board, build(qemu_board, "io.c"), "", timeout_s=QEMU_TIMEOUT_S, cwd=tmp_path)
    assert result.console_text.startswith("args=0 ")
    assert result.exit_code == 1


def section_addresses(elf) -> dict[str, tuple[int, int]]:
    """{section: (address, size)} from the ELF's section headers."""
    out = subprocess.run(["arm-none-eabi-objdump", "-h", str(elf)], capture_output=True, text=True, check=True).stdout
    sections = {}
    for m in re.finditer(r"^\s*\d+\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", out, re.M):
        sections[m.group(1)] = (int(m.group(3), 16), int(m.group(2), 16))
    return sections


def test_sections_land_in_their_regions(qemu_board, build):
    board = qemu_board
    arenas = "".join(f"ARENA({r.name})" for r in board.arena_regions)
    elf = build(board, "sections.c", [f"-DEM_TEST_ARENA_LIST={arenas}"])
    result = run_firmware(board, elf, timeout_s=QEMU_TIMEOUT_S)
    assert result.exit_code == 0, "initialised data, rodata or an arena did not read back"
    sections = section_addresses(elf)
    expected = {
        ".vectors": board.placement["text"],
        ".text": board.placement["text"],
        ".rodata": board.placement["rodata"],
        ".data": board.placement["data"],
        ".bss": board.placement["bss"],
        ".stack": board.placement["stack"],
        ".em_program": board.placement["program"],
        **{f".em_arena.{r.name}": r.name for r in board.arena_regions},
    }
    for section, region_name in expected.items():
        address, size = sections[section]
        region = board.region(region_name)
        assert region.base <= address and address + size <= region.end, (section, region_name)
        assert size > 0, section
    assert sections[".em_program"][0] % 16 == 0
    # QEMU boots from the vector table at the start of the code region (VTOR = 0 on AN547,
    # AN385 and AN386; the Secure VTOR 0x1000_0000 on AN505)
    assert sections[".vectors"][0] == board.region(board.placement["text"]).base
    # the stack is the lowest thing in its region, so that an overflow meets the guard first
    assert sections[".stack"][0] == board.region(board.placement["stack"]).base


def test_stack_lives_in_the_fastest_ram(qemu_board):
    writable = [r for r in qemu_board.memory if "w" in r.access and r.arena]
    fastest = min(r.speed for r in writable)
    assert qemu_board.region(qemu_board.placement["stack"]).speed == fastest


def test_linker_script_regions_match_board_yaml(qemu_board):
    script = (qemu_board.directory / qemu_board.linker_script).read_text()
    memory = dict(
        (name.lower(), (int(origin, 16), int(length, 16)))
        for name, origin, length in re.findall(
            r"^\s*(\w+)\s*\([rwx]+\)\s*:\s*ORIGIN\s*=\s*(0x[0-9A-Fa-f]+),\s*LENGTH\s*=\s*(0x[0-9A-Fa-f]+)", script, re.M)
    )
    assert memory == {r.name: (r.base, r.size) for r in qemu_board.memory}
    for region in qemu_board.arena_regions:
        assert f".em_arena.{region.name} (NOLOAD)" in script


def test_malloc_does_not_link(qemu_board, tmp_path):
    with pytest.raises(BuildError, match="sbrk|undefined reference"):
        compile_firmware(qemu_board, [FIRMWARE_DIR / "uses_malloc.c"], [], tmp_path / "malloc.elf")


def test_bsp_alone_is_small_and_pulls_in_no_stdio(qemu_board, build):
    elf = build(qemu_board, "exit_status.c")
    symbols = subprocess.run(["arm-none-eabi-nm", str(elf)], capture_output=True, text=True, check=True).stdout
    for forbidden in ("malloc", "printf", "_sbrk", "__sinit"):
        assert not re.search(rf"\s{forbidden}$", symbols, re.M), forbidden
    sections = section_addresses(elf)
    flash = sum(sections[s][1] for s in (".vectors", ".text", ".rodata", ".data") if s in sections)
    assert flash < 4096, f"BSP flash footprint grew to {flash} bytes"
