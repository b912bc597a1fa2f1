"""The test tiers: pytest markers, registered and applied by tests/conftest.py.

- qemu: builds Arm firmware (arm-none-eabi-gcc) or runs it in QEMU. A test parametrized by a
  device other than the host (a board of bsp/, a Cortex-M CPU, or an object whose board or name is one)
  gets it by itself, so a new device table needs no marks; a file or test that builds firmware
  without such a parameter says so (`pytestmark = pytest.mark.qemu`).
- slow: host only, but long: the zoo (minutes; its architectures' own checks too), and SCons builds of whole firmware on the host
  (an app, em_run as README builds it; 10-25 s each). The host C they build is built and
  tested in the fast tier too, by tests/runtime/build_host.py.
- fuzz: runs a fuzzer for --fuzz-seconds.
`./scons test fast=1` runs what carries none of them: the host tier.
"""
from __future__ import annotations

import re
import shutil

import pytest

from ember_build.board import known_boards

TIERS = {
    "qemu": "builds Arm firmware or runs it in QEMU (needs arm-none-eabi-gcc and qemu-system-arm)",
    "slow": "host only, but long: the zoo, SCons builds of firmware on the host (not in `./scons test fast=1`)",
    "fuzz": "runs a fuzzer for --fuzz-seconds",
}
HAVE_ARM = all(shutil.which(tool) for tool in ("arm-none-eabi-gcc", "qemu-system-arm"))
ARM_DEVICES = {board for board in known_boards() if board != "host"}
ARM_CPU = re.compile(r"(cortex-)?m\d+")  # "cortex-m55", and the tests' shorthand "m55"
SUBJECT_PARAMS = ("name",)  # a board named as what a test checks (its YAML), not where it runs


def _is_arm_device(value: object) -> bool:
    names = [value] if isinstance(value, str) else [getattr(value, "board", None), getattr(value, "name", None)]
    return any(isinstance(name, str) and (name in ARM_DEVICES or ARM_CPU.fullmatch(name) is not None)
               for name in names)


def runs_on_arm(item: pytest.Item) -> bool:
    """`item` is marked qemu, or parametrized by an Arm device."""
    if item.get_closest_marker("qemu"):
        return True
    params = getattr(getattr(item, "callspec", None), "params", {})
    return any(_is_arm_device(value) for key, value in params.items() if key not in SUBJECT_PARAMS)
