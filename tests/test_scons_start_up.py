"""SCons starts without importing PyTorch: `scons -h` and the reading of an app build (what a no-op
build does) load neither torch nor the compiler's operator table, which imports it (seconds of
every SCons run, 9-13 s on a busy CI machine). Only the actions that lower a model or write the
registry of every op import them (site_scons/site_tools/ember.py, ember_app.py)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("torch", "torchao", "compiler.ops", "compiler.pipeline", "compiler.program")


def imported(args: list[str], build: Path) -> list[tuple[int, str]]:
    """(depth, module) of every module `scons <args>` imports, in import order (python -X importtime)."""
    scons = Path(sys.executable).with_name("scons")
    run = subprocess.run([sys.executable, "-X", "importtime", str(scons), *args], cwd=REPO, capture_output=True,
                         text=True, env={**os.environ, "EMBER_BUILD": str(build)}, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    rows = []
    for line in run.stderr.splitlines():
        if line.startswith("import time:") and not line.rstrip().endswith("imported package"):
            name = line.split("|")[-1]
            rows.append(((len(name) - len(name.lstrip())) // 2, name.strip()))
    assert rows, run.stderr[-2000:]
    return rows


def importers(rows: list[tuple[int, str]], module: str) -> list[str]:
    """The chain of imports that reached `module` (importtime prints a module after its imports)."""
    at = [name for _, name in rows].index(module)
    chain, depth = [module], rows[at][0]
    for d, name in rows[at + 1:]:
        if d < depth:
            chain.append(name)
            depth = d
    return chain


@pytest.mark.parametrize("args", [["-h"], ["-n", "app=anomaly", "board=host", "run=1"]], ids=["help", "app build read"])
def test_scons_starts_without_torch(args, tmp_path):
    rows = imported(args, tmp_path)
    names = {name for _, name in rows}
    assert "ember_build.board" in names  # the import log is SCons's own, SConstruct read
    heavy = sorted(n for n in names if n in HEAVY or n.startswith("torch."))
    assert not heavy, (f"scons {' '.join(args)} imports {len(heavy)} modules of {HEAVY}, {heavy[:4]} ...: "
                       f"{' <- '.join(importers(rows, heavy[0]))}")
