"""The serial link (apps/common/firmware/em_link.c ↔ tools/ember_link.py) against serving firmware
in QEMU over a TCP socket UART and natively over pipes: requests give the reference's bytes; bad
frames get named ERROR frames and the device keeps serving; a host that vanishes mid-frame does
not hang it; random and corrupted frames for a bounded time leave it answering correctly."""
from __future__ import annotations

import json
import random
import socket
import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path

import numpy as np
import pytest

from ember_build.board import load_board
from tools.ember_link import (GET_TENSOR, INFO, RUN, SET_INPUT, DeviceError, Link, LinkError, LinkTimeout, frame, serve)
from ember_build.paths import BUILD_ROOT

pytestmark = pytest.mark.qemu  # builds Arm firmware / runs it in QEMU (tests/tiers.py)

REPO = Path(__file__).resolve().parents[2]
SCONS = Path(sys.executable).with_name("scons")
FUZZ_SECONDS = 6.0


def _build(*args: str) -> None:
    run = subprocess.run([str(SCONS), "app=anomaly", "serve=1", *args], cwd=REPO, capture_output=True, text=True,
                         timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]


@pytest.fixture(scope="module")
def firmware() -> dict[str, Path]:
    _build("board=corstone300")
    _build("board=host")
    return {"corstone300": BUILD_ROOT / "corstone300/anomaly/serve/firmware.elf",
            "host": BUILD_ROOT / "host/anomaly/serve/firmware"}


@pytest.fixture(scope="module")
def expected() -> tuple[np.ndarray, np.ndarray]:
    data = np.load(BUILD_ROOT / "corstone300/anomaly/gen/expected.npz")
    return data["inputs"], data["outputs"]  # int16 audio windows: the program starts with the log-mel front end


def _check_inference(link: Link, expected, index: int = 0) -> None:
    inputs, outputs = expected
    link.set_input(0, inputs[index])
    assert link.run() > 0
    assert link.output_bytes(0) == outputs[index].tobytes()


@pytest.mark.parametrize("board", ["corstone300", "host"])
def test_requests_reproduce_the_reference(firmware, expected, board):
    with serve(load_board(board), firmware[board]) as link:
        info = link.info()
        assert info.app == "anomaly" and info.tier == ("mve" if board == "corstone300" else "scalar")
        assert [t.shape for t in info.inputs] == [(1, 3072)] and info.inputs[0].dtype == np.int16
        assert info.arena_bytes[0] > 0 and info.max_payload == 4096 and not info.has_profile
        program = (BUILD_ROOT / f"{board}/anomaly/gen/program.embr").read_bytes()
        assert info.program_id == zlib.crc32(program) and info.program_bytes == len(program)
        for i in range(len(expected[0])):
            _check_inference(link, expected, i)
        assert link.output(0).shape == (1, 640)
        link.shutdown()


def test_bad_frames_get_named_errors_and_the_device_keeps_serving(firmware, expected):
    with serve(load_board("corstone300"), firmware["corstone300"]) as link:
        info = link.info()
        good = frame(INFO, 200)

        def error_of(raw: bytes, seq: int) -> DeviceError:
            link.port.write(raw)
            with pytest.raises(DeviceError) as caught:
                while True:  # the ERROR frame for `seq`
                    kind, got_seq, data = link._receive(time.monotonic() + 10)
                    if got_seq == seq and kind == 0x7F:
                        raise DeviceError(data[0], data[1], data[2:].decode())
            return caught.value

        corrupt = bytearray(good)
        corrupt[-1] ^= 0x40  # the CRC itself
        assert error_of(bytes(corrupt), 200).name == "BAD_CRC"
        oversized = b"\xa5\x5a" + struct.pack("<BBI", INFO, 201, info.max_payload + 1)
        assert error_of(oversized, 201).name == "TOO_LONG"
        assert error_of(frame(0x33, 202), 202).name == "UNKNOWN_TYPE"
        assert error_of(good[:9], 200).name == "TRUNCATED"  # then silence: the device gives up on it
        with pytest.raises(DeviceError, match="BAD_REQUEST: no such input index"):
            link.request(SET_INPUT, struct.pack("<BI", 7, 0) + b"\0" * 4)
        with pytest.raises(DeviceError, match="BAD_REQUEST: offset"):
            link.request(SET_INPUT, struct.pack("<BI", 0, 6143) + b"\0" * 2)
        with pytest.raises(DeviceError, match="NOT_AVAILABLE: this app has no post-processing"):
            link.result()
        with pytest.raises(DeviceError, match="NOT_AVAILABLE: .*profile=1"):
            link.profile()
        with pytest.raises(DeviceError, match="BAD_REQUEST: operator count past"):
            link.run_to(16)  # the program has 15 operators (front end, quantize, 10 dense, sub, dequantize)
        with pytest.raises(DeviceError, match="BAD_REQUEST: no such tensor index"):
            link.tensor(10_000, 4)
        with pytest.raises(DeviceError, match="BAD_REQUEST: offset"):
            link.request(GET_TENSOR, struct.pack("<III", 0, 0, 1 << 20))
        with pytest.raises(LinkError, match="takes 6144 bytes"):
            link.set_input(0, b"\0" * 10)
        link.port.write(b"noise \x5a between frames \xa5")  # skipped while hunting for the sync pair
        _check_inference(link, expected)
        link.shutdown()


def test_a_host_that_vanishes_mid_frame_does_not_hang_the_device(firmware, expected):
    board = load_board("corstone300")
    with serve(board, firmware["corstone300"]) as link:
        link.port.write(frame(SET_INPUT, 9, struct.pack("<BI", 0, 0) + b"\0" * 2000)[:700])
        link.port.close()  # gone, mid-frame
        again = Link.open(link.url, timeout=5)
        link.port = again.port  # serve() closes this one at the end
        # The device gives up on the abandoned frame by itself (its per-byte timeout) and answers
        # TRUNCATED, which is lost if it goes out before this host is back (QEMU drops UART output
        # while no client is connected; a real UART sends it to nobody). A request sent before the
        # device gave up lands in the dead frame's payload and goes unanswered, so the new host
        # asks again until the device answers: it must, well within the deadline.
        deadline, answered = time.monotonic() + 60, False
        while not answered and time.monotonic() < deadline:
            try:
                answered = again.info().app == "anomaly"
            except LinkTimeout:
                pass
        assert answered, "the device never answered again after the host vanished mid-frame"
        _check_inference(again, expected)
        again.shutdown()


def test_random_and_corrupted_frames_then_a_correct_answer(firmware, expected):
    rng = random.Random(1234)
    inputs = expected[0]
    valid = [frame(INFO, 1), frame(RUN, 2), frame(SET_INPUT, 3, struct.pack("<BI", 0, 0) + inputs[0].tobytes()[:1000])]
    with serve(load_board("corstone300"), firmware["corstone300"]) as link:
        info = link.info()
        end, sent = time.monotonic() + FUZZ_SECONDS, 0
        while time.monotonic() < end:
            choice = rng.random()
            if choice < 0.3:
                data = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 64)))
            else:
                data = bytearray(rng.choice(valid))
                for _ in range(rng.randint(1, 4)):  # flip, drop or cut
                    at = rng.randrange(len(data))
                    data[at] ^= 1 << rng.randrange(8)
                data = bytes(data[:rng.randint(1, len(data))]) if choice > 0.8 else bytes(data)
            link.port.write(data)
            sent += len(data)
            drained = link.port.read(4096)  # keep the device's replies from filling the socket
            del drained
        assert sent > 1000
        time.sleep(2.5)  # past the device's per-byte timeout: any half frame is abandoned
        link.port.reset_input_buffer()
        link._pending = b""
        assert link.info() == info
        _check_inference(link, expected, 1)
        link.shutdown()


def test_profile_read_back():
    """`scons app=anomaly profile=1 run=1`: the profiling serving firmware in QEMU, read back over
    the link by tools/op_profile.py into profile.json / .md / .png."""
    _build("board=corstone300", "profile=1", "run=1")
    out = BUILD_ROOT / "corstone300-profile/anomaly"
    profile = json.loads((out / "profile.json").read_text())
    from compiler.program import Program

    program = Program.load(out / "gen/program.embr")
    assert [row["op"] for row in profile["layers"]] == [op.kind for op in program.graph.ops]
    assert profile["unit"] == "instructions (QEMU)" and profile["tier"] == "mve"
    assert all(row["count"] > 0 for row in profile["layers"])
    assert 0.9 * profile["total"] < profile["operators_total"] < profile["total"]  # eval() only
    assert abs(sum(row["share"] for row in profile["layers"]) - 1.0) < 1e-9
    fc = [row for row in profile["layers"] if row["op"] == "fully_connected"]
    assert fc[0]["macs"] == 640 * 128 and fc[0]["macs_per_count"] == fc[0]["macs"] / fc[0]["count"]
    assert (out / "profile.png").stat().st_size > 1000
    assert (out / "profile.md").read_text().count("| fully_connected |") == 10


def test_nothing_listening_is_a_timeout_not_a_hang():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        with Link.open(f"socket://127.0.0.1:{server.getsockname()[1]}", timeout=0.5) as link:
            with pytest.raises(LinkTimeout, match="serving firmware"):
                link.info()
    with pytest.raises(LinkError, match="cannot open"):
        Link.open("/dev/ttyEMBER_NOT_THERE")
