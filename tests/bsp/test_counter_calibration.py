"""Counter calibration (shared/MEASURING.md step 4), proven on every test run.

The calibration firmware (bsp/corstone300/calibrate/calibrate.c) times assembly functions of
known length: a bare return (1 instruction) and a loop of n iterations (2n + 1 instructions),
with the counter's own overhead subtracted. Counts must be exact, including across SysTick
wraps (every 2^24 ticks = 4,096,000 instructions at 4.096 ticks per instruction), and two runs
must print identical output.
"""

from __future__ import annotations

import re

import pytest

from bsp_test_support import CALIBRATE_SOURCE, QEMU_TIMEOUT_S
from ember_build.qemu import run_firmware

WRAP_INSTRUCTIONS = 2**24 / 4.096  # ~4.1 M

# Small ones, one just below and just above half a period, and several spanning 1, 4 and 24 wraps.
ITERATIONS = [1, 2, 3, 10, 1000, 100_000, 2_047_999, 2_048_001, 3_000_000, 10_000_000, 50_000_000]


def parse_calibration(text: str) -> dict[str, int]:
    line = next(l for l in text.splitlines() if l.startswith("calib overhead="))
    return {key: int(value) for key, value in re.findall(r"(\w+)=(\d+)", line)}


@pytest.fixture(scope="module")
def calibrate_elf(corstone300, build):
    return build(corstone300, CALIBRATE_SOURCE)


@pytest.fixture(scope="module")
def calibration_run(corstone300, calibrate_elf):
    result = run_firmware(corstone300, calibrate_elf, " ".join(map(str, ITERATIONS)), timeout_s=QEMU_TIMEOUT_S)
    assert not result.timed_out and result.exit_code == 0, result
    return result


def test_iterations_span_several_wraps():
    assert max(2 * n + 1 for n in ITERATIONS) > 20 * WRAP_INSTRUCTIONS


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


def test_two_runs_print_identical_counts(corstone300, calibrate_elf, calibration_run):
    again = run_firmware(corstone300, calibrate_elf, " ".join(map(str, ITERATIONS)), timeout_s=QEMU_TIMEOUT_S)
    assert again.exit_code == 0
    assert again.console_text == calibration_run.console_text


@pytest.mark.parametrize("period_bits, optimization", [(24, "-O2"), (12, "-O2"), (12, "-Os"), (12, "-O3")])
def test_reads_are_exact_at_every_wrap_phase(corstone300, build, period_bits, optimization):
    """Back-to-back short measurements over many wraps. With a 12-bit test period SysTick wraps
    every ~1000 instructions, so wraps land inside em_bsp_counter_read at every phase. The
    counter's overhead is measured at boot, so counts stay exact whatever the optimisation."""
    elf = build(corstone300, CALIBRATE_SOURCE, [f"-DEM_BSP_SYSTICK_PERIOD_BITS={period_bits}"],
                tag=f"_period{period_bits}", optimization=optimization)
    result = run_firmware(corstone300, elf, "sweep", timeout_s=QEMU_TIMEOUT_S)
    assert result.exit_code == 0, result
    match = re.search(r"calib sweep measurements=(\d+) instructions=(\d+) mismatches=(\d+)", result.console_text)
    assert match, result.console_text
    measurements, instructions, mismatches = map(int, match.groups())
    wraps = instructions * 4.096 / 2**period_bits
    assert wraps > 10
    assert mismatches == 0
