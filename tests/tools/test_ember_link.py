"""The serial link (apps/common/firmware/em_link.c ↔ tools/ember_link.py) against serving firmware
in QEMU over a TCP socket UART and natively over pipes: requests give the reference's bytes; bad
frames get named ERROR frames and the device keeps serving; a host that vanishes mid-frame does
not hang it; random and corrupted frames for a bounded time leave it answering correctly; noise
that leaves a partial frame at either end is recovered from by the Link's resynchronisation; a
RUN after a RUN with no SET_INPUT is refused by name where the plan reused the input's bytes; a
stateless program answers RESET_STATE with 0 and lists no state. (State over the link:
test_link_state.py.) The Link's retries and its messages are also checked on the host tier against FakeDevice (em_link.c's
receiver in Python) and ports that stay silent or send no frames."""
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
from tools.ember_link import (ERROR, GET_OUTPUT, GET_TENSOR, INFO, REPLY, RUN, SET_INPUT, SHUTDOWN, DeviceError,
                               FrameError, Link, LinkError, LinkTimeout, frame, serve)
from ember_build.paths import BUILD_ROOT
from tests.tools.ports import CutOnce

qemu = pytest.mark.qemu  # builds Arm firmware / runs it in QEMU (tests/tiers.py); the fakes' tests do not

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


@qemu
@pytest.mark.parametrize("board", ["corstone300", "host"])
def test_requests_reproduce_the_reference(firmware, expected, board):
    with serve(load_board(board), firmware[board]) as link:
        info = link.info()
        assert info.app == "anomaly" and info.tier == ("mve" if board == "corstone300" else "scalar")
        assert [t.shape for t in info.inputs] == [(1, 3072)] and info.inputs[0].dtype == np.int16
        assert info.arena_bytes[0] > 0 and info.max_payload == 4096 and not info.has_profile
        program = (BUILD_ROOT / f"{board}/anomaly/gen/program.embr").read_bytes()
        assert info.program_id == zlib.crc32(program) and info.program_bytes == len(program)
        assert info.state == [] and info.state_bytes == 0
        for i in range(len(expected[0])):
            _check_inference(link, expected, i)
        assert link.reset_state() == 0  # no state: nothing to reset, not an error
        assert link.output(0).shape == (1, 640)
        link.shutdown()


@qemu
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


@qemu
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


@qemu
def test_random_and_corrupted_frames_then_a_correct_answer(firmware, expected):
    rng = random.Random(1234)
    inputs = expected[0]
    valid = [frame(INFO, 1), frame(RUN, 2, struct.pack("<I", 77)), frame(SET_INPUT, 3, struct.pack("<BI", 0, 0) + inputs[0].tobytes()[:1000])]
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
            link.port.read(4096)  # keep the device's replies from filling the socket
        assert sent > 1000
        time.sleep(2.5)  # past the device's per-byte timeout: any half frame is abandoned
        link.port.reset_input_buffer()
        link._pending = b""
        assert link.info() == info
        _check_inference(link, expected, 1)
        link.shutdown()


def header_claiming(length: int, seq: int = 0x33, kind: int = INFO) -> bytes:
    """A burst of noise that looks like the start of a frame of `length` payload bytes."""
    return b"\xa5\x5a" + struct.pack("<BBI", kind, seq, length)


@qemu
@pytest.mark.parametrize("board", ["corstone300", "host"])
def test_noise_that_leaves_a_partial_frame_either_way_is_recovered_from(firmware, expected, board):
    with serve(load_board(board), firmware[board]) as link:
        link.timeout = 2.0
        # To the device: a burst that looks like a header of 100 bytes takes the request into its
        # payload; the device waits for the rest, then drops it and reports the burst's seq.
        link.port.write(header_claiming(100))
        assert link.info().app == "anomaly"
        # To the host: a reply that loses 5 bytes leaves the Link waiting for them.
        link.port = CutOnce(link.port, 20, 5)
        assert link.info().app == "anomaly"
        # A RUN whose reply is cut is sent again, and answered from the device's memory of it.
        inputs, outputs = expected
        link.set_input(0, inputs[0])
        link.port = CutOnce(link.port.port, 3, 2)
        assert link.run() > 0
        assert link.output_bytes(0) == outputs[0].tobytes()
        link.port = link.port.port
        link.shutdown()


@qemu
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
        with Link.open(f"socket://127.0.0.1:{server.getsockname()[1]}", timeout=0.5, retries=1) as link:
            with pytest.raises(LinkTimeout, match=r"INFO: nothing at all arrived in 2 attempts of 0\.5 s: "
                                                  r"is the serving firmware .* running"):
                link.info()
    with pytest.raises(LinkError, match="cannot open"):
        Link.open("/dev/ttyEMBER_NOT_THERE")


# ---- the Link's retries and messages on the host tier, against a device in Python ----

class FakeDevice:
    """em_link.c's receiver and a few of its requests, in Python, as the port a Link reads and
    writes. It hunts for the sync pair; a frame whose next byte takes longer than `byte_timeout`
    is dropped with ERROR TRUNCATED, one with a bad CRC with ERROR BAD_CRC. Requests: INFO (an int8
    input and output of SIZE bytes, protocol `version`), SET_INPUT, RUN (the output is the input
    plus one; the run overwrites the input, as a program whose plan reuses the input's bytes does,
    and a RUN before the next SET_INPUT is refused with ERROR INPUT_CONSUMED, as em_link.c does; a
    RUN with the last run's number is answered from memory, `runs` counts the real ones),
    GET_OUTPUT, SHUTDOWN (then silence). Line noise: `to_device` and `to_host` hold functions that change the
    next writes (one request frame, or the Link's filler, each) and the next frames sent."""

    MAX_PAYLOAD, SIZE = 64, 16

    def __init__(self, byte_timeout: float = 0.3, version: int = 2) -> None:
        self.byte_timeout, self.version = byte_timeout, version
        self.runs, self.last_run = 0, None
        self.to_device: list = []
        self.to_host: list = []
        self.answered: list[int] = []  # the types of the requests it answered
        self.errors: list[str] = []  # the ERROR frames it sent
        self.frame = bytearray()  # the frame being received, from its sync pair on
        self.previous, self.last = -1, 0.0
        self.out = bytearray()
        self.input, self.output = bytearray(self.SIZE), bytearray(self.SIZE)
        self.consumed = self.exited = False

    # the port
    def write(self, data: bytes) -> int:
        raw = self.to_device.pop(0)(data) if self.to_device else data
        for byte in raw:
            self._tick()
            self._byte(byte)
        return len(data)

    def read(self, n: int) -> bytes:
        self._tick()
        if not self.out:
            time.sleep(0.01)
            self._tick()
        data, self.out = bytes(self.out[:n]), self.out[n:]
        return data

    def close(self) -> None:
        pass

    # the device
    def _tick(self) -> None:
        if self.frame and time.monotonic() - self.last > self.byte_timeout:
            head = self.frame[2:]
            self._error(3, head[0] if head else 0, head[1] if len(head) > 1 else 0)  # TRUNCATED
            self.frame = bytearray()

    def _byte(self, byte: int) -> None:
        if self.exited:
            return
        self.last = time.monotonic()
        if not self.frame:
            if self.previous == 0xA5 and byte == 0x5A:
                self.frame, self.previous = bytearray(b"\xa5\x5a"), -1
            else:
                self.previous = byte
            return
        self.frame.append(byte)
        if len(self.frame) < 8:
            return
        kind, seq, length = struct.unpack_from("<BBI", self.frame, 2)
        assert length <= self.MAX_PAYLOAD, "the tests' noise claims short frames only"
        if len(self.frame) == 12 + length:
            body, (crc,) = bytes(self.frame[2:8 + length]), struct.unpack_from("<I", self.frame, 8 + length)
            self.frame = bytearray()
            if zlib.crc32(body) != crc:
                self._error(1, kind, seq)  # BAD_CRC
            else:
                self._request(kind, seq, body[6:])

    def _send(self, data: bytes) -> None:
        self.out += self.to_host.pop(0)(data) if self.to_host else data

    def _error(self, code: int, kind: int, seq: int) -> None:
        self.errors.append({1: "BAD_CRC", 3: "TRUNCATED", 4: "UNKNOWN_TYPE", 5: "BAD_REQUEST", 8: "INPUT_CONSUMED"}[code])
        self._send(frame(ERROR, seq, bytes([code, kind]) + b"fake"))

    def _request(self, kind: int, seq: int, payload: bytes) -> None:
        reply = b""
        if kind == INFO:
            tensor = struct.pack("<BBIfi2i", 0, 2, self.SIZE, 1.0, 0, 1, self.SIZE)
            reply = (struct.pack("<HBBBBIIII", self.version, 0, 1, 1, 1, self.MAX_PAYLOAD, 100, 0xC0FFEE, 256)
                     + tensor + tensor + b"\x04fake\x06cycles\x00" + b"\0\0\0\0" * (self.version > 1))
        elif kind == SET_INPUT:
            offset = struct.unpack_from("<I", payload, 1)[0]
            if payload[0] != 0 or offset + len(payload) - 5 > self.SIZE:
                return self._error(5, kind, seq)
            self.input[offset:offset + len(payload) - 5] = payload[5:]
            self.consumed, self.last_run = False, None
        elif kind == RUN:
            if len(payload) != 4:
                return self._error(5, kind, seq)
            if payload != self.last_run:
                if self.consumed:
                    return self._error(8, kind, seq)
                self.output = bytearray((b + 1) & 0xFF for b in self.input)
                self.input, self.consumed = bytearray(self.SIZE), True  # the run overwrote it
                self.runs, self.last_run = self.runs + 1, payload
            reply = struct.pack("<Q", 1234)
        elif kind == GET_OUTPUT:
            _, offset, length = struct.unpack("<BII", payload)
            reply = bytes(self.output[offset:offset + length])
        elif kind != SHUTDOWN:
            return self._error(4, kind, seq)
        self.answered.append(kind)
        self._send(frame(kind | REPLY, seq, reply))
        self.exited = kind == SHUTDOWN


class SilentPort:
    """A dead firmware: takes everything, answers nothing."""

    def write(self, data: bytes) -> int:
        return len(data)

    def read(self, n: int) -> bytes:
        time.sleep(0.01)
        return b""

    def close(self) -> None:
        pass


class TextPort(SilentPort):
    """Another firmware on the port: it prints console lines, no frames."""

    def read(self, n: int) -> bytes:
        time.sleep(0.01)
        return b"EM verdict vector=0 score=12 anomalous=0\r\n"[:n]


def _cut(data: bytes) -> bytes:
    return data[:-3]


def _bad_crc(data: bytes) -> bytes:
    return data[:-1] + bytes([data[-1] ^ 0x40])


def test_noise_before_a_request_leaves_the_device_mid_frame_and_the_link_resynchronises():
    device = FakeDevice()
    device.to_device.append(lambda request: header_claiming(40) + request)  # the request goes into its payload
    assert Link(device, timeout=0.5).info().app == "fake"
    assert device.answered == [INFO] and device.errors == ["TRUNCATED"]  # the burst's frame, dropped


def test_a_request_cut_short_is_completed_by_the_filler_when_the_device_waits_longer():
    device = FakeDevice(byte_timeout=30.0)  # the device would wait 30 s for the rest: the Link does not
    device.to_device.append(lambda request: request[:-4])  # its CRC lost on the way
    start = time.monotonic()
    assert Link(device, timeout=0.3, retries=1).info().app == "fake"
    assert device.errors == ["BAD_CRC"]  # the zeros completed the cut frame: the device dropped it
    assert time.monotonic() - start < 5


@pytest.mark.parametrize("noise", [_cut, lambda reply: header_claiming(5000, 1, INFO | REPLY) + reply],
                         ids=["reply cut short", "noise before the reply claims a long frame"])
def test_a_reply_that_leaves_the_host_mid_frame_is_asked_for_again(noise):
    device = FakeDevice()
    device.to_host.append(noise)
    assert Link(device, timeout=0.5).info().app == "fake"
    assert device.answered == [INFO, INFO]


def test_a_run_whose_reply_was_lost_is_sent_again_alone_and_runs_once():
    device = FakeDevice()
    link = Link(device, timeout=0.5)
    x = np.arange(-8, 8, dtype=np.int8).reshape(1, 16)
    link.set_input(0, x)
    device.to_host.append(_cut)
    assert link.run() == 1234
    assert device.answered == [INFO, SET_INPUT, RUN, RUN] and device.errors == []  # no input rewritten
    assert device.runs == 1  # the resend carried the same run number: answered from memory
    assert np.array_equal(link.output(0), x + np.int8(1))
    with pytest.raises(DeviceError, match="INPUT_CONSUMED"):  # a RUN the host asked twice: not hidden
        link.run()
    link.set_input(0, x)
    device.to_device.append(lambda request: request[:-4])  # this time the RUN is lost on its way
    assert link.run() == 1234 and device.runs == 2  # never ran: the resend runs it


def test_a_device_of_another_protocol_is_named_before_its_info_is_read():
    with pytest.raises(LinkError, match="device speaks link protocol 1, this tool 2: rebuild the firmware"):
        Link(FakeDevice(version=1), timeout=0.5).info()


def test_a_shutdown_whose_reply_was_cut_is_done():
    device = FakeDevice()
    link = Link(device, timeout=0.3)
    device.to_host.append(_cut)
    link.shutdown()
    assert device.exited and device.answered == [SHUTDOWN]  # not sent again to a firmware that exited


def test_a_dead_firmware_is_named_only_when_nothing_at_all_arrived():
    start = time.monotonic()
    with pytest.raises(LinkTimeout, match=r"^INFO: nothing at all arrived in 3 attempts of 0\.2 s: "
                                          r"is the serving firmware \(`scons app=<app> serve=1`\) running") as caught:
        Link(SilentPort(), timeout=0.2).info()
    assert [h.nothing for h in caught.value.heard] == [True, True, True]
    assert time.monotonic() - start < 3


@pytest.mark.parametrize("port,error,says", [
    (lambda device: device.to_host.extend([_cut] * 20), LinkTimeout,
     r"attempt 1: \d+ bytes: a partial frame \(\d+ of its \d+ bytes, type 0x81, seq 1\).*line noise"),
    (lambda device: device.to_host.extend([_bad_crc] * 20), FrameError,
     r"attempt 1: \d+ bytes: a frame with a bad CRC \(\d+ bytes of payload\).*attempt 3.*line noise"),
    (lambda device: TextPort(), LinkTimeout,
     r"only bytes that hold no frame \(attempt 1: \d+ bytes: \d+ bytes of noise.*another firmware"),
], ids=["replies always cut", "replies always damaged", "another firmware's text"])
def test_what_the_attempts_saw_is_named(port, error, says):
    device = FakeDevice()
    link = Link(port(device) or device, timeout=0.3)
    with pytest.raises(error, match=says) as caught:
        link.info()
    assert "is the serving firmware" not in str(caught.value) and "3 attempts" in str(caught.value)


def test_retries_and_timeout_are_the_links_arguments():
    device = FakeDevice()
    device.to_host.extend([_cut] * 5)
    with pytest.raises(LinkTimeout, match=r"INFO: .* in 1 attempt of 0\.2 s"):
        Link(device, timeout=0.2, retries=0).info()
    assert device.answered == [INFO]
    with pytest.raises(ValueError, match="retries"):
        Link(device, retries=-1)


# ---- consumed inputs: every RUN reads what SET_INPUT wrote, or is refused by name ----

REPEATS = 100


def _program_keeps_its_input(board: str) -> bool:
    from compiler.schema import program_generated as fb

    program = fb.Program.GetRootAs((BUILD_ROOT / f"{board}/anomaly/gen/program.embr").read_bytes(), 0)
    return bool(program.InputsKeptLength()) and bool(program.InputsKept(0))


@qemu
@pytest.mark.parametrize("board", ["corstone300", "host"])
def test_a_run_reads_a_fresh_input_or_is_refused(firmware, expected, board):
    """100 RUNs after one SET_INPUT: each refused with INPUT_CONSUMED (the plan reuses the input's
    bytes: Program.inputs_kept), or, for an input the plan keeps, each the same answer; then 100
    SET_INPUT + RUN rounds all match."""
    inputs, outputs = expected
    kept = _program_keeps_its_input(board)
    with serve(load_board(board), firmware[board]) as link:
        _check_inference(link, expected)
        for _ in range(REPEATS):  # no SET_INPUT in between
            if kept:
                link.run()
                assert link.output_bytes(0) == outputs[0].tobytes()
                continue
            with pytest.raises(DeviceError) as refused:
                link.run()
            assert refused.value.name == "INPUT_CONSUMED" and "input 0 was overwritten by the last RUN" in str(refused.value)
        if not kept:
            with pytest.raises(DeviceError, match="INPUT_CONSUMED"):
                link.run_to(1)
            assert link.output_bytes(0) == outputs[0].tobytes()  # a refused RUN touched nothing
            # one chunk of the input is not a fresh input
            link.request(SET_INPUT, bytes([0]) + (0).to_bytes(4, "little") + inputs[1].tobytes()[:1024])
            with pytest.raises(DeviceError, match="INPUT_CONSUMED"):
                link.run()
        for k in range(REPEATS):
            _check_inference(link, expected, k % len(inputs))
        link.shutdown()
