"""The host package installed as a user installs it: a fresh clone of this checkout's HEAD,
`pip install`ed into an empty virtual environment (no system site packages, nothing of the
checkout's .venv), then used from `/` on a model in a folder of the user's own: the `ember`
command lowers it (its scratch sizing built from the runtime C the package carries, cached in
the user's cache folder) and inspects the program file; `python -m compiler` and
`import compiler` work there too. The wheel holds the compiler and that C, nothing of the
checkout's build, tools, apps or tests. Slow: pip installs torch (minutes)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from compiler.program import Program

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
TIMEOUT_S = 1200

# A user's model repository: the model file imports a module beside it, as a real one would.
MODEL = """\
import torch.nn as nn
from blocks import head

def build():
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, stride=2, groups=8),
                         nn.ReLU(), nn.Flatten(), head(8 * 3 * 3)).eval()
"""
BLOCKS = """\
import torch.nn as nn

def head(features):
    return nn.Linear(features, 4)
"""


def _run(command: list[str], cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
    assert done.returncode == 0, f"{' '.join(command)}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict:
    """A clone of HEAD, installed (`pip install CLONE`) into a new empty venv: its paths and an
    environment for commands that reaches no Python of the checkout."""
    tmp = tmp_path_factory.mktemp("install")
    clone, venv = tmp / "ember", tmp / "venv"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", XDG_CACHE_HOME=str(tmp / "cache"))
    _run(["git", "clone", "--quiet", str(REPO), str(clone)], tmp, env)
    _run([sys.executable, "-m", "venv", str(venv)], tmp, env)
    # requirements.txt as constraints: the versions of the development lock (torch 2.13.0, the
    # CPU build on this machine's disk), inside the ranges a user's pip would choose from.
    _run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "-c", str(clone / "requirements.txt"),
          str(clone)], tmp, env)
    return {"tmp": tmp, "clone": clone, "venv": venv, "env": env}


def test_the_empty_venv_sees_nothing_of_the_checkout(installed):
    config = (installed["venv"] / "pyvenv.cfg").read_text()
    assert "include-system-site-packages = false" in config


def test_the_installed_cli_lowers_a_users_model_from_the_root(installed):
    tmp, venv, env = installed["tmp"], installed["venv"], installed["env"]
    user = tmp / "my_model_repo"
    user.mkdir()
    (user / "model.py").write_text(MODEL)
    (user / "blocks.py").write_text(BLOCKS)
    np.save(user / "calibration.npy", np.random.default_rng(0).normal(size=(16, 3, 8, 8)).astype(np.float32))
    program_file = user / "model.embr"
    _run(["ember", "lower", "--model", f"{user / 'model.py'}:build", "--input-shape", "1,3,8,8",
          "--calibration", str(user / "calibration.npy"), "--target", "cortex-m55", "-o", str(program_file)],
         Path("/"), env)

    program = Program.load(program_file)  # the checkout's reader takes what the installed one wrote
    kinds = [op.kind for op in program.graph.ops]
    assert {"conv2d", "depthwise_conv2d", "fully_connected"} <= set(kinds)
    assert program.target.tier == "mve"
    report = json.loads(_run(["ember", "inspect", str(program_file), "--json"], Path("/"), env))
    assert [op["op"] for op in report["ops"]] == kinds and report["tier"] == "mve"
    assert "conv2d" in _run([str(venv / "bin" / "python"), "-m", "compiler", "inspect", str(program_file)],
                            Path("/"), env)
    # the scratch sizing was built from the package's own copy of the C, into the user's cache
    assert sorted(p.name.split("-")[1] for p in (tmp / "cache" / "ember" / "sizing").glob("*.so")) == ["mve"]


def test_import_compiler_from_the_root_finds_the_installed_package(installed):
    venv, env = installed["venv"], installed["env"]
    probe = ("import compiler, compiler.scratch as s, torch; print(compiler.__file__); print(s.runtime_root()); "
             "print(torch.__version__)")
    module, runtime, torch_version = _run([str(venv / "bin" / "python"), "-c", probe], Path("/"), env).split()
    assert torch_version.startswith("2.13.0")
    site = next((venv / "lib").glob("python3*/site-packages"))
    assert Path(module) == site / "compiler" / "__init__.py"
    assert Path(runtime) == site / "compiler" / "_runtime"
    assert (Path(runtime) / "kernels" / "em_nn_buffer_sizes.c").is_file()


def test_the_wheel_holds_the_compiler_and_its_runtime_c_only(installed):
    tmp, venv, env = installed["tmp"], installed["venv"], installed["env"]
    _run([str(venv / "bin" / "python"), "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(tmp / "dist"),
          str(installed["clone"])], tmp, env)
    (wheel,) = (tmp / "dist").glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"compiler"}
    assert {"compiler/_runtime/kernels/em_nn_buffer_sizes.c", "compiler/_runtime/kernels/include/em_nn_functions.h",
            "compiler/schema/program_generated.py", "compiler/schema/program.fbs"} <= set(names)
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "ember = compiler.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()
