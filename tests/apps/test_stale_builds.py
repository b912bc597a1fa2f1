"""Builds are functions of their inputs: no program, firmware or report outlives the
build that made it. Each test builds the anomaly app in a private copy of the checkout (the
build's own files: SConstruct, site_scons/, compiler/, runtime/, bsp/, tools/, apps/common/,
apps/anomaly/, as they are in the working tree), so it can change the app's inputs without
touching the checkout; PYTHONPATH makes the build import the copy's compiler and ember_build,
EMBER_BUILD gives it a private build tree.
- A build killed (SIGKILL: SCons writes its signature database at exit, so it still holds the
  previous build's) after lowering a changed app.yaml, or after compiling and linking what it
  lowered, then the change reverted and the app rebuilt: the program, the test vectors and the
  firmware are the first build's again. The same for a changed C source of the firmware, killed
  once its object is compiled (ember_build/unfinished.py: the next build trusts no database).
- A lowering that fails (a memory cap the plan cannot meet, a corrupt checkpoint) leaves no
  firmware and no report.json of the build before.
- Firmware refused by the heap check (corstone300) is not left on disk, nor the .hex/.bin of
  the firmware before."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD_FILES = ("SConstruct", "site_scons", "compiler", "runtime", "bsp", "tools", "apps/common", "apps/anomaly")
SCONS = Path(sys.executable).with_name("scons")
TIMEOUT_S = 900


def _copy_checkout(dest: Path) -> Path:
    """The build's files of the working tree (tracked, and new ones not ignored) copied to `dest`."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *BUILD_FILES],
                            cwd=REPO, capture_output=True, check=True).stdout
    for name in filter(None, listed.split(b"\0")):
        source = REPO / os.fsdecode(name)
        if source.is_file():  # not a file deleted in the working tree
            (dest / os.fsdecode(name)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / os.fsdecode(name))
    return dest


class Checkout:
    """A private copy of the checkout and its build tree."""

    def __init__(self, root: Path, board: str):
        self.root = _copy_checkout(root / "checkout")
        self.build = root / "build"
        self.board = board
        self.app = self.root / "apps" / "anomaly"
        self.out = self.build / board / "anomaly"
        self.gen = self.out / "gen"
        self.env = {**os.environ, "EMBER_BUILD": str(self.build), "PYTHONUNBUFFERED": "1",
                    "PYTHONPATH": os.pathsep.join([str(self.root), str(self.root / "site_scons")])}

    def command(self, *args: str) -> list[str]:
        return [str(SCONS), "app=anomaly", f"board={self.board}", *args]

    def scons(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(self.command(*args), cwd=self.root, env=self.env, capture_output=True, text=True,
                              timeout=TIMEOUT_S)

    def built(self, *args: str) -> subprocess.CompletedProcess:
        run = self.scons(*args)
        assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
        return run

    def reset(self) -> "Checkout":
        """The app's files as the checkout has them again (what a test changed), its build kept."""
        app = REPO / "apps" / "anomaly"
        shutil.rmtree(self.app)
        shutil.copytree(app, self.app, ignore=shutil.ignore_patterns("__pycache__"))
        return self

    def edit(self, path: Path, old: str, new: str) -> None:
        text = path.read_text()
        assert text.count(old) == 1, (path, old)
        path.write_text(text.replace(old, new))


@pytest.fixture(scope="module")
def host_tree(tmp_path_factory) -> Checkout:
    """One private copy and build tree for the host tests of this file, which run one after
    another: each starts from the app as the checkout has it (reset) and builds it, which is
    a no-op after a test that left the first build in place."""
    return Checkout(tmp_path_factory.mktemp("host"), "host")


@pytest.fixture
def host(host_tree: Checkout) -> Checkout:
    return host_tree.reset()


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        status = path.stat()
    except FileNotFoundError:
        return None
    return status.st_ino, status.st_mtime_ns


def _lowered(checkout: Checkout, before: tuple | None, log: Path) -> bool:
    """The lowering has written gen/ (compile.json, its last output, replaced)."""
    return _identity(checkout.gen / "compile.json") not in (before, None)


def _linked(checkout: Checkout, before: tuple | None, log: Path) -> bool:
    """The objects of what it lowered are compiled and linked (SCons has started the run)."""
    return "running anomaly on host" in log.read_text()


@pytest.mark.slow  # SCons builds of the whole host firmware (tests/tiers.py)
@pytest.mark.parametrize("killed_when", [_lowered, _linked], ids=["lowered", "linked"])
def test_a_build_killed_after_lowering_then_reverted_links_the_first_program(host, tmp_path, killed_when):
    checkout = host
    app_yaml = checkout.app / "app.yaml"
    checkout.built("run=1")
    first = {name: (checkout.gen / name).read_bytes()
             for name in ("program.embr", "em_test_vectors.c", "em_test_vectors.h", "compile.json")}
    firmware = (checkout.out / "firmware").read_bytes()
    assert json.loads((checkout.out / "report.json").read_text())["vectors"] == 6

    # B: four test vectors instead of six; killed as soon as its lowering has written gen/, or
    # once it has linked B's firmware
    checkout.edit(app_yaml, "test_vectors: 6 ", "test_vectors: 4 ")
    before = _identity(checkout.gen / "compile.json")
    log = tmp_path / "killed.log"
    with log.open("w") as out:
        killed = subprocess.Popen(checkout.command("run=1"), cwd=checkout.root, env=checkout.env, stdout=out,
                                  stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline = time.monotonic() + TIMEOUT_S
            while not killed_when(checkout, before, log):
                assert killed.poll() is None, log.read_text()[-4000:]
                assert time.monotonic() < deadline, f"{killed_when.__doc__}: never happened"
                time.sleep(0.02)
        finally:
            os.killpg(killed.pid, signal.SIGKILL)  # SCons and whatever it started
            killed.wait()
    assert b"EM_TEST_VECTOR_COUNT 4u" in (checkout.gen / "em_test_vectors.h").read_bytes()  # B's lowering ran

    # back to A: the build must lower again (SCons's database still says A) and link A's program
    checkout.edit(app_yaml, "test_vectors: 4 ", "test_vectors: 6 ")
    run = checkout.built("run=1")
    assert "compiling model" in run.stdout
    for name, data in first.items():
        assert (checkout.gen / name).read_bytes() == data, name
    report = json.loads((checkout.out / "report.json").read_text())
    assert report["match"] is True and report["vectors"] == 6, report
    assert (checkout.out / "firmware").read_bytes() == firmware, run.stdout[-4000:]


EDITED, EDITED_CALL = "volatile int em_test_edited;\n", "    em_test_edited = 1;\n"  # a store no optimiser drops


@pytest.mark.slow  # SCons builds of the whole host firmware (tests/tiers.py)
def test_a_build_killed_after_compiling_an_edited_source_then_reverted_links_the_first_object(host, tmp_path):
    checkout = host
    main_c = checkout.app / "firmware" / "main.c"
    checkout.built()
    firmware = (checkout.out / "firmware").read_bytes()
    objects = [p for p in (checkout.out / "obj").rglob("*.o") if p.stem == "main"]
    assert len(objects) == 1, objects
    before = _identity(objects[0])
    checkout.edit(main_c, HEAP_CALL, EDITED + HEAP_CALL + EDITED_CALL)
    log = tmp_path / "killed.log"
    with log.open("w") as out:
        killed = subprocess.Popen(checkout.command(), cwd=checkout.root, env=checkout.env, stdout=out,
                                  stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline = time.monotonic() + TIMEOUT_S
            while _identity(objects[0]) in (before, None):
                assert killed.poll() is None, log.read_text()[-4000:]
                assert time.monotonic() < deadline, "the edited main.c was never compiled"
                time.sleep(0.01)
        finally:
            os.killpg(killed.pid, signal.SIGKILL)
            killed.wait()
    checkout.edit(main_c, EDITED + HEAP_CALL + EDITED_CALL, HEAP_CALL)
    run = checkout.built()
    assert (checkout.out / "firmware").read_bytes() == firmware, run.stdout[-4000:]
    assert "did not finish (killed?)" in run.stdout, run.stdout[-4000:]
    assert "did not finish" not in checkout.built().stdout  # a finished build is trusted again


def _small_cap(checkout: Checkout) -> str:
    """A cap of 1 KiB on the host's one region: the plan needs about 14 KiB."""
    with (checkout.app / "app.yaml").open("a") as f:
        f.write("memory: {cap: {ram: 1 KiB}}\n")
    return "PlanError"


def _corrupt_checkpoint(checkout: Checkout) -> str:
    """The checkpoint cut short: torch.load cannot read it."""
    checkpoint = checkout.app / "checkpoint.pt"
    checkpoint.write_bytes(checkpoint.read_bytes()[:4096])
    return "checkpoint"


@pytest.mark.slow  # SCons builds of the whole host firmware (tests/tiers.py)
@pytest.mark.parametrize("failure", [_small_cap, _corrupt_checkpoint], ids=["memory-cap", "corrupt-checkpoint"])
def test_a_failed_lowering_leaves_no_firmware_or_report_of_the_build_before(host, failure):
    checkout = host
    checkout.built("run=1")
    assert (checkout.out / "firmware").exists() and (checkout.out / "report.json").exists()
    error = failure(checkout)
    run = checkout.scons("run=1")
    assert run.returncode != 0, run.stdout[-4000:]
    assert "compiling model" in run.stdout and error in run.stderr, run.stdout[-4000:] + run.stderr[-4000:]
    left = sorted(p.name for p in (checkout.out / "firmware", checkout.out / "report.json",
                                   checkout.gen / "program.embr", checkout.gen / "verified.txt") if p.exists())
    assert not left, (left, run.stdout[-4000:])


HEAP_CALL = "int em_app_main(void) {\n"
# newlib's malloc takes its memory from _sbrk, which the BSP does not have: a stub lets the link
# succeed, so that the heap check is what refuses the image
HEAP_USER = ("#include <stddef.h>\n#include <stdlib.h>\nvoid *_sbrk(ptrdiff_t increment);\n"
             "void *_sbrk(ptrdiff_t increment) { (void)increment; return (void *)-1; }\nvoid *volatile em_test_heap;\n")


@pytest.mark.qemu  # builds corstone300 firmware and runs it in QEMU (tests/tiers.py)
def test_firmware_refused_by_the_heap_check_is_not_left_beside_the_images_before(tmp_path):
    checkout = Checkout(tmp_path, "corstone300")
    checkout.built("run=1")
    images = [checkout.out / n for n in ("firmware.elf", "firmware.hex", "firmware.bin", "report.json", "size.json")]
    assert all(p.exists() for p in images if p.suffix != ".bin")
    # the firmware now calls malloc (a live call: --gc-sections would drop an unused one)
    checkout.edit(checkout.app / "firmware" / "main.c", HEAP_CALL, HEAP_USER + HEAP_CALL + "    em_test_heap = malloc(16);\n")
    run = checkout.scons("run=1")
    assert run.returncode != 0 and "links the heap" in run.stdout, run.stdout[-4000:]
    left = sorted(p.name for p in images if p.exists())
    assert not left, (left, run.stdout[-4000:])


def test_a_missing_checkpoint_is_one_line_with_the_fix_and_nothing_is_built(host):
    checkout = host
    (checkout.app / "checkpoint.pt").unlink()
    run = checkout.scons("run=1")
    assert run.returncode == 2, run.stdout[-4000:] + run.stderr[-4000:]
    errors = [line for line in (run.stdout + run.stderr).splitlines() if "error" in line.lower()]
    assert errors == ["error: no checkpoint at apps/anomaly/checkpoint.pt: `./scons app=anomaly train=1` trains a new one"], errors
    assert "Traceback" not in run.stderr and "compiling model" not in run.stdout
