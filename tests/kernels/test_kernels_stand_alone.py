"""The kernels know no runtime (DESIGN.md, Layers): nothing under runtime/kernels/ includes a
header of runtime/include/ (em_status.h, ember.h, em_registry.h …); they report em_nn_status
(runtime/kernels/include/em_nn_status.h) and the op adapters map it (em_op_status).

Two checks: every #include of every kernel file, on every tier's branch of its #if, names a
header of the kernels' own or the C library's; and every kernel source compiles for the host
with runtime/kernels/include as its only include path. tests/kernels/test_optimisation_levels.py
compiles them so for the Arm tiers too."""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
KERNELS = REPO / "runtime" / "kernels"
KERNEL_FILES = sorted([*KERNELS.glob("*.c"), *KERNELS.glob("*.h"), *(KERNELS / "include").glob("*.h")])
RUNTIME_HEADERS = sorted(p.name for p in (REPO / "runtime" / "include").glob("*.h"))
# Generated per program (compiler/emit_c.py variants_h), included only with EM_NN_VARIANTS_SELECTED.
GENERATED = {"em_nn_variants_selected.h"}
# What the kernels may take from the toolchain: the C library and the Arm intrinsics.
SYSTEM = {"stdbool.h", "stddef.h", "stdint.h", "string.h", "arm_mve.h", "arm_acle.h"}

_INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.MULTILINE)


def _includes(path: Path) -> list[tuple[str, str]]:
    return _INCLUDE.findall(path.read_text())


def test_the_runtime_headers_are_known():
    """The scan below compares against real names: the runtime's headers exist."""
    assert {"em_status.h", "ember.h", "em_registry.h"} <= set(RUNTIME_HEADERS)


def test_no_kernel_file_includes_a_runtime_header():
    own = {p.name for p in KERNEL_FILES}
    wrong = []
    for path in KERNEL_FILES:
        for kind, name in _includes(path):
            allowed = (name in own or name in GENERATED) if kind == '"' else name in SYSTEM
            if not allowed or Path(name).name in RUNTIME_HEADERS:
                wrong.append(f"{path.relative_to(REPO)}: #include {kind}{name}")
    assert wrong == []


def test_the_scan_sees_a_runtime_include(tmp_path):
    """The scan's own check: a kernel that included em_status.h would be caught."""
    fake = tmp_path / "em_fake_s8.c"
    fake.write_text('#include <stdint.h>\n#if EM_NN_TIER_MVE\n#  include "em_status.h"\n#endif\n')
    assert ('"', "em_status.h") in _includes(fake)


@pytest.mark.parametrize("source", sorted(KERNELS.glob("*.c")), ids=lambda p: p.name)
def test_each_kernel_compiles_with_only_the_kernel_headers(source, tmp_path):
    cc = os.environ.get("CC", "cc")
    run = subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", f"-I{KERNELS / 'include'}", "-fsyntax-only",
                          str(source)], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
