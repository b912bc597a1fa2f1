"""Shared by the settings tests (tests/bsp/test_settings_validation.py, tests/apps/test_app_yaml_validation.py):
SCons run on the checkout with a private build tree, and a copy of the build library whose bsp/
and apps/ a test may break without touching the checkout's."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCONS = Path(sys.executable).with_name("scons")


def scons(args: list[str], build: Path, site_dir: Path | None = None, timeout: int = 300) -> subprocess.CompletedProcess:
    """`scons -Q <args>` in the checkout, building (if it ever did) into `build` (EMBER_BUILD);
    with `site_dir`, SCons takes ember_build and the site tools from there (`--site-dir`): the
    board.yaml and app.yaml files are then those of that copy (checkout_copy)."""
    env = {**os.environ, "EMBER_BUILD": str(build)}
    site = [f"--site-dir={site_dir}"] if site_dir else []
    return subprocess.run([str(SCONS), "-Q", *site, *args], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=timeout)


def checkout_copy(root: Path) -> Path:
    """site_scons/ (ember_build, site_tools), bsp/ and every apps/<app>/app.yaml (with its
    firmware/ folders, which app.yaml may name) copied to `root`: ember_build reads the copy's
    bsp/ and apps/ (its paths follow its own file). Returns the copy's site_scons/."""
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for folder in ("site_scons/ember_build", "site_scons/site_tools", "bsp"):
        shutil.copytree(REPO / folder, root / folder, ignore=ignore)
    for app_yaml in (REPO / "apps").glob("*/app.yaml"):
        target = root / "apps" / app_yaml.parent.name
        target.mkdir(parents=True)
        shutil.copy(app_yaml, target / "app.yaml")
        for folder in (app_yaml.parent / "firmware").glob("*/"):
            (target / "firmware" / folder.name).mkdir(parents=True)
    return root / "site_scons"


def error_lines(run: subprocess.CompletedProcess) -> list[str]:
    return [line for line in (run.stdout + run.stderr).splitlines() if "error" in line.lower()]


def line_of(text: str, fragment: str) -> int:
    """The (1-based) line of `text` that holds `fragment`, which must occur once."""
    found = [i for i, line in enumerate(text.splitlines(), 1) if fragment in line]
    assert len(found) == 1, (fragment, found)
    return found[0]
