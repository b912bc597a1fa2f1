"""The tiers' rule (tests/tiers.py): what runs on an Arm device is marked qemu, the host's rows
and a board named as a test's subject are not."""
from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from tests.tiers import runs_on_arm


@dataclass
class Device:
    name: str
    board: str


@dataclass
class Item:  # the two things runs_on_arm reads of a pytest.Item
    params: dict = field(default_factory=dict)
    marked: bool = False

    @property
    def callspec(self):
        return self

    def get_closest_marker(self, name: str):
        return name if self.marked and name == "qemu" else None


@pytest.mark.parametrize("params,arm", [
    ({"board": "corstone300", "target": "cortex-m55"}, True),
    ({"board": "host", "target": "host"}, False),
    ({"runner": "m55"}, True),
    ({"batch": Device("corstone300-dsp", "corstone300")}, True),
    ({"batch": Device("host", "host")}, False),
    ({"name": "mps2_an386"}, False),  # a board's YAML checked on the host
    ({"model": "yolo"}, False),
])
def test_arm_devices_are_found_in_parameters(params, arm):
    assert runs_on_arm(Item(params)) is arm


def test_an_explicit_mark_counts():
    assert runs_on_arm(Item({}, marked=True))
