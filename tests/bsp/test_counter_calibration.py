"""Counter calibration (shared/MEASURING.md step 4), proven on every test run, on every QEMU board.

The calibration firmware (bsp/cortex_m/calibrate/calibrate.c) times assembly functions of
known length: a bare return (1 instruction) and a loop of n iterations (2n + 1 instructions),
with the counter's own overhead subtracted. Counts must be exact, including across SysTick
wraps (every 2^24 ticks: 4,096,000 instructions at 4.096 ticks per instruction on corstone300,
5,242,880 at 3.2 on mps2_an385/an386, 6,553,600 at 2.56 on mps2_an505), and two runs must print
identical output.
"""

from __future__ import annotations

import math
import re

import pytest

from bsp_test_support import CALIBRATE_SOURCE, QEMU_TIMEOUT_S
from ember_build.qemu import run_firmware

pytestmark = pytest.mark.qemu  # builds Arm firmware / runs it in QEMU (tests/tiers.py)

# Small ones; pairs whose 2n + 1 lies one instruction either side of a whole SysTick period on
# each ratio (4.096, 3.2, 2.56 ticks per instruction); several spanning 1, 4 and 20+ wraps.
ITERATIONS = [1, 2, 3, 10, 1000, 100_000,
              2_047_999, 2_048_001, 2_621_439, 2_621_441, 3_276_799, 3_276_801,
              10_000_000, 70_000_000]

# corstone300's 300,000 back-to-back sweep measurements span ~12 wraps at 4.096 ticks per
# instruction; boards with fewer ticks per instruction get proportionally more measurements.
SWEEP_MEASUREMENTS_AT_4096 = 300_000


def wrap_instructions(board) -> float:
    return 2**24 / board.counter.ticks_per_instruction


def parse_calibration(text: str) -> dict[str, int]:
    line = next(l for l in text.splitlines() if l.startswith("calib overhead="))
    return {key: int(value) for key, value in re.findall(r"(\w+)=(\d+)", line)}


@pytest.fixture(scope="module")
def calibrate_elf(qemu_board, build):
    return build(qemu_board, CALIBRATE_SOURCE)


@pytest.fixture(scope="module")
def calibration_run(qemu_board, calibrate_elf):
    result = run_firmware(qemu_board, calibrate_elf, " ".join(map(str, ITERATIONS)), timeout_s=QEMU_TIMEOUT_S)
    assert not result.timed_out and result.exit_code == 0, result
    return result


def test_iterations_span_several_wraps(qemu_board):
    assert max(2 * n + 1 for n in ITERATIONS) > 20 * wrap_instructions(qemu_board)
    # some 2n + 1 lands within one instruction of a whole period on this board
    period = wrap_instructions(qemu_board)
    assert any(abs(2 * n + 1 - period) <= 2 for n in ITERATIONS)


def test_unit_is_qemu_instructions(calibration_run):
    assert "calib unit=instructions (QEMU)" in calibration_run.console_text


def test_bare_return_counts_one_instruction(calibration_run):
    assert parse_calibration(calibration_run.console_text)["empty"] == 1


@pytest.mark.parametrize("n", ITERATIONS)
def test_loop_counts_exactly_2n_plus_1(calibration_run, n):
    counts = parse_calibration(calibration_run.console_text)
    assert counts[f"loop{n}"] == 2 * n + 1


def test_overhead_is_stable_and_reported(calibration_run):
    counts = parse_calibration(calibration_run.console_text)
    assert counts["overhead"] == counts["overhead_again"]
    assert 0 < counts["overhead"] < 100


def test_two_runs_print_identical_counts(qemu_board, calibrate_elf, calibration_run):
    again = run_firmware(qemu_board, calibrate_elf, " ".join(map(str, ITERATIONS)), timeout_s=QEMU_TIMEOUT_S)
    assert again.exit_code == 0
    assert again.console_text == calibration_run.console_text


@pytest.mark.parametrize("period_bits, optimization", [(24, "-O2"), (12, "-O2"), (12, "-Os"), (12, "-O3")])
def test_reads_are_exact_at_every_wrap_phase(qemu_board, build, period_bits, optimization):
    """Back-to-back short measurements over many wraps. With a 12-bit test period SysTick wraps
    every ~1000-1600 instructions, so wraps land inside em_bsp_counter_read at every phase. The
    counter's overhead is measured at boot, so counts stay exact whatever the optimisation."""
    elf = build(qemu_board, CALIBRATE_SOURCE, [f"-DEM_BSP_SYSTICK_PERIOD_BITS={period_bits}"],
                tag=f"_period{period_bits}", optimization=optimization)
    ticks_per_instruction = qemu_board.counter.ticks_per_instruction
    measurements = math.ceil(SWEEP_MEASUREMENTS_AT_4096 * 4.096 / ticks_per_instruction)
    result = run_firmware(qemu_board, elf, f"sweep {measurements}", timeout_s=QEMU_TIMEOUT_S)
    assert result.exit_code == 0, result
    match = re.search(r"calib sweep measurements=(\d+) instructions=(\d+) mismatches=(\d+)", result.console_text)
    assert match, result.console_text
    done, instructions, mismatches = map(int, match.groups())
    assert done == measurements
    wraps = instructions * ticks_per_instruction / 2**period_bits
    assert wraps > 10
    assert mismatches == 0
