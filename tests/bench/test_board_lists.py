"""The board lists of the benchmark, the conformance suite and the bench tools are read from
bsp/, not typed: they equal what the boards' board.yaml files say."""
from __future__ import annotations

from pathlib import Path

import yaml

from compiler.target import CPUS
from ember_build import bench
from ember_build.board import boards, emulated_boards, known_boards, load_board, one_board_per_tier

BSP = Path(__file__).resolve().parents[2] / "bsp"


def _yaml(name: str) -> dict:
    return yaml.safe_load((BSP / name / "board.yaml").read_text())


def _qemu_boards_in_the_folder() -> set[str]:
    return {p.parent.name for p in BSP.glob("*/board.yaml") if _yaml(p.parent.name)["emulator"]}


def test_every_boards_tier_is_its_cpus():
    for board in boards():
        assert "tier" not in _yaml(board.name), board.name  # typed once: the CPU's
        assert board.tier == board.best_tier == CPUS[_yaml(board.name)["cpu"]].best_tier
    assert {b.name for b in boards()} == set(known_boards())


def test_the_bench_runs_every_qemu_board_best_tier_first():
    assert set(bench.BOARDS) == _qemu_boards_in_the_folder()
    numbers = [load_board(name).tier.number for name in bench.BOARDS]
    assert numbers == sorted(numbers, reverse=True)
    assert bench.BOARDS == ("corstone300", "mps2_an386", "mps2_an505", "mps2_an385")  # kernels.md's order


def test_one_board_per_tier_is_the_first_qemu_board_of_each():
    chosen = one_board_per_tier()
    assert [b.tier for b in chosen] == ["mve", "dsp", "scalar"]
    assert all(b.name == next(e.name for e in emulated_boards() if e.tier == b.tier) for b in chosen)


def test_the_conformance_suite_runs_the_host_and_every_qemu_board():
    from tests.kernels.conformance import DEVICES

    own = {d.board for d in DEVICES if d.name == d.board and not d.tier and not d.opt}
    assert own == _qemu_boards_in_the_folder() | {"host"}


def test_the_bench_tools_tables_come_from_the_folder():
    from tools import bench_float

    assert bench_float.TARGETS == {b.name: b.cpu for b in one_board_per_tier()}
    assert set(bench_float.TARGETS) <= _qemu_boards_in_the_folder()
