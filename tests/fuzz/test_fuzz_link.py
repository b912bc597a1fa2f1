"""Builds the libFuzzer serial-link target and runs it briefly from a corpus of request
sessions (every request type, an oversized and a truncated frame) over a real program."""
from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from ember_build.paths import BUILD_ROOT

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO), str(REPO / "tests" / "runtime"), str(Path(__file__).parent)]

from build_host import build_link_fuzzer  # noqa: E402
from make_corpus import write_corpus  # noqa: E402

from tools.ember_link import (GET_OUTPUT, GET_PROFILE, GET_RESULT, GET_TENSOR, INFO, RESET_STATE, RUN,  # noqa: E402
                              RUN_TO, SET_INPUT, SHUTDOWN, SYNC, frame)

pytestmark = pytest.mark.fuzz  # tests/tiers.py

ARTIFACTS = BUILD_ROOT / "fuzz-link"  # crashing inputs are kept here for replay


def _sessions() -> dict[str, bytes]:
    """Byte streams a host could send: each request, and the malformed frames the link answers."""
    u32 = lambda *values: struct.pack(f"<{len(values)}I", *values)  # noqa: E731
    inference = (frame(SET_INPUT, 1, b"\x00" + u32(0) + bytes(range(8))) + frame(RUN, 2, u32(40))
                 + frame(RUN, 2, u32(40)) + frame(GET_OUTPUT, 3, b"\x00" + u32(0, 4)) + frame(GET_PROFILE, 4)
                 + frame(GET_RESULT, 5) + frame(RESET_STATE, 18) + frame(RESET_STATE, 19, b"x") + frame(RUN, 20))
    return {
        "info": frame(INFO, 0),
        "inference": inference,
        "tensors": frame(RUN_TO, 6, u32(1, 41)) + frame(RUN_TO, 6, u32(1, 41)) + frame(GET_TENSOR, 7, u32(0, 0, 4)) + frame(GET_TENSOR, 8, u32(99, 0, 1)),
        "out_of_range": frame(SET_INPUT, 9, b"\x07" + u32(0xFFFFFFF0) + b"x") + frame(GET_OUTPUT, 10, b"\x00" + u32(3, 0xFFFFFFFF)),
        "oversized": SYNC + struct.pack("<BBI", INFO, 11, 1 << 20) + frame(INFO, 12),
        "truncated": frame(INFO, 13)[:-3],
        "garbage_then_request": b"\x00\xa5\xa5\x5a" + frame(INFO, 14),
        "shutdown": frame(INFO, 15) + frame(SHUTDOWN, 16, u32(3)) + frame(INFO, 17),
    }


def test_fuzz_link(tmp_path, fuzz_seconds):
    """Runs for --fuzz-seconds (20 by default), like the loader's target (README.md)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    fuzzer = build_link_fuzzer(tmp_path)
    program = next(p for p in write_corpus(tmp_path / "programs") if p.stem == "fc_b1")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    seeds = []
    for name, data in _sessions().items():
        seeds.append(corpus / name)
        seeds[-1].write_bytes(data)
    env = dict(os.environ, EM_FUZZ_PROGRAM=str(program))
    # The seeds themselves must run cleanly (each one a whole session, SHUTDOWN included).
    result = subprocess.run([str(fuzzer), *map(str, seeds)], capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stderr[-4000:]
    result = subprocess.run(
        [str(fuzzer), str(corpus), f"-max_total_time={fuzz_seconds}", "-max_len=8192", "-timeout=10",
         "-rss_limit_mb=2048", "-print_final_stats=1", f"-artifact_prefix={ARTIFACTS}/"],
        capture_output=True, text=True, timeout=fuzz_seconds + 120, env=env)
    (ARTIFACTS / "link.log").write_text(result.stderr)  # executions, coverage (README.md)
    assert result.returncode == 0, result.stderr[-4000:]
