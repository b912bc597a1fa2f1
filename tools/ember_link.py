"""The host side of Ember's serial link (protocol: apps/common/firmware/em_link.h).

    link = Link.open("socket://127.0.0.1:4000")      # QEMU's UART on a TCP socket
    link = Link.open("/dev/ttyACM0")                 # a real board (115200 8N1)
    info = link.info()
    link.set_input(0, image)                         # numpy array or bytes, chunked as needed
    instructions = link.run()
    scores = link.output(0)                          # numpy array of the tensor's dtype and shape

`serve(board, elf)` starts a serving firmware in QEMU with its UART on a free TCP port (or the
host build on pipes) and yields a connected Link. Every wait has a timeout: a device that stops
answering raises LinkTimeout, a refused request DeviceError (its code and message), a reply that
fails its CRC FrameError. pyserial opens the port (it knows both device paths and `socket://`).

    python -m tools.ember_link URL                   # prints the device's INFO
"""
from __future__ import annotations

import argparse
import contextlib
import os
import select
import signal
import socket
import struct
import subprocess
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from compiler.target import Tier

SYNC = b"\xa5\x5a"
PROTOCOL_VERSION = 1
REPLY, ERROR = 0x80, 0x7F
INFO, SET_INPUT, RUN, GET_OUTPUT, GET_PROFILE, GET_RESULT, SHUTDOWN, RUN_TO, GET_TENSOR = range(1, 10)
REQUEST_NAMES = {INFO: "INFO", SET_INPUT: "SET_INPUT", RUN: "RUN", GET_OUTPUT: "GET_OUTPUT",
                 GET_PROFILE: "GET_PROFILE", GET_RESULT: "GET_RESULT", SHUTDOWN: "SHUTDOWN",
                 RUN_TO: "RUN_TO", GET_TENSOR: "GET_TENSOR"}
ERROR_NAMES = {1: "BAD_CRC", 2: "TOO_LONG", 3: "TRUNCATED", 4: "UNKNOWN_TYPE", 5: "BAD_REQUEST",
               6: "RUNTIME", 7: "NOT_AVAILABLE"}
DTYPES = {0: np.int8, 1: np.int32, 2: np.float32, 3: np.int16}
TIERS = {t.number: str(t) for t in Tier}  # the INFO reply's tier byte: the schema's Tier
MAX_REPLY = 64 << 20  # a longer length field is garbage, not a reply
BAUD = 115200
RETRIES = 2  # resends of a request damaged on the way


class LinkError(Exception):
    """Anything that went wrong talking to the device; the subclasses say what."""


class LinkTimeout(LinkError):
    """The device did not answer in time (not running the serving firmware, or hung)."""


class FrameError(LinkError):
    """A reply arrived damaged (CRC mismatch or an impossible length)."""


class DeviceError(LinkError):
    """The device refused a request with an ERROR frame."""

    def __init__(self, code: int, request: int, message: str) -> None:
        self.code, self.request, self.message = code, request, message
        self.name = ERROR_NAMES.get(code, f"error {code}")
        super().__init__(f"device refused {REQUEST_NAMES.get(request, hex(request))}: {self.name}: {message}")


def frame(kind: int, seq: int, payload: bytes = b"") -> bytes:
    """One frame: sync, type, seq, u32 length, payload, CRC-32 of everything after the sync."""
    body = struct.pack("<BBI", kind, seq & 0xFF, len(payload)) + payload
    return SYNC + body + struct.pack("<I", zlib.crc32(body))


@dataclass(frozen=True)
class TensorInfo:
    dtype: type
    shape: tuple[int, ...]
    bytes: int
    scale: float
    zero_point: int


@dataclass(frozen=True)
class DeviceInfo:
    version: int
    tier: str
    inputs: list[TensorInfo]
    outputs: list[TensorInfo]
    arena_bytes: list[int]
    max_payload: int
    program_bytes: int
    program_id: int  # CRC-32 of the program file
    app: str
    counter_unit: str
    has_profile: bool
    has_result: bool


@dataclass(frozen=True)
class ProfileEntry:
    opcode: int
    name: str
    count: int


def _parse_info(data: bytes) -> DeviceInfo:
    version, tier, n_in, n_out, n_arenas, max_payload, program_bytes, program_id = struct.unpack_from("<HBBBBIII", data)
    at = 18
    arenas = list(struct.unpack_from(f"<{n_arenas}I", data, at))
    at += 4 * n_arenas
    tensors = []
    for _ in range(n_in + n_out):
        dtype, rank, size, scale, zero_point = struct.unpack_from("<BBIfi", data, at)
        at += 14
        shape = struct.unpack_from(f"<{rank}i", data, at)
        at += 4 * rank
        tensors.append(TensorInfo(DTYPES.get(dtype, np.uint8), tuple(shape), size, scale, zero_point))
    texts = []
    for _ in range(2):
        n = data[at]
        texts.append(data[at + 1:at + 1 + n].decode("utf-8", "replace"))
        at += 1 + n
    flags = data[at]
    return DeviceInfo(version, TIERS.get(tier, str(tier)), tensors[:n_in], tensors[n_in:], arenas, max_payload,
                      program_bytes, program_id, texts[0], texts[1], bool(flags & 1), bool(flags & 2))


class PipePort:
    """The host build's console (stdin/stdout of a child process) with pyserial's read/write."""

    def __init__(self, process: subprocess.Popen, timeout: float) -> None:
        self.process, self.timeout = process, timeout

    def write(self, data: bytes) -> int:
        self.process.stdin.write(data)
        self.process.stdin.flush()
        return len(data)

    def read(self, n: int) -> bytes:
        ready, _, _ = select.select([self.process.stdout], [], [], self.timeout)
        return os.read(self.process.stdout.fileno(), n) if ready else b""

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.process.stdin.close()


class Link:
    """Requests to a device running a serving firmware (`scons app=<app> serve=1`)."""

    def __init__(self, port, timeout: float = 10.0, url: str = "") -> None:
        self.port, self.timeout, self.url = port, timeout, url
        self._seq = 0
        self._pending = b""
        self._info: DeviceInfo | None = None

    @classmethod
    def open(cls, url: str, timeout: float = 10.0) -> "Link":
        """A serial device path or any pyserial URL (`socket://host:port`, `loop://`)."""
        import serial

        try:
            port = serial.serial_for_url(url, baudrate=BAUD, timeout=0.05)
        except (serial.SerialException, ValueError) as error:
            raise LinkError(f"cannot open {url}: {error}") from error
        return cls(port, timeout, url)

    def close(self) -> None:
        self.port.close()

    def __enter__(self) -> "Link":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---- frames ----

    def _read(self, n: int, deadline: float) -> bytes:
        while len(self._pending) < n:
            if time.monotonic() > deadline:
                raise LinkTimeout(f"no complete reply within {self.timeout:.1f} s: is the serving firmware "
                                  "(`scons app=<app> serve=1`) running on the other end?")
            self._pending += self.port.read(max(1, n - len(self._pending)))
        data, self._pending = self._pending[:n], self._pending[n:]
        return data

    def _receive(self, deadline: float) -> tuple[int, int, bytes]:
        """The next whole frame (type, seq, payload), skipping bytes until a sync pair."""
        previous = b""
        while True:
            byte = self._read(1, deadline)
            if previous == SYNC[:1] and byte == SYNC[1:]:
                break
            previous = byte
        head = self._read(6, deadline)
        kind, seq, length = struct.unpack("<BBI", head)
        if length > MAX_REPLY:
            raise FrameError(f"reply length {length} is impossible: the line is corrupt")
        payload = self._read(length, deadline)
        (crc,) = struct.unpack("<I", self._read(4, deadline))
        if zlib.crc32(head + payload) != crc:
            raise FrameError(f"reply to seq {seq} failed its CRC")
        return kind, seq, payload

    def request(self, kind: int, payload: bytes = b"", timeout: float | None = None) -> bytes:
        """Sends one request and returns its reply's payload. Replies to older requests (errors
        about a frame abandoned earlier) are skipped; a request damaged on the way (the device
        answers BAD_CRC or TRUNCATED) or a damaged reply is sent again, RETRIES times at most:
        every request is idempotent."""
        for attempt in range(RETRIES + 1):
            try:
                return self._exchange(kind, payload, timeout)
            except DeviceError as error:
                if error.name not in ("BAD_CRC", "TRUNCATED") or attempt == RETRIES:
                    raise
            except FrameError:
                if attempt == RETRIES:
                    raise
        raise AssertionError("unreachable")

    def _exchange(self, kind: int, payload: bytes, timeout: float | None) -> bytes:
        self._seq = (self._seq + 1) & 0xFF
        seq = self._seq
        self.port.write(frame(kind, seq, payload))
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            got, got_seq, data = self._receive(deadline)
            if got_seq != seq:
                continue
            if got == ERROR:
                raise DeviceError(data[0] if data else 0, data[1] if len(data) > 1 else kind,
                                  data[2:].decode("utf-8", "replace"))
            if got != kind | REPLY:
                raise FrameError(f"request {REQUEST_NAMES.get(kind)} got a reply of type {got:#x}")
            return data

    # ---- requests ----

    def info(self) -> DeviceInfo:
        info = _parse_info(self.request(INFO))
        if info.version != PROTOCOL_VERSION:
            raise LinkError(f"device speaks link protocol {info.version}, this tool {PROTOCOL_VERSION}: "
                            "rebuild the firmware or update the tool")
        self._info = info
        return info

    def _tensors(self) -> DeviceInfo:
        return self._info or self.info()

    def set_input(self, index: int, data: bytes | np.ndarray) -> None:
        """Writes input `index` whole (an array is checked against its dtype and size)."""
        info = self._tensors()
        if not 0 <= index < len(info.inputs):
            raise LinkError(f"input {index} does not exist: the program has {len(info.inputs)}")
        tensor = info.inputs[index]
        if isinstance(data, np.ndarray):
            if data.dtype != tensor.dtype:
                raise LinkError(f"input {index} is {np.dtype(tensor.dtype).name}, got {data.dtype}")
            data = np.ascontiguousarray(data).tobytes()
        if len(data) != tensor.bytes:
            raise LinkError(f"input {index} takes {tensor.bytes} bytes {list(tensor.shape)}, got {len(data)}")
        chunk = info.max_payload - 5
        for offset in range(0, len(data), chunk):
            self.request(SET_INPUT, struct.pack("<BI", index, offset) + data[offset:offset + chunk])

    def run(self, timeout: float | None = None) -> int:
        """Runs one inference; returns its counter units (INFO's counter_unit)."""
        return struct.unpack("<Q", self.request(RUN, timeout=timeout))[0]

    def output_bytes(self, index: int) -> bytes:
        info = self._tensors()
        if not 0 <= index < len(info.outputs):
            raise LinkError(f"output {index} does not exist: the program has {len(info.outputs)}")
        size, chunk, parts = info.outputs[index].bytes, info.max_payload, []
        for offset in range(0, size, chunk):
            parts.append(self.request(GET_OUTPUT, struct.pack("<BII", index, offset, min(chunk, size - offset))))
        return b"".join(parts)

    def output(self, index: int) -> np.ndarray:
        tensor = self._tensors().outputs[index]
        return np.frombuffer(self.output_bytes(index), tensor.dtype).reshape(tensor.shape)

    def run_to(self, operators: int, timeout: float | None = None) -> int:
        """Runs operators 0..operators-1 only (their outputs stay readable by tensor())."""
        return struct.unpack("<Q", self.request(RUN_TO, struct.pack("<I", operators), timeout=timeout))[0]

    def tensor(self, index: int, size: int) -> bytes:
        """`size` bytes of tensor `index` (the program file's numbering), in chunks."""
        chunk, parts = self._tensors().max_payload, []
        for offset in range(0, size, chunk):
            parts.append(self.request(GET_TENSOR, struct.pack("<III", index, offset, min(chunk, size - offset))))
        return b"".join(parts)

    def profile(self) -> list[ProfileEntry]:
        """Counter units per operator of the last run (firmware built with profile=1)."""
        data = self.request(GET_PROFILE)
        (n,), at, entries = struct.unpack_from("<I", data), 4, []
        for _ in range(n):
            opcode, count, length = struct.unpack_from("<HQB", data, at)
            entries.append(ProfileEntry(opcode, data[at + 11:at + 11 + length].decode(), count))
            at += 11 + length
        return entries

    def result(self) -> bytes:
        """The app's post-processing of the last run (boxes, a keyword …), in the app's format."""
        return self.request(GET_RESULT)

    def shutdown(self, status: int = 0) -> None:
        """Ends the serving firmware (QEMU exits with `status`)."""
        self.request(SHUTDOWN, struct.pack("<i", status))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve(board, elf: Path | str, timeout: float = 30.0) -> Iterator[Link]:
    """Starts the serving firmware `elf` for `board` (an ember_build Board: QEMU with its UART on
    a TCP socket, or the host build on pipes), yields a Link to it, and stops it afterwards."""
    from ember_build.qemu import emulator_command

    if board.emulator is None:
        process = subprocess.Popen([str(elf)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True)
        link = Link(PipePort(process, 0.05), timeout, "pipe")
    else:
        port = _free_port()
        url = f"socket://127.0.0.1:{port}"
        process = subprocess.Popen(emulator_command(board, elf, serial=f"tcp:127.0.0.1:{port},server=on,wait=on"),
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                   start_new_session=True)
        link = None
        deadline = time.monotonic() + timeout
        while link is None:  # QEMU listens a moment after it starts
            try:
                link = Link.open(url, timeout)
            except LinkError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise LinkError(f"QEMU did not open {url}: {process.stderr.read().decode(errors='replace')[-500:]}")
                time.sleep(0.1)
    try:
        yield link
    finally:
        link.close()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def add_device_arguments(parser: argparse.ArgumentParser, board_help: str) -> None:
    """The options of a tool that talks to a serving firmware: --port (a real board's serial port
    or any pyserial URL) or --board (whose serving firmware serve() starts), with --tier and --elf
    (what SCons passes when it runs the tool for a build: see site_scons/site_tools/ember_app.py)."""
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--port", help="a real board's serial port (or any pyserial URL) running the serving firmware")
    where.add_argument("--board", help=board_help)
    parser.add_argument("--tier", default="", help="with --board: the tier the firmware was built for (scons tier=)")
    parser.add_argument("--elf", type=Path, help="with --board: the serving firmware (default: the build's)")


def board_of(args: argparse.Namespace):
    """The ember_build Board of --board and --tier."""
    from ember_build.board import load_board

    return load_board(args.board).for_tier(args.tier)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("url", help="serial device (/dev/ttyACM0) or pyserial URL (socket://127.0.0.1:4000)")
    parser.add_argument("--timeout", type=float, default=10.0)
    args = parser.parse_args()
    with Link.open(args.url, args.timeout) as link:
        info = link.info()
        print(f"{info.app}: tier {info.tier}, program {info.program_bytes} B (id {info.program_id:08x}), "
              f"arenas {info.arena_bytes}, counter {info.counter_unit}, max payload {info.max_payload}")
        for kind, tensors in (("input", info.inputs), ("output", info.outputs)):
            for i, t in enumerate(tensors):
                print(f"  {kind} {i}: {np.dtype(t.dtype).name}{list(t.shape)} scale {t.scale:g} zero point {t.zero_point}")


if __name__ == "__main__":
    main()
