"""board.yaml loading and validation (site_scons/ember_build/board.py)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from bsp_test_support import REPO_ROOT
from ember_build.board import BoardError, UnknownBoardError, known_boards, load_board

BSP_ROOT = REPO_ROOT / "bsp"


def test_known_boards_load():
    for name in known_boards():
        board = load_board(name)
        assert board.name == name


def test_corstone300_facts():
    board = load_board("corstone300")
    assert (board.cpu, board.tier, board.clock_hz) == ("cortex-m55", "mve", 32_000_000)
    assert board.counter.ticks_per_instruction == pytest.approx(4.096)
    assert board.defines["EM_BSP_COUNTER_MUL"] == "125u" and board.defines["EM_BSP_COUNTER_SHIFT"] == "9"
    assert [r.name for r in board.arena_regions][0] == "dtcm"  # fastest first
    assert board.region("itcm").base == 0 and board.region("dtcm").base == 0x2000_0000


# name: (cpu, tier, clock_hz, ticks per instruction, (EM_BSP_COUNTER_MUL, _SHIFT), UART0 base)
MPS2_FACTS = {
    "mps2_an385": ("cortex-m3", "scalar", 25_000_000, 3.2, ("5u", "4"), 0x4000_4000),
    "mps2_an386": ("cortex-m4", "dsp", 25_000_000, 3.2, ("5u", "4"), 0x4000_4000),
    "mps2_an505": ("cortex-m33", "dsp", 20_000_000, 2.56, ("25u", "6"), 0x5020_0000),
}


@pytest.mark.parametrize("name", sorted(MPS2_FACTS))
def test_mps2_facts(name):
    board = load_board(name)
    cpu, tier, clock, ticks, (mul, shift), uart = MPS2_FACTS[name]
    assert (board.cpu, board.tier, board.clock_hz) == (cpu, tier, clock)
    assert board.counter.ticks_per_instruction == pytest.approx(ticks)
    assert (board.defines["EM_BSP_COUNTER_MUL"], board.defines["EM_BSP_COUNTER_SHIFT"]) == (mul, shift)
    assert board.console.base == uart and board.console.clock_hz == clock
    assert f"mps2-{name.split('_')[1]}" in board.emulator


def target_macros(board) -> dict[str, str]:
    out = subprocess.run([board.cc, *board.cflags, "-dM", "-E", "-"], input="", capture_output=True,
                         text=True, check=True).stdout
    return dict(line.split(" ", 2)[1:] if line.count(" ") >= 2 else (line.split(" ")[1], "")
                for line in out.splitlines() if line.startswith("#define "))


@pytest.mark.qemu
@pytest.mark.parametrize("name", [n for n in known_boards() if n != "host"])
def test_cflags_give_the_kernels_the_boards_tier(name):
    """runtime/kernels/include/em_nn_tier.h derives the tier from these macros, and the runtime
    refuses a program of another tier: board.yaml's tier and cflags must agree."""
    board = load_board(name)
    if shutil.which(board.cc) is None:
        pytest.skip(f"{board.cc} is not installed")
    macros = target_macros(board)
    has_mve = int(macros.get("__ARM_FEATURE_MVE", "0")) & 1
    has_dsp = macros.get("__ARM_FEATURE_DSP") == "1"
    derived = "mve" if has_mve else "dsp" if has_dsp else "scalar"
    assert derived == board.tier
    hard_float = "-mfloat-abi=hard" in board.cflags
    assert ("__ARM_FP" in macros) == hard_float  # the startup enables the FPU exactly then


def test_unknown_board_lists_known_ones():
    with pytest.raises(UnknownBoardError) as error:
        load_board("no_such_board")
    assert "corstone300" in str(error.value) and "host" in str(error.value)


def write_variant(tmp_path: Path, change) -> Path:
    """Copies corstone300 (and the shared bsp/cortex_m its sources name) to tmp_path with
    board.yaml changed by `change(data)`."""
    source = BSP_ROOT / "corstone300"
    target = tmp_path / "corstone300"
    shutil.copytree(source, target)
    shutil.copytree(BSP_ROOT / "cortex_m", tmp_path / "cortex_m")
    data = yaml.safe_load((source / "board.yaml").read_text())
    change(data)
    (target / "board.yaml").write_text(yaml.safe_dump(data))
    return tmp_path


@pytest.mark.parametrize("change, field", [
    (lambda d: d.update(tier="neon"), "tier"),
    (lambda d: d.update(tier="mve"), "tier"),  # even the right one: the tier is the CPU's, typed once
    (lambda d: d.pop("cpu"), "cpu"),
    (lambda d: d.update(cpu="cortex-m99"), "cpu"),
    (lambda d: d["cflags"].insert(0, "-mcpu=cortex-m55"), "cflags"),  # the CPU's flags are the table's
    (lambda d: d.update(clock_hz="fast"), "clock_hz"),
    (lambda d: d.update(linker_script="missing.ld"), "linker_script"),
    (lambda d: d["memory"][0].update(access="x"), "memory.itcm.access"),
    (lambda d: d["memory"][1].update(base=0x10), "memory.dtcm"),  # overlaps itcm
    (lambda d: d["placement"].update(text="flash"), "placement.text"),
    (lambda d: d["counter"].update(ticks_per_instruction=4.0), "counter.ticks_per_instruction"),
    (lambda d: d.update(emulator=["qemu-system-arm"]), "emulator"),
    (lambda d: d["memory"][4].update(arena=True), "memory.qspi.arena"),  # read-only arena
])
def test_bad_board_yaml_names_file_and_field(tmp_path, change, field):
    root = write_variant(tmp_path, change)
    with pytest.raises(BoardError) as error:
        load_board("corstone300", bsp_root=root)
    message = str(error.value)
    assert str(root / "corstone300" / "board.yaml") in message
    assert f": {field}: " in message, message


def test_board_is_frozen():
    board = load_board("corstone300")
    with pytest.raises(Exception):
        board.tier = "scalar"
    with pytest.raises(TypeError):
        board.placement["text"] = "dtcm"
