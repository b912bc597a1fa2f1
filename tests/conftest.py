"""Shared test set-up: the repository root and site_scons on sys.path, and the test tiers
(tests/tiers.py: qemu, slow and fuzz markers; `./scons test fast=1` runs the host tier)."""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for path in (REPO, REPO / "site_scons"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import compiler  # noqa: E402,F401  (quiets torchao's import-time logging before any test imports it)
import pytest  # noqa: E402

from tests.tiers import HAVE_ARM, TIERS, runs_on_arm  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    for name, meaning in TIERS.items():
        config.addinivalue_line("markers", f"{name}: {meaning}")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Marks qemu what runs on an Arm device (tests/tiers.py); skips it where the toolchain or
    QEMU is missing."""
    skip = pytest.mark.skip(reason="needs arm-none-eabi-gcc and qemu-system-arm (./scons installs them)")
    for item in items:
        if runs_on_arm(item):
            item.add_marker(pytest.mark.qemu)
            if not HAVE_ARM:
                item.add_marker(skip)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--fuzz-seconds", type=int, default=20,
                     help="how long tests/fuzz runs the loader fuzzer (default 20 s)")


@pytest.fixture
def fuzz_seconds(request: pytest.FixtureRequest) -> int:
    return request.config.getoption("--fuzz-seconds")
