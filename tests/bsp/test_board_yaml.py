"""board.yaml loading and validation (site_scons/ember_build/board.py)."""

from __future__ import annotations

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


def test_unknown_board_lists_known_ones():
    with pytest.raises(UnknownBoardError) as error:
        load_board("no_such_board")
    assert "corstone300" in str(error.value) and "host" in str(error.value)


def write_variant(tmp_path: Path, change) -> Path:
    """Copies corstone300 to tmp_path/corstone300 with board.yaml changed by `change(data)`."""
    source = BSP_ROOT / "corstone300"
    target = tmp_path / "corstone300"
    target.mkdir()
    for f in source.iterdir():
        if f.is_file():
            (target / f.name).write_bytes(f.read_bytes())
    data = yaml.safe_load((source / "board.yaml").read_text())
    change(data)
    (target / "board.yaml").write_text(yaml.safe_dump(data))
    return tmp_path


@pytest.mark.parametrize("change, field", [
    (lambda d: d.update(tier="neon"), "tier"),
    (lambda d: d.pop("cpu"), "cpu"),
    (lambda d: d.update(clock_hz="fast"), "clock_hz"),
    (lambda d: d.update(linker_script="missing.ld"), "linker_script"),
    (lambda d: d["memory"][0].update(access="x"), "memory.itcm.access"),
    (lambda d: d["memory"][1].update(base=0x10), "memory"),  # overlaps itcm
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
    assert f"'{field}" in message, message


def test_board_is_frozen():
    board = load_board("corstone300")
    with pytest.raises(Exception):
        board.tier = "scalar"
    with pytest.raises(TypeError):
        board.placement["text"] = "dtcm"
