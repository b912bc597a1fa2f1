"""The host package's promises that need no install (tests/test_install.py installs it): no code
outside tests/ edits sys.path, tools/ import nothing of tests/, the build imports no tool (tools
import the build), pyproject.toml lists every package of compiler/ and ships every file the
kernels' scratch sizing reads, and an installed compiler finds that copy and a writable cache."""
from __future__ import annotations

import ast
import fnmatch
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from compiler import scratch

REPO = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
PYPROJECT = PROJECT["tool"]["setuptools"]
SKIPPED = {".venv", "build", "tests", ".git", "__pycache__"}
# The one sys.path edit that stays: the CLI loads the user's model file as Python runs a script,
# its folder first on sys.path, so that the file's own imports of its neighbours resolve.
USER_MODEL_LOADER = REPO / "compiler" / "cli.py"


def _python_files() -> list[Path]:
    """Every Python source of the checkout outside tests/ (SConstruct and SConscripts too)."""
    found = []
    for folder, names, files in os.walk(REPO):
        names[:] = [n for n in names if n not in SKIPPED and not n.endswith(".egg-info")]
        found += [Path(folder) / f for f in files if f.endswith(".py") or f in ("SConstruct", "SConscript")]
    return sorted(found)


def _is_sys_path(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "path" and isinstance(node.value, ast.Name)
            and node.value.id == "sys")


def _sys_path_edits(tree: ast.AST) -> list[int]:
    """Lines that change sys.path: a method call on it, an assignment to it or to a slice of it."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _is_sys_path(node.func.value):
            if node.func.attr in ("insert", "append", "extend", "remove", "pop", "clear"):
                lines.append(node.lineno)
        targets = (node.targets if isinstance(node, ast.Assign)
                   else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else [])
        for target in targets:
            if _is_sys_path(target) or (isinstance(target, ast.Subscript) and _is_sys_path(target.value)):
                lines.append(node.lineno)
    return sorted(lines)


def _imported_modules(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_the_checks_see_edits_and_imports():
    edits = ast.parse("import sys\nsys.path.insert(0, 'a')\nsys.path[:0] = ['b']\nsys.path = []\nsys.path += ['c']\n"
                      "print(sys.path[0])\n")
    assert _sys_path_edits(edits) == [2, 3, 4, 5]
    assert _imported_modules(ast.parse("import a.b\nfrom c.d import e\nfrom . import f\n")) == {"a.b", "c.d"}


def test_no_file_outside_tests_edits_sys_path():
    edits = {f"{path.relative_to(REPO)}:{line}" for path in _python_files()
             for line in _sys_path_edits(ast.parse(path.read_text(), str(path)))}
    loader = {e for e in edits if e.startswith(f"{USER_MODEL_LOADER.relative_to(REPO)}:")}
    assert len(loader) == 1, edits
    assert edits - loader == set()


def test_tools_import_nothing_of_tests():
    test_modules = {"tests"} | {p.stem for p in (REPO / "tests").rglob("*.py")}
    offending = {f"{path.relative_to(REPO)}: {name}" for path in _python_files()
                 if path.is_relative_to(REPO / "tools")
                 for name in _imported_modules(ast.parse(path.read_text())) if name.split(".")[0] in test_modules}
    assert offending == set()


def test_no_module_of_ours_shadows_the_standard_librarys():
    """A folder of ours on sys.path (a script run as `python tools/x.py`, a test's path edit, a
    spawned worker inheriting either) must not hide a standard module: tools/profile.py once
    stood in for `profile`, which cProfile (imported by torch._dynamo) imports, and every zoo
    worker died at import."""
    ours = {path.stem for path in [*_python_files(), *(REPO / "tests").rglob("*.py")]}
    assert ours & set(sys.stdlib_module_names) == set()


def test_the_build_imports_no_tool():
    """Tools import ember_build (boards, QEMU); the build runs a tool as a program of its own."""
    offending = {f"{path.relative_to(REPO)}: {name}" for path in _python_files()
                 if path.is_relative_to(REPO / "site_scons") or path.name == "SConstruct"
                 for name in _imported_modules(ast.parse(path.read_text())) if name.split(".")[0] == "tools"}
    assert offending == set()


def test_the_distributions_ranges_hold_the_development_pins():
    """requirements.txt stays the lock of .venv: every package the two pyproject.toml files ask
    for (dependencies and extras) is pinned there, at a version the range takes."""
    pins = {}
    for line in (REPO / "requirements.txt").read_text().splitlines():
        if line.split("#")[0].strip():
            requirement = Requirement(line.split("#")[0])
            (pin,) = requirement.specifier
            pins[canonicalize_name(requirement.name)] = pin.version
    build = tomllib.loads((REPO / "site_scons" / "pyproject.toml").read_text())["project"]["dependencies"]
    asked = [*PROJECT["project"]["dependencies"], *build,
             *(r for extra in PROJECT["project"]["optional-dependencies"].values() for r in extra)]
    ours = {canonicalize_name(PROJECT["project"]["name"])}
    for requirement in map(Requirement, asked):
        name = canonicalize_name(requirement.name)
        if name not in ours:
            assert name in pins and requirement.specifier.contains(pins[name], prereleases=True), requirement


def test_every_package_of_the_compiler_ships():
    found = {".".join(p.parent.relative_to(REPO).parts) for p in (REPO / "compiler").rglob("__init__.py")}
    assert found == set(PYPROJECT["packages"]) - {"compiler._runtime"}


def _packaged_runtime_files() -> list[Path]:
    """The files of runtime/ that the wheel carries as compiler/_runtime (pyproject's package data)."""
    root = REPO / PYPROJECT["package-dir"]["compiler._runtime"]
    patterns = PYPROJECT["package-data"]["compiler._runtime"]
    return sorted(p for p in root.rglob("*") if p.is_file()
                  and any(fnmatch.fnmatch(p.relative_to(root).as_posix(), pattern) for pattern in patterns))


def test_the_wheel_carries_every_file_the_scratch_sizing_reads():
    assert scratch.runtime_root() == REPO / "runtime"  # in the checkout: its own runtime/
    assert scratch.sources_digest() == scratch.sources_digest(REPO / "runtime")
    assert set(scratch._sizing_files(REPO / "runtime")) <= set(_packaged_runtime_files())


def test_an_installed_compiler_reads_its_own_runtime_copy_and_caches_in_the_users_folder(tmp_path):
    """compiler/ laid out as a wheel installs it (the package and compiler/_runtime, no checkout
    around it): the sizing C comes from the copy and the library lands in $XDG_CACHE_HOME."""
    site = tmp_path / "site"
    shutil.copytree(REPO / "compiler", site / "compiler", ignore=shutil.ignore_patterns("__pycache__"))
    for path in _packaged_runtime_files():
        copy = site / "compiler" / "_runtime" / path.relative_to(REPO / "runtime")
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, copy)
    probe = ("import compiler.scratch as s; lib = s.library('scalar'); "
             "print(s.__file__, s.runtime_root(), s.sizing_cache(), lib._name, sep='\\n')")
    env = {**os.environ, "PYTHONPATH": str(site), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    run = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    module, runtime, cache, library = run.stdout.split()
    assert Path(module) == site / "compiler" / "scratch.py"
    assert Path(runtime) == site / "compiler" / "_runtime"
    assert Path(cache) == tmp_path / "cache" / "ember" / "sizing"
    assert Path(library).parent == Path(cache) and Path(library).is_file()
