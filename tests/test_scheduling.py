"""The parallel run's work units (tests/conftest.py FileScheduling): a file to a worker, but the
conformance suite a device at a time, each device's tests (the ones of its batch) in one unit."""
from __future__ import annotations

import sys
from pathlib import Path

from tests.conftest import SPLIT, conformance_device

sys.path.insert(0, str(Path(__file__).parent / "kernels"))
from conformance import DEVICES, all_cases  # noqa: E402


def test_every_conformance_test_of_a_device_is_in_that_devices_unit():
    ids = [c.id for c in all_cases()]
    for device in DEVICES:
        assert conformance_device(f"test_program_of_another_tier_is_refused[{device.name}]") == device.name
        assert {conformance_device(f"test_case_matches_reference[{device.name}-{i}]") for i in ids} == {device.name}
    assert conformance_device("test_manifests_split_by_capacity") == ""
    assert SPLIT["tests/kernels/test_conformance.py"] is conformance_device
