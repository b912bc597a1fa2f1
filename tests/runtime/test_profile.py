"""Per-operator profiling (runtime/include/em_profile.h, EM_PROFILE=1) on the host: one entry per
operator in program order, named and counted with the caller's counter less its overhead, the
same output as a plain invoke, bad arguments refused before anything runs
(tests/runtime/profile_driver.c)."""
from __future__ import annotations

import os
import subprocess

import programs
from build_host import CFLAGS, INCLUDES, REPO, build, runtime_sources


def test_profiled_invoke_counts_every_operator(tmp_path):
    exe = tmp_path / "profile_driver"
    cc = os.environ.get("CC", "cc")
    build(cc, [*CFLAGS, "-DEM_PROFILE=1", *INCLUDES], runtime_sources(tmp_path) + [REPO / "tests" / "runtime" /
                                                                                  "profile_driver.c"], exe, ["-lm"])
    prog = tmp_path / "p.embr"
    prog.write_bytes(programs.build(programs.pipeline_program()[0]))
    result = subprocess.run([str(exe), str(prog)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stdout + result.stderr
    ops = [line.split()[1:] for line in result.stdout.splitlines() if line.startswith("op ")]
    # the fake counter advances 7 per read, the overhead given is 3
    assert [(name, count) for _, _, name, count in ops] == [
        ("quantize", "4"), ("fully_connected", "4"), ("dequantize", "4")]
    assert result.stdout.count("ok ") == 10 and "FAIL" not in result.stdout, result.stdout
