"""Shared test set-up: the repository root and site_scons on sys.path, and a fixed seed."""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for path in (REPO, REPO / "site_scons"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import compiler  # noqa: E402,F401  (quiets torchao's import-time logging before any test imports it)
import pytest  # noqa: E402


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--fuzz-seconds", type=int, default=20,
                     help="how long tests/fuzz runs the loader fuzzer (default 20 s)")


@pytest.fixture
def fuzz_seconds(request: pytest.FixtureRequest) -> int:
    return request.config.getoption("--fuzz-seconds")
