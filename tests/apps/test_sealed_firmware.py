"""Who verifies what (runtime/README.md): app firmware is sealed to the program the build verified
on the host, and `verify=1` firmware verifies its program on the device. On the anomaly app for
the M55 (QEMU):
- the sealed image links no verifier (no em_program_load, no checked reader, no op's check()),
  and a flipped byte anywhere in its linked program makes start-up refuse with
  EM_ERR_PROGRAM_CORRUPT before anything runs;
- the verify=1 image, its linked program replaced by each malformed program of the loader tests
  (tests/runtime/test_loader.py MUTATIONS, written for the M55), refuses it with its status."""
from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import pytest
from elftools.elf.constants import SH_FLAGS
from elftools.elf.elffile import ELFFile

from ember_build.board import load_board
from ember_build.paths import BUILD_ROOT
from ember_build.qemu import run_firmware

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO / "tests" / "runtime")]

import programs  # noqa: E402
from test_loader import MUTATIONS  # noqa: E402

pytestmark = pytest.mark.qemu  # builds Arm firmware and runs it in QEMU (tests/tiers.py)

BOARD = load_board("corstone300")
PROGRAM = "em_model_program"  # the generated array (compiler/emit_c.py), its _size and _crc32
VERIFIER_SYMBOLS = ("em_program_load", "em_program_view_open", "em_fb_field_vector", "em_operator_open")


def _build(*args: str) -> Path:
    scons = Path(sys.executable).with_name("scons")
    build = subprocess.run([str(scons), "app=anomaly", "board=corstone300", *args], cwd=REPO,
                           capture_output=True, text=True, timeout=900)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    return BUILD_ROOT / ("corstone300-verify" if args else "corstone300") / "anomaly" / "firmware.elf"


@pytest.fixture(scope="module")
def sealed() -> Path:
    return _build()


@pytest.fixture(scope="module")
def verifying() -> Path:
    return _build("verify=1")


def _symbols(elf: Path) -> dict[str, tuple[int, int]]:
    """name -> (file offset, size) of every defined data or function symbol."""
    with open(elf, "rb") as f:
        image = ELFFile(f)
        sections = [s for s in image.iter_sections()  # loaded bytes only (debug sections start at 0 too)
                    if s["sh_type"] == "SHT_PROGBITS" and s["sh_flags"] & SH_FLAGS.SHF_ALLOC]
        found = {}
        for symbol in image.get_section_by_name(".symtab").iter_symbols():
            address = symbol["st_value"]
            for s in sections:
                if s["sh_addr"] <= address < s["sh_addr"] + s["sh_size"]:
                    found[symbol.name] = (s["sh_offset"] + address - s["sh_addr"], symbol["st_size"])
        return found


def _patched(elf: Path, out: Path, changes: dict[str, tuple[int, bytes]]) -> Path:
    """A copy of `elf` with bytes written into symbols: name -> (offset in the symbol, bytes)."""
    symbols = _symbols(elf)
    image = bytearray(elf.read_bytes())
    for name, (offset, data) in changes.items():
        at, size = symbols[name]
        assert offset + len(data) <= size, (name, offset, len(data), size)
        image[at + offset:at + offset + len(data)] = data
    out.write_bytes(bytes(image))
    return out


def _console(elf: Path) -> tuple[int | None, str]:
    run = run_firmware(BOARD, elf, timeout_s=60)
    return run.exit_code, run.console_text


def test_sealed_firmware_links_no_verifier(sealed, verifying):
    sealed_symbols, verifying_symbols = _symbols(sealed), _symbols(verifying)
    assert "em_program_open_sealed" in sealed_symbols
    assert not [s for s in VERIFIER_SYMBOLS if s in sealed_symbols]
    assert not [s for s in sealed_symbols if s.endswith("_check") or s.endswith("_paths_ok")]
    assert all(s in verifying_symbols for s in VERIFIER_SYMBOLS)  # the names above are the verifier's


@pytest.mark.parametrize("where", ["identifier", "root", "middle", "last"])
def test_a_flipped_byte_of_the_linked_program_stops_start_up(sealed, tmp_path, where):
    size = _symbols(sealed)[PROGRAM][1]
    offset = {"identifier": 4, "root": 0, "middle": size // 2, "last": size - 1}[where]
    at, _ = _symbols(sealed)[PROGRAM]
    flipped = bytes([sealed.read_bytes()[at + offset] ^ 0x10])
    code, console = _console(_patched(sealed, tmp_path / "firmware.elf", {PROGRAM: (offset, flipped)}))
    assert "EM error load EM_ERR_PROGRAM_CORRUPT" in console, console[-2000:]
    assert "EM vector" not in console and code == 16, (code, console[-2000:])


def test_the_sealed_firmware_runs_its_own_program(sealed):
    code, console = _console(sealed)
    assert code == 0 and "EM done" in console, console[-2000:]


@pytest.mark.parametrize("name", sorted(set(MUTATIONS) - {"tier_mve"}))  # tier_mve is the M55's own tier
def test_verify_firmware_refuses_each_malformed_program(verifying, tmp_path, name):
    mutate, status = MUTATIONS[name]
    spec, _ = programs.fc_program()
    spec = spec.copy()
    spec.tier = 2  # the M55's (Tier.MVE): the mutation is then the only thing wrong
    mutate(spec)
    data = programs.build(spec)
    elf = _patched(verifying, tmp_path / "firmware.elf",
                   {PROGRAM: (0, data), f"{PROGRAM}_size": (0, struct.pack("<I", len(data)))})
    code, console = _console(elf)
    assert f"EM error load {status}" in console, console[-2000:]
    assert "EM vector" not in console and code != 0, (code, console[-2000:])
