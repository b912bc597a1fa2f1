"""The kernel conformance suite: every case of tests/kernels/cases/ (one file per op, golden
bytes from compiler/reference.py) unchanged on every device: the host build, each tier's QEMU
board, and corstone300 built without MVE (tier override dsp). One em_run launch per device runs
all cases (`em_run --batch`; more when the manifest outgrows em_run's EM_RUN_MANIFEST_CAPACITY:
conformance.split_manifest); each case is a test of its own, and a failure prints the op, the
case's parameters and the first differing byte.

Each device's batch also holds one program of another tier: the runtime must refuse it with
EM_ERR_WRONG_TIER (the program records its tier; the runtime's comes from em_nn_tier.h)."""
from __future__ import annotations

import re

import pytest

from compiler.target import Target
from compiler.writer import write_program
from conformance import (DEVICES, EXIT_CASES_FAILED, BatchRun, Case, Device, all_cases, describe_failure, other_tier,
                         run_batch)

CASES = all_cases()
WRONG_TIER = "wrong_tier_refused"


def wrong_tier_program(device: Device, case: Case) -> bytes:
    """`case`'s program, recorded for a tier the device's runtime does not run."""
    target = device.target
    return write_program(case.graph, Target("cortex-m55", other_tier(target.tier)))


@pytest.fixture(scope="module", params=DEVICES, ids=lambda d: d.name)
def batch(request, tmp_path_factory) -> tuple[Device, BatchRun]:
    device: Device = request.param
    runner = device.build_runner()
    target = device.target
    programs = [(write_program(c.graph, target), c.input_bytes(), c.expected(), c.tolerance_words()) for c in CASES]
    programs.append((wrong_tier_program(device, CASES[0]), CASES[0].input_bytes(), CASES[0].expected()))
    run = run_batch(device, runner, programs, tmp_path_factory.mktemp(device.name))
    print(f"\n{device.name}: {len(programs)} cases in {len(run.launches)} launch(es), {run.seconds:.1f} s")
    return device, run


@pytest.mark.parametrize("index", range(len(CASES)), ids=[c.id for c in CASES])
def test_case_matches_reference(batch, index):
    device, run = batch
    verdict = run.verdicts[index]
    assert verdict.matched, describe_failure(device, CASES[index], verdict)


def test_program_of_another_tier_is_refused(batch):
    device, run = batch
    verdict = run.verdicts[len(CASES)]
    assert verdict.status == "EM_ERR_WRONG_TIER", (
        f"{device.name}: a program of tier {other_tier(device.target.tier)} gave {verdict.status} {verdict.detail}")


def test_batch_ran_to_the_end(batch):
    """Every case has its verdict, and each launch's exit status says whether all its cases
    matched: the wrong-tier case (the last) always fails, so the last launch exits
    EXIT_CASES_FAILED after counting the failures."""
    device, run = batch
    assert sum(launch.count for launch in run.launches) == len(CASES) + 1
    assert run.failed and run.failed[-1] == len(CASES), run.failed
    for launch in run.launches:
        failed = [i - launch.first for i in run.failed if launch.first <= i < launch.first + launch.count]
        assert re.search(rf"^cases: {launch.count}\r?$", launch.console, re.M), launch.console[-2000:]
        assert launch.exit_code == (EXIT_CASES_FAILED if failed else 0), (failed, launch.exit_code,
                                                                          launch.console[-2000:])
        if failed:
            assert (f"em_run: {len(failed)} of {launch.count} cases failed (the first: case {failed[0]})"
                    in launch.console)


def test_manifests_split_by_capacity(tmp_path):
    """A manifest larger than em_run's capacity runs as several launches (host build), each
    within the capacity, with every verdict where one launch would have put it; a line that
    cannot fit any manifest is refused by name."""
    from conformance import manifest_capacity, split_manifest

    device = DEVICES[0]
    picked = CASES[:7]
    programs = [(write_program(c.graph, device.target), c.input_bytes(), c.expected(), c.tolerance_words())
                for c in picked]
    programs[3] = (programs[3][0], programs[3][1], bytes(len(programs[3][2])) + b"x", [])  # a mismatch
    line = max(len(f"c{i}.embr c{i}.want " + " ".join(f"c{i}.x{k}" for k in range(len(p[1]))) + " f32 ulp=1")
               for i, p in enumerate(programs)) + 1
    split = run_batch(device, device.build_runner(), programs, tmp_path / "split", capacity=2 * line)
    whole = run_batch(device, device.build_runner(), programs, tmp_path / "whole")
    assert len(whole.launches) == 1 and len(split.launches) >= 3, (len(whole.launches), len(split.launches))
    assert all(len((tmp_path / "split" / f"manifest{k}.txt").read_bytes()) <= 2 * line
               for k in range(len(split.launches)))
    assert [v.matched for v in split.verdicts] == [v.matched for v in whole.verdicts] == [i != 3 for i in range(7)]
    assert split.exit_code == whole.exit_code == EXIT_CASES_FAILED
    assert manifest_capacity() >= 32 * 1024
    with pytest.raises(ValueError, match="EM_RUN_MANIFEST_CAPACITY"):
        split_manifest(["x" * 100], 64)


def test_every_op_of_the_runtime_has_cases():
    """An op in the operator table without a cases file fails here: add tests/kernels/cases/<op>.py."""
    from compiler.ops import OP_TABLE

    covered = {c.op for c in CASES}
    assert set(OP_TABLE) <= covered, f"ops without conformance cases: {sorted(set(OP_TABLE) - covered)}"


def test_float_comparison_of_the_runner_can_fail(tmp_path):
    """em_run --batch's float32 comparison (host build): any NaN equals any NaN, ±0 and values one
    ULP apart differ in exact cases, libm cases accept FLOAT_LIBM_ULPS and no more."""
    import numpy as np

    from compiler import reference

    device = DEVICES[0]
    exact = next(c for c in CASES if c.id == "float_binary/div_x_op_x")  # 0/0 -> NaN, x/x -> 1 or NaN
    libm = next(c for c in CASES if c.id == "float_unary/exp_special")
    runner, target = device.build_runner(), device.target

    def variant(case: Case, change) -> tuple:
        want = np.frombuffer(case.expected(), np.float32).copy()
        change(want, want.view(np.int32))
        return write_program(case.graph, target), case.input_bytes(), want.tobytes(), case.tolerance_words()

    big = int(np.flatnonzero(np.isfinite(np.frombuffer(libm.expected(), np.float32))
                             & (np.frombuffer(libm.expected(), np.float32) > 1.0))[0])
    nan = int(np.flatnonzero(np.isnan(np.frombuffer(exact.expected(), np.float32)))[0])
    one = int(np.flatnonzero(np.frombuffer(exact.expected(), np.float32) == 1.0)[0])
    changes = {  # name: (case, change of the expected floats / bits, matches?)
        "other_nan": (exact, lambda f, b: b.__setitem__(nan, b[nan] ^ np.int32(-(2**31)) ^ 1), True),
        "nan_for_number": (exact, lambda f, b: f.__setitem__(one, np.nan), False),
        "one_ulp": (exact, lambda f, b: b.__setitem__(one, b[one] + 1), False),
        "libm_at_limit": (libm, lambda f, b: b.__setitem__(big, b[big] + reference.FLOAT_LIBM_ULPS), True),
        "libm_past_limit": (libm, lambda f, b: b.__setitem__(big, b[big] + reference.FLOAT_LIBM_ULPS + 1), False),
    }
    run = run_batch(device, runner, [variant(case, change) for case, change, _ in changes.values()], tmp_path)
    got = {name: verdict.matched for name, verdict in zip(changes, run.verdicts)}
    assert got == {name: matches for name, (_, _, matches) in changes.items()}, run.console


def test_planned_scratch_reaches_the_kernel(batch):
    """The same conv with and without its planned scratch (cases/in_place.py): Helium packs 4
    columns, DSP pairs of pixels, only with scratch; fewer instructions prove the kernel got it."""
    from cases.in_place import SCRATCH_STRIPPED, SCRATCH_USED

    device, run = batch
    if device.target.tier == "scalar" or device.board == "host":
        pytest.skip("scalar packs one column: no faster path to tell by")
    ids = [c.id for c in CASES]
    used, stripped = (run.verdicts[ids.index(i)] for i in (SCRATCH_USED, SCRATCH_STRIPPED))
    count = {v: int(v.detail.split("=")[-1]) for v in (used, stripped)}
    assert used.matched and stripped.matched and count[used] < count[stripped], (used.detail, stripped.detail)
