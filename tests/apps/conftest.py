"""Runs shared by the app tests: `scons app=kws board=corstone300 run=1` once a session, its
output read by the kws tests (the keyword lines) and the variant-selection tests (the firmware,
its size and run reports)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def kws_corstone300_run() -> subprocess.CompletedProcess:
    """The finished run (stdout: what the firmware printed); its files in build/corstone300/kws/."""
    scons = Path(sys.executable).with_name("scons")
    run = subprocess.run([str(scons), "app=kws", "board=corstone300", "run=1"], cwd=REPO,
                         capture_output=True, text=True, timeout=1800)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return run
