"""Shared test set-up: the repository root, site_scons and tests/runtime (build_host, the shared
host-build helper: any test folder run alone finds it) on sys.path, the test tiers
(tests/tiers.py: qemu, slow and fuzz markers; `./scons test fast=1` runs the host tier), and
the parallel run (`./scons test` hands pytest-xdist one worker per core, a test file per worker
at a time: `--dist loadfile`, scheduled by FileScheduling below): each worker builds into its own
tree, build/workers/<worker>/ (EMBER_BUILD, set before anything reads ember_build.paths), so two
workers' SCons runs never share a build, and the longest files are handed out first, so no worker
is left with one at the end. The files of SPLIT are handed out a device at a time instead: their
devices' builds and runs go to every worker, not one after the other to one."""
from __future__ import annotations

import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for path in (REPO, REPO / "site_scons", REPO / "tests" / "runtime"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))
if "PYTEST_XDIST_WORKER" in os.environ and "EMBER_BUILD" not in os.environ:
    os.environ["EMBER_BUILD"] = str(REPO / "build" / "workers" / os.environ["PYTEST_XDIST_WORKER"])

import compiler  # noqa: E402,F401  (quiets torchao's import-time logging before any test imports it)
import pytest  # noqa: E402

from tests.tiers import HAVE_ARM, TIERS, runs_on_arm  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    for name, meaning in TIERS.items():
        config.addinivalue_line("markers", f"{name}: {meaning}")


# Files of minutes, the longest first (per-file sums of `--durations=0`, a whole run on 2 cores, at
# 22383d5; test_lto's from before): a parallel run starts with them. The conformance suite's
# devices go out one at a time (SPLIT below), so they fill in between the longest.
LONGEST_FIRST = ("tests/zoo/test_zoo.py", "tests/tools/test_ember_link.py", "tests/apps/test_wakeword.py",
                 "tests/apps/test_sealed_firmware.py", "tests/apps/test_lto.py", "tests/kernels/test_conformance.py",
                 "tests/apps/test_anomaly.py", "tests/kernels/test_optimisation_levels.py",
                 "tests/apps/test_stale_builds.py", "tests/compiler/test_attention.py",
                 "tests/zoo/test_architectures.py", "tests/apps/test_person_detect.py",
                 "tests/integration/test_mlperf_tiny.py", "tests/runtime/test_depthwise_tiers.py",
                 "tests/compiler/test_stream_frames.py", "tests/runtime/test_state.py",
                 "tests/bsp/test_counter_calibration.py", "tests/runtime/test_programs_vs_reference.py",
                 "tests/compiler/test_norm.py", "tests/compiler/test_float_graph_passes.py",
                 "tests/runtime/test_lut_programs.py", "tests/kernels/test_kernel_paths.py",
                 "tests/runtime/test_loader.py", "tests/apps/test_person_detect_cascade.py",
                 "tests/integration/test_float_fallback.py", "tests/bsp/test_settings_validation.py",
                 "tests/kernels/test_mel_features_programs.py")


@pytest.hookimpl(tryfirst=True)  # before xdist reads the order
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Marks qemu what runs on an Arm device (tests/tiers.py); skips it where the toolchain or
    QEMU is missing; puts LONGEST_FIRST's files first (a stable sort: each file keeps its order)."""
    rank = {path: k for k, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))
    skip = pytest.mark.skip(reason="needs arm-none-eabi-gcc and qemu-system-arm (./scons installs them)")
    for item in items:
        if runs_on_arm(item):
            item.add_marker(pytest.mark.qemu)
            if not HAVE_ARM:
                item.add_marker(skip)


def conformance_device(test_id: str) -> str:
    """The device of a test of tests/kernels/test_conformance.py from its id: "[<device>]", or
    "[<device>-<op>/<case>]" (an op, a cases/ module's name, has no "-"); "" for the file's tests
    of no device."""
    if "[" not in test_id:
        return ""
    params = test_id[test_id.index("[") + 1:test_id.rindex("]")]
    return params[:params.index("/")].rsplit("-", 1)[0] if "/" in params else params


# Files handed out a device at a time (the id of its part of the file, from a test's id): the
# conformance suite builds em_run and runs a batch per device, minutes each for the QEMU boards.
SPLIT = {"tests/kernels/test_conformance.py": conformance_device}


@pytest.hookimpl(optionalhook=True)  # a hook of xdist's: a run without it (-p no:xdist) knows none
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """`--dist loadfile`: FileScheduling (None, xdist's own, for any other --dist)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class FileScheduling(LoadFileScheduling):
        """xdist's loadfile (a file's tests to one worker, one file at a time), but a SPLIT file
        goes a device at a time, and files are handed out in the collection's order
        (LONGEST_FIRST first), not by their number of tests."""

        def _split_scope(self, nodeid: str) -> str:
            path, _, test = nodeid.partition("::")
            part = SPLIT[path](test) if path in SPLIT else ""
            return f"{path}[{part}]" if part else path

    config.option.loadscopereorder = False
    return FileScheduling(config, log)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--fuzz-seconds", type=int, default=20,
                     help="how long tests/fuzz runs the loader fuzzer (default 20 s)")


@pytest.fixture
def fuzz_seconds(request: pytest.FixtureRequest) -> int:
    return request.config.getoption("--fuzz-seconds")
