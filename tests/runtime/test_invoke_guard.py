"""A program that em_program_load() rejected (or never saw) is never invoked: invoke, input and
output refuse it with EM_ERR_BAD_ARGUMENT (tests/runtime/invoke_guard.c, host build)."""
from __future__ import annotations

import os
import subprocess

import programs
from build_host import CFLAGS, INCLUDES, REPO, build, runtime_sources


def test_unloaded_or_failed_programs_are_refused(tmp_path):
    exe = tmp_path / "invoke_guard"
    cc = os.environ.get("CC", "cc")
    build(cc, [*CFLAGS, *INCLUDES], runtime_sources(tmp_path) + [REPO / "tests" / "runtime" / "invoke_guard.c"], exe,
          ["-lm"])
    prog = tmp_path / "p.embr"
    prog.write_bytes(programs.build(programs.fc_program()[0]))
    result = subprocess.run([str(exe), str(prog)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "FAIL" not in result.stdout
    assert result.stdout.count("ok ") == 27, result.stdout
