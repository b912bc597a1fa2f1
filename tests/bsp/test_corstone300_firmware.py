"""Corstone-300 BSP behaviour in QEMU: exit status, faults, timeouts, host files, arguments,
memory placement and the no-heap rule."""

from __future__ import annotations

import re
import subprocess
import time

import pytest

from bsp_test_support import FIRMWARE_DIR, QEMU_TIMEOUT_S
from ember_build.qemu import run_firmware
from ember_build.toolchain import BuildError, compile_firmware

FAULT_EXIT_STATUS = 134


def test_exit_status_reaches_qemu(corstone300, build):
    result = run_firmware(corstone300, build(corstone300, "exit_status.c"), timeout_s=QEMU_TIMEOUT_S)
    assert (result.timed_out, result.exit_code) == (False, 3)


CFSR_UNDEFINSTR = 1 << 16
CFSR_STKOF = 1 << 20
CFSR_PRECISERR = 1 << 9


@pytest.mark.parametrize("kind, cfsr_bit", [("udf", CFSR_UNDEFINSTR), ("bus", CFSR_PRECISERR), ("stack", CFSR_STKOF)])
def test_fault_reports_and_exits_nonzero_promptly(corstone300, build, kind, cfsr_bit):
    """An undefined instruction, a read of unmapped memory and a stack overflow caught by
    MSPLIM all escalate to HardFault (exception 3, the configurable faults are not enabled):
    the handler prints one line naming the cause and exits with 134 instead of hanging."""
    start = time.monotonic()
    result = run_firmware(corstone300, build(corstone300, "fault.c"), kind, timeout_s=10)
    assert time.monotonic() - start < 5
    assert not result.timed_out
    assert result.exit_code == FAULT_EXIT_STATUS
    match = re.search(r"EM FAULT exc=([0-9a-f]{8}) pc=([0-9a-f]{8}) cfsr=([0-9a-f]{8})", result.console_text)
    assert match, result.console_text
    exception, pc, cfsr = (int(g, 16) for g in match.groups())
    assert exception == 3
    assert cfsr & cfsr_bit, result.console_text
    if kind != "stack":  # after an overflow the frame is not trusted, pc is reported as ffffffff
        assert pc < corstone300.region("itcm").end


def test_hung_firmware_is_killed_at_the_timeout(corstone300, build):
    start = time.monotonic()
    result = run_firmware(corstone300, build(corstone300, "hang.c"), timeout_s=2)
    assert result.timed_out and result.exit_code is None
    assert time.monotonic() - start < 10


def test_host_files_and_arguments(corstone300, build, tmp_path):
    payload = bytes(range(256)) * 3 + b"tail"
    (tmp_path / "in.bin").write_bytes(payload)
    result = run_firmware(corstone300, build(corstone300, "io.c"), "in.bin out.bin",
                          timeout_s=QEMU_TIMEOUT_S, cwd=tmp_path)
    assert result.exit_code == 0, result
    lines = result.console_text.splitlines()
    assert lines == ["args=2 in.bin|out.bin|", f"read=0 len={len(payload)}", "small=-2", "missing=-1", "write=0"]
    assert (tmp_path / "out.bin").read_bytes() == payload[::-1]


def test_no_arguments_gives_zero_words(corstone300, build, tmp_path):
    result = run_firmware(corstone300, build(corstone300, "io.c"), "", timeout_s=QEMU_TIMEOUT_S, cwd=tmp_path)
    assert result.console_text.startswith("args=0 ")
    assert result.exit_code == 1


def section_addresses(elf) -> dict[str, tuple[int, int]]:
    """{section: (address, size)} from the ELF's section headers."""
    out = subprocess.run(["arm-none-eabi-objdump", "-h", str(elf)], capture_output=True, text=True, check=True).stdout
    sections = {}
    for m in re.finditer(r"^\s*\d+\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", out, re.M):
        sections[m.group(1)] = (int(m.group(3), 16), int(m.group(2), 16))
    return sections


def test_sections_land_in_their_regions(corstone300, build):
    elf = build(corstone300, "sections.c")
    result = run_firmware(corstone300, elf, timeout_s=QEMU_TIMEOUT_S)
    assert result.exit_code == 0, "initialised data, rodata or an arena did not read back"
    sections = section_addresses(elf)
    expected = {
        ".vectors": corstone300.placement["text"],
        ".text": corstone300.placement["text"],
        ".rodata": corstone300.placement["rodata"],
        ".data": corstone300.placement["data"],
        ".bss": corstone300.placement["bss"],
        ".stack": corstone300.placement["stack"],
        ".em_program": corstone300.placement["program"],
        **{f".em_arena.{r.name}": r.name for r in corstone300.arena_regions},
    }
    for section, region_name in expected.items():
        address, size = sections[section]
        region = corstone300.region(region_name)
        assert region.base <= address and address + size <= region.end, (section, region_name)
        assert size > 0, section
    assert sections[".em_program"][0] % 16 == 0
    assert sections[".vectors"][0] == 0, "QEMU's AN547 boots with VTOR = 0"


def test_linker_script_regions_match_board_yaml(corstone300):
    script = (corstone300.directory / corstone300.linker_script).read_text()
    memory = dict(
        (name.lower(), (int(origin, 16), int(length, 16)))
        for name, origin, length in re.findall(
            r"^\s*(\w+)\s*\([rwx]+\)\s*:\s*ORIGIN\s*=\s*(0x[0-9A-Fa-f]+),\s*LENGTH\s*=\s*(0x[0-9A-Fa-f]+)", script, re.M)
    )
    assert memory == {r.name: (r.base, r.size) for r in corstone300.memory}
    for region in corstone300.arena_regions:
        assert f".em_arena.{region.name} (NOLOAD)" in script


def test_malloc_does_not_link(corstone300, tmp_path):
    with pytest.raises(BuildError, match="sbrk|undefined reference"):
        compile_firmware(corstone300, [FIRMWARE_DIR / "uses_malloc.c"], [], tmp_path / "malloc.elf")


def test_bsp_alone_is_small_and_pulls_in_no_stdio(corstone300, build):
    elf = build(corstone300, "exit_status.c")
    symbols = subprocess.run(["arm-none-eabi-nm", str(elf)], capture_output=True, text=True, check=True).stdout
    for forbidden in ("malloc", "printf", "_sbrk", "__sinit"):
        assert not re.search(rf"\s{forbidden}$", symbols, re.M), forbidden
    sections = section_addresses(elf)
    flash = sum(sections[s][1] for s in (".vectors", ".text", ".rodata", ".data") if s in sections)
    assert flash < 4096, f"BSP flash footprint grew to {flash} bytes"
