"""Program.inputs_kept tells the truth: after an invoke, an input the program says is kept
still holds what was written, on every program of the fuzz corpus (the conformance ops, the
data-movement and broadcast graphs, hand-built FC programs); and the flag is not vacuous: some
of those programs' inputs are consumed and some are kept (tests/runtime/input_kept_driver.c,
host build). The serial link's refusal of a RUN on a consumed input: tests/tools/test_link_inputs.py."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from build_host import CFLAGS, INCLUDES, REPO, build, runtime_sources

sys.path.insert(0, str(REPO / "tests" / "fuzz"))
from make_corpus import write_corpus  # noqa: E402

LINE = re.compile(r"^(\S+) input (\d+): kept=([01]) intact=([01])$")


def test_an_input_said_to_be_kept_survives_the_invoke(tmp_path):
    exe = tmp_path / "input_kept_driver"
    build(os.environ.get("CC", "cc"), [*CFLAGS, *INCLUDES],
          runtime_sources(tmp_path) + [REPO / "tests" / "runtime" / "input_kept_driver.c"], exe, ["-lm"])
    files = write_corpus(tmp_path / "corpus")
    result = subprocess.run([str(exe), *map(str, files)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    verdicts = [LINE.match(line) for line in result.stdout.splitlines()]
    assert all(verdicts), result.stdout
    pairs = [(m.group(3), m.group(4)) for m in verdicts]
    lying = [m.group(0) for m in verdicts if (m.group(3), m.group(4)) == ("1", "0")]
    assert not lying, lying
    assert ("1", "1") in pairs and ("0", "0") in pairs, pairs  # both answers are exercised
