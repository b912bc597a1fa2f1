"""The host build of a tier's verifier (tools/em_verify: what sealed app firmware relies on, run by
the build) gives the device's verdict on every program: the loader fuzzer's seeds written for the
device's tier, seeded byte flips and truncations of each, and (on the host) the fuzzer's
regressions. The device's verdict is em_run's, loading each program (`PROGRAM -` cases) in one
launch; both must accept the same programs and refuse the others with the same status and
operator."""
from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO), str(REPO / "tests" / "runtime"), str(REPO / "tests" / "kernels"), str(Path(__file__).parent)]

from build_host import scons_em_verify  # noqa: E402
from programs import CHECKSUM_BYTES, resealed, with_checksum  # noqa: E402
from conformance import Device, run_batch  # noqa: E402
from make_corpus import write_corpus  # noqa: E402

pytestmark = pytest.mark.qemu  # em_run in QEMU (tests/tiers.py)

DEVICES = [Device("host", "host"), Device("corstone300", "corstone300"), Device("mps2_an386", "mps2_an386")]
REGRESSIONS = Path(__file__).parent / "regressions"  # host-tier programs: on the host only
FLIPS_PER_SEED = 6
OPERATOR = re.compile(r"em_run: operator (\d+) \(opcode (\d+)\)")


def programs_for(device: Device, folder: Path) -> dict[str, bytes]:
    """The seeds for the device's tier, and for each FLIPS_PER_SEED byte flips and a truncation:
    the first flip as it is (the checksum refuses it), the others and the truncation given a
    matching trailer again, so that they reach the structural checks."""
    rng = random.Random(18)
    seeds = {path.stem: path.read_bytes() for path in write_corpus(folder, device.target)}
    programs = dict(seeds)
    for name, data in seeds.items():
        for k in range(FLIPS_PER_SEED):
            flipped = bytearray(data)
            at = rng.randrange(len(data))
            flipped[at] ^= 1 << rng.randrange(8)
            programs[f"{name}.flip{k}"] = bytes(flipped) if k == 0 else resealed(flipped)
        programs[f"{name}.cut"] = with_checksum(data[: rng.randrange(8, len(data) - CHECKSUM_BYTES)])
    if device.board == "host":
        programs.update({f"regression.{p.stem}": p.read_bytes() for p in sorted(REGRESSIONS.glob("*.embr"))})
    return programs


def host_verdicts(verifier: Path, files: list[Path]) -> list[tuple[str, str]]:
    """(status, operator index or "none") per file, from em_verify's lines."""
    run = subprocess.run([str(verifier), *map(str, files)], capture_output=True, text=True, timeout=300)
    assert run.returncode in (0, 1), run.stderr
    verdicts = []
    for line in run.stdout.splitlines():
        _, status, *rest = line.split()
        operator = rest[0].removeprefix("operator=") if rest else "none"
        verdicts.append((status, operator))
    assert len(verdicts) == len(files), run.stdout[-2000:]
    return verdicts


@pytest.mark.parametrize("device", DEVICES, ids=lambda d: d.name)
def test_the_host_verifier_gives_the_devices_verdict(device, tmp_path):
    programs = programs_for(device, tmp_path / "seeds")
    files = []
    for name, data in programs.items():
        files.append(tmp_path / f"{name}.embr")
        files[-1].write_bytes(data)
    host = host_verdicts(scons_em_verify(device.board), files)
    run = run_batch(device, device.build_runner(), [(data,) for data in programs.values()], tmp_path / "device")
    disagree = []
    for name, (status, operator), verdict in zip(programs, host, run.verdicts):
        found = OPERATOR.search(verdict.console)
        on_device = (verdict.status, found.group(1) if found and verdict.status != "EM_OK" else "none")
        if (status, operator) != on_device:
            disagree.append((name, (status, operator), on_device))
    assert not disagree, disagree[:20]
    accepted = sum(status == "EM_OK" for status, _ in host)
    assert 0 < accepted < len(programs), (accepted, len(programs))  # both verdicts are exercised
