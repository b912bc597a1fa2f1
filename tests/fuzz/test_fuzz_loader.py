"""Builds the libFuzzer loader target and runs it briefly from a corpus of valid programs."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from ember_build.paths import BUILD_ROOT

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO), str(REPO / "tests" / "runtime"), str(Path(__file__).parent)]

from build_host import build_fuzzer  # noqa: E402
from make_corpus import write_corpus  # noqa: E402

pytestmark = pytest.mark.fuzz  # tests/tiers.py

ARTIFACTS = BUILD_ROOT / "fuzz"  # crashing inputs are kept here for replay
# Inputs the fuzzer once crashed on (README.md), run with the seeds: each must load or be refused cleanly.
REGRESSIONS = Path(__file__).parent / "regressions"


def test_fuzz_loader(tmp_path, fuzz_seconds):
    """Runs for --fuzz-seconds (20 by default); see README.md for a long run."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    fuzzer = build_fuzzer(tmp_path)
    corpus = tmp_path / "corpus"
    seeds = write_corpus(corpus)
    # The seeds themselves must load and run cleanly, and the fuzzer's old finds must not crash.
    regressions = sorted(REGRESSIONS.glob("*.embr"))
    assert regressions
    result = subprocess.run([str(fuzzer), *map(str, seeds + regressions)], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr[-4000:]
    result = subprocess.run(
        [str(fuzzer), str(corpus), f"-max_total_time={fuzz_seconds}", "-max_len=4096",
         "-timeout=10", "-rss_limit_mb=2048", "-print_final_stats=1", f"-artifact_prefix={ARTIFACTS}/"],
        capture_output=True, text=True, timeout=fuzz_seconds + 120)
    (ARTIFACTS / "loader.log").write_text(result.stderr)  # executions, coverage (README.md)
    assert result.returncode == 0, result.stderr[-4000:]
