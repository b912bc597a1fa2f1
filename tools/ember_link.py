"""The host side of Ember's serial link (protocol: apps/common/firmware/em_link.h).

    link = Link.open("socket://127.0.0.1:4000")      # QEMU's UART on a TCP socket
    link = Link.open("/dev/ttyACM0")                 # a real board (115200 8N1)
    info = link.info()
    link.set_input(0, image)                         # numpy array or bytes, chunked as needed
    instructions = link.run()
    scores = link.output(0)                          # numpy array of the tensor's dtype and shape
    steps = link.run_sequence(frames)                # a program with state: from a reset, one RUN a frame
    link.reset_state()                               # a new sequence starts at the next run()

`serve(board, elf)` starts a serving firmware in QEMU with its UART on a free TCP port (or the
host build on pipes) and yields a connected Link. pyserial opens the port (it knows both device
paths and `socket://`).

Errors and retries. A request the device refuses raises DeviceError (its code and message). A
request that goes wrong on the line is sent again, `retries` times (Link's argument, default
RETRIES), each attempt waiting `timeout` seconds at most (Link's argument; run() and run_to() take
their own): when the device answers that the request arrived damaged (BAD_CRC) or cut (TRUNCATED),
when the reply arrives damaged (FrameError), and when no whole reply arrives in time. Line noise can
leave a partial frame at either end: a burst that looked like a frame header swallows the request
into its payload, or a cut reply leaves this end waiting for bytes that never come. So before it
sends again the Link resynchronises both ends: it sends max_payload + 10 zero bytes, which complete
any frame the device is in the middle of (the device answers it BAD_CRC, or TOO_LONG, and hunts for
the sync pair again; zeros hold no sync pair, so the rest is skipped), then reads and drops what
arrives until the line has been quiet QUIET seconds (DRAIN_MAX seconds at most). (The device also
drops a partial frame by itself, after EM_LINK_BYTE_TIMEOUT_MS without a byte; the zeros make that
unnecessary when this end's timeout is the shorter.) After the last attempt it raises LinkTimeout (or FrameError,
if the last attempt ended in a damaged reply), whose message says what each attempt saw: nothing
at all (only then is the firmware likely not running), bytes that hold no frame (another firmware,
or another baud rate), or frames cut short, damaged or not the reply (line noise).

What is sent again: INFO and the GET_ requests only read; SET_INPUT writes the same bytes again;
RESET_STATE resets again. RUN and RUN_TO must not run again: a second invoke would advance a
program's state twice (and find inputs the first one consumed). Each new run() and run_to() carries
a run number (the Link's, from a random start), and a resend carries the same one, so the device
answers it from its memory of the run that already happened (em_link.h, "Run numbers") or, if the
first never arrived, runs it now; nothing else is sent in between (rewriting the inputs could
overwrite outputs that share their bytes). SHUTDOWN is not sent again once something that may have
been its reply arrived, damaged or cut: the firmware exits right after replying, and shutdown()
takes that as done.

State. A program with persistent tensors (INFO's `state`; README "Models over time") carries
them from one RUN to the next; reset_state() starts again from a real 0, run_sequence(steps) runs
one step after another over one state (from a reset, unless told not to) and returns every
step's outputs, as `run_reference(x, state=d)` does over a sequence and `em_run --invokes N`.

    python -m tools.ember_link URL                   # prints the device's INFO
    python -m tools.ember_link URL --input in.bin --invokes N --output out.bin
                                                     # N RUNs over one state, from a reset: each --input
                                                     # holds N of its input, each --output gets N outputs
"""
from __future__ import annotations

import argparse
import contextlib
import os
import random
import select
import signal
import socket
import struct
import subprocess
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from compiler.target import Tier

SYNC = b"\xa5\x5a"
PROTOCOL_VERSION = 2  # em_link.h EM_LINK_PROTOCOL_VERSION: 2 added run numbers, RESET_STATE, INFO's state
REPLY, ERROR = 0x80, 0x7F
INFO, SET_INPUT, RUN, GET_OUTPUT, GET_PROFILE, GET_RESULT, SHUTDOWN, RUN_TO, GET_TENSOR, RESET_STATE = range(1, 11)
REQUEST_NAMES = {INFO: "INFO", SET_INPUT: "SET_INPUT", RUN: "RUN", GET_OUTPUT: "GET_OUTPUT",
                 GET_PROFILE: "GET_PROFILE", GET_RESULT: "GET_RESULT", SHUTDOWN: "SHUTDOWN",
                 RUN_TO: "RUN_TO", GET_TENSOR: "GET_TENSOR", RESET_STATE: "RESET_STATE"}
ERROR_NAMES = {1: "BAD_CRC", 2: "TOO_LONG", 3: "TRUNCATED", 4: "UNKNOWN_TYPE", 5: "BAD_REQUEST",
               6: "RUNTIME", 7: "NOT_AVAILABLE", 8: "INPUT_CONSUMED", 9: "STATE_STALE"}
DTYPES = {0: np.int8, 1: np.int32, 2: np.float32, 3: np.int16}
TIERS = {t.number: str(t) for t in Tier}  # the INFO reply's tier byte: the schema's Tier
MAX_REPLY = 64 << 20  # a longer length field is garbage, not a reply
BAUD = 115200
RETRIES = 2  # resends of a request after a damaged or lost request or reply
QUIET = 0.25  # s without a byte that ends a resynchronisation's drain
DRAIN_MAX = 2.0  # s a resynchronisation drains at most (a device sending without end: another baud rate)
DEFAULT_MAX_PAYLOAD = 4096  # EM_LINK_MAX_PAYLOAD's default: the filler's size until INFO says the device's


class LinkError(Exception):
    """Anything that went wrong talking to the device; the subclasses say what."""


class LinkTimeout(LinkError):
    """No whole reply arrived in time, in any attempt; `heard` says what each attempt saw."""

    def __init__(self, message: str, heard: list["Heard"] | None = None) -> None:
        super().__init__(message)
        self.heard = heard or []


class FrameError(LinkError):
    """A reply arrived damaged (CRC mismatch or an impossible length); `heard` as LinkTimeout's."""

    def __init__(self, message: str, heard: list["Heard"] | None = None) -> None:
        super().__init__(message)
        self.heard = heard or []


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


def _frame_name(kind: int, seq: int, payload: bytes = b"") -> str:
    if kind == ERROR:
        code = ERROR_NAMES.get(payload[0], f"error {payload[0]}") if payload else "error"
        return f"an ERROR {code} for seq {seq}"
    if kind & REPLY and (kind & ~REPLY) in REQUEST_NAMES:
        return f"a {REQUEST_NAMES[kind & ~REPLY]} reply for seq {seq}"
    return f"a frame of type {kind:#04x} for seq {seq}"


@dataclass
class Heard:
    """What arrived while one attempt of a request waited for its reply, and while the Link
    resynchronised after it: what LinkTimeout's message is made of."""

    bytes: int = 0
    noise: int = 0  # bytes outside any frame
    frames: list[str] = field(default_factory=list)  # whole frames that were not the reply, damaged ones
    partial: str = ""  # the frame cut short when the time was up

    @property
    def nothing(self) -> bool:
        return self.bytes == 0

    @property
    def framed(self) -> bool:
        """Something that looked like a frame arrived (the serving firmware speaks)."""
        return bool(self.frames or self.partial)

    def __str__(self) -> str:
        if self.nothing:
            return "nothing"
        parts = [f"{self.noise} bytes of noise"] if self.noise else []
        parts += self.frames + ([self.partial] if self.partial else [])
        return f"{self.bytes} bytes: " + ", ".join(parts)


@dataclass(frozen=True)
class TensorInfo:
    dtype: type
    shape: tuple[int, ...]
    bytes: int
    scale: float
    zero_point: int


@dataclass(frozen=True)
class StateInfo:
    """A persistent tensor: its index in the program file's numbering (Link.tensor reads it) and its layout."""

    tensor: int
    layout: TensorInfo


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
    state: list[StateInfo] = field(default_factory=list)  # persistent tensors: none for a program without state

    @property
    def state_bytes(self) -> int:
        """Bytes of arena the program keeps from one RUN to the next."""
        return sum(s.layout.bytes for s in self.state)


@dataclass(frozen=True)
class Sequence:
    """What run_sequence returns: each step's outputs (a list, one array per program output, as
    run_reference returns them) and counter units (INFO's counter_unit)."""

    outputs: list[list[np.ndarray]]
    counts: list[int]

    @property
    def total(self) -> int:
        return sum(self.counts)

    @property
    def most(self) -> int:
        """The most one RUN took (em_run --invokes prints it as "max <unit>")."""
        return max(self.counts, default=0)


@dataclass(frozen=True)
class ProfileEntry:
    opcode: int
    name: str
    count: int


def _parse_tensor(data: bytes, at: int) -> tuple[TensorInfo, int]:
    dtype, rank, size, scale, zero_point = struct.unpack_from("<BBIfi", data, at)
    shape = struct.unpack_from(f"<{rank}i", data, at + 14)
    return TensorInfo(DTYPES.get(dtype, np.uint8), tuple(shape), size, scale, zero_point), at + 14 + 4 * rank


def _parse_info(data: bytes) -> DeviceInfo:
    """INFO's reply. Its version first: a device of another protocol is a LinkError saying so,
    before the rest (laid out otherwise) is read."""
    if len(data) < 2:
        raise FrameError(f"INFO reply of {len(data)} bytes: too short for a protocol version")
    (version,) = struct.unpack_from("<H", data)
    if version != PROTOCOL_VERSION:
        raise LinkError(f"device speaks link protocol {version}, this tool {PROTOCOL_VERSION}: "
                        "rebuild the firmware or update the tool")
    try:
        tier, n_in, n_out, n_arenas, max_payload, program_bytes, program_id = struct.unpack_from("<BBBBIII", data, 2)
        at = 18
        arenas = list(struct.unpack_from(f"<{n_arenas}I", data, at))
        at += 4 * n_arenas
        tensors = []
        for _ in range(n_in + n_out):
            tensor, at = _parse_tensor(data, at)
            tensors.append(tensor)
        texts = []
        for _ in range(2):
            n = data[at]
            texts.append(data[at + 1:at + 1 + n].decode("utf-8", "replace"))
            at += 1 + n
        flags = data[at]
        (n_state,), at = struct.unpack_from("<I", data, at + 1), at + 5
        state = []
        for _ in range(n_state):
            (index,) = struct.unpack_from("<I", data, at)
            layout, at = _parse_tensor(data, at + 4)
            state.append(StateInfo(index, layout))
    except (struct.error, IndexError) as error:
        raise FrameError(f"INFO reply of {len(data)} bytes ends before its fields do ({error})") from error
    return DeviceInfo(version, TIERS.get(tier, str(tier)), tensors[:n_in], tensors[n_in:], arenas, max_payload,
                      program_bytes, program_id, texts[0], texts[1], bool(flags & 1), bool(flags & 2), state)


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
    """Requests to a device running a serving firmware (`scons app=<app> serve=1`). `timeout`:
    seconds one attempt of a request waits for its reply; `retries`: how many times a request
    that went wrong on the line is sent again (the module's docstring says when, and how)."""

    def __init__(self, port, timeout: float = 10.0, url: str = "", retries: int = RETRIES) -> None:
        if retries < 0:
            raise ValueError(f"retries is a count of resends, got {retries}")
        self.port, self.timeout, self.url, self.retries = port, timeout, url, retries
        self._seq = 0
        self._pending = b""
        self._info: DeviceInfo | None = None
        # Run numbers (em_link.h): a resend carries its run's, a new run the next. A random start,
        # so that a host connecting to a device another host left is not taken for a resend of its last.
        self._run = random.getrandbits(32)

    @classmethod
    def open(cls, url: str, timeout: float = 10.0, retries: int = RETRIES) -> "Link":
        """A serial device path or any pyserial URL (`socket://host:port`, `loop://`)."""
        import serial

        try:
            port = serial.serial_for_url(url, baudrate=BAUD, timeout=0.05)
        except (serial.SerialException, ValueError) as error:
            raise LinkError(f"cannot open {url}: {error}") from error
        return cls(port, timeout, url, retries)

    def close(self) -> None:
        self.port.close()

    def __enter__(self) -> "Link":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---- frames ----

    def _pending_frame(self, heard: Heard) -> tuple[int, int, bytes] | None:
        """Takes the first whole frame out of the bytes received so far (None until one is whole);
        bytes before a sync pair are noise. A damaged frame is dropped and raises FrameError."""
        at = self._pending.find(SYNC)
        if at < 0:  # keep a last 0xA5: it may start a sync pair
            at = len(self._pending) - self._pending.endswith(SYNC[:1])
        heard.noise += at
        self._pending = self._pending[at:]
        if len(self._pending) < 8:
            return None
        kind, seq, length = struct.unpack_from("<BBI", self._pending, 2)
        if length > MAX_REPLY:
            self._pending = self._pending[2:]
            heard.frames.append(f"a frame header claiming {length} bytes")
            raise FrameError(f"reply length {length} is impossible: the line is corrupt")
        if len(self._pending) < 12 + length:
            return None
        body, (crc,) = self._pending[2:8 + length], struct.unpack_from("<I", self._pending, 8 + length)
        self._pending = self._pending[12 + length:]
        if zlib.crc32(body) != crc:
            heard.frames.append(f"a frame with a bad CRC ({length} bytes of payload)")
            raise FrameError(f"reply to seq {seq} failed its CRC")
        return kind, seq, body[6:]

    def _missing(self) -> int:
        """Bytes the frame at the head of the pending bytes still needs (a header's worth if unknown)."""
        if len(self._pending) < 8:
            return 8 - len(self._pending)
        return 12 + struct.unpack_from("<I", self._pending, 4)[0] - len(self._pending)

    def _partial(self) -> str:
        """The frame cut short at the head of the pending bytes, described."""
        if not self._pending:
            return ""
        if len(self._pending) < 8:
            return f"a partial frame (its first {len(self._pending)} bytes)"
        kind, seq, length = struct.unpack_from("<BBI", self._pending, 2)
        return f"a partial frame ({len(self._pending)} of its {12 + length} bytes, type {kind:#04x}, seq {seq})"

    def _receive(self, deadline: float, heard: Heard | None = None) -> tuple[int, int, bytes]:
        """The next whole frame (type, seq, payload), skipping bytes until a sync pair."""
        heard = heard if heard is not None else Heard()
        late = False
        while True:
            got = self._pending_frame(heard)
            if got is not None:
                return got
            if late:
                heard.partial = self._partial()
                raise LinkTimeout(f"no whole reply in time: {heard}", [heard])
            late = time.monotonic() > deadline  # then one read more: what had arrived by then counts
            data = self.port.read(min(max(1, self._missing()), 1 << 16))
            heard.bytes += len(data)
            self._pending += data

    def _resync(self, heard: Heard, timeout: float) -> None:
        """Brings both ends back to hunting for a sync pair: zeros that complete any frame the
        device is in the middle of, then drops what arrives until the line is quiet QUIET seconds
        (at most `timeout` or DRAIN_MAX), noting it in `heard`."""
        max_payload = self._info.max_payload if self._info else DEFAULT_MAX_PAYLOAD
        self._pending = b""  # a frame cut short, or noise: `heard` has it already
        self.port.write(bytes(max_payload + 10))
        if hasattr(self.port, "flush"):  # pyserial: until the zeros are out (0.36 s at 115200 baud)
            self.port.flush()
        now = time.monotonic()
        quiet_since, end = now, now + min(timeout, DRAIN_MAX)
        while now - quiet_since < QUIET and now < end:
            data = self.port.read(4096)
            now = time.monotonic()
            if data:
                heard.bytes += len(data)
                self._pending += data
                quiet_since = now
            while True:  # describe the frames among them
                try:
                    got = self._pending_frame(heard)
                except FrameError:
                    continue
                if got is None:
                    break
                heard.frames.append(_frame_name(*got))
        if self._pending.startswith(SYNC):
            heard.partial = heard.partial or self._partial()
        else:
            heard.noise += len(self._pending)
        self._pending = b""

    def request(self, kind: int, payload: bytes = b"", timeout: float | None = None) -> bytes:
        """Sends one request and returns its reply's payload. Replies to older requests (errors
        about a frame abandoned earlier) are skipped. A request damaged on the way (the device
        answers BAD_CRC or TRUNCATED), a damaged reply or no whole reply within `timeout` (default
        the Link's) resynchronises the link and sends the request again, `retries` times at most
        (see the module's docstring); then LinkTimeout or FrameError says what each attempt saw."""
        wait = timeout or self.timeout
        history: list[Heard] = []
        for attempt in range(self.retries + 1):
            if attempt:  # the same payload: a RUN's run number tells the device it may have run it
                self._resync(history[-1], wait)
            heard = Heard()
            history.append(heard)
            try:
                return self._exchange(kind, payload, wait, heard)
            except DeviceError as error:
                if error.name not in ("BAD_CRC", "TRUNCATED") or attempt == self.retries:
                    raise
                heard.frames.append(f"an ERROR {error.name} for this request")
                last: LinkError = error
            except (FrameError, LinkTimeout) as error:
                last = error
                if kind == SHUTDOWN and (heard.partial or isinstance(error, FrameError)):
                    break  # that may have been the reply: the firmware exits after it
        error_type = type(last) if isinstance(last, (FrameError, LinkTimeout)) else LinkTimeout
        raise error_type(self._gave_up(kind, history, wait), history)

    def _gave_up(self, kind: int, history: list[Heard], wait: float) -> str:
        name = REQUEST_NAMES.get(kind, f"request {kind:#04x}")
        tries = f"{len(history)} attempt{'s' if len(history) > 1 else ''} of {wait:.1f} s"
        if all(h.nothing for h in history):
            return (f"{name}: nothing at all arrived in {tries}: is the serving firmware "
                    "(`scons app=<app> serve=1`) running on the other end?")
        seen = "; ".join(f"attempt {i + 1}: {h}" for i, h in enumerate(history))
        if not any(h.framed for h in history):
            return (f"{name}: no reply in {tries}, only bytes that hold no frame ({seen}): another "
                    f"firmware than the serving one (serve=1), or another baud rate than {BAUD}?")
        return (f"{name}: no good reply in {tries} though the device sends frames ({seen}): "
                "line noise damages or cuts them (cable, connector, baud rate)")

    def _exchange(self, kind: int, payload: bytes, wait: float, heard: Heard) -> bytes:
        self._seq = self._seq % 255 + 1  # 1..255: the device reports seq 0 for a header cut before its seq
        seq = self._seq
        self.port.write(frame(kind, seq, payload))
        deadline = time.monotonic() + wait
        while True:
            got, got_seq, data = self._receive(deadline, heard)
            if got_seq != seq:
                heard.frames.append(_frame_name(got, got_seq, data))
                continue
            if got == ERROR:
                raise DeviceError(data[0] if data else 0, data[1] if len(data) > 1 else kind,
                                  data[2:].decode("utf-8", "replace"))
            if got != kind | REPLY:
                heard.frames.append(f"{_frame_name(got, got_seq, data)}, not a reply to it")
                raise FrameError(f"request {REQUEST_NAMES.get(kind)} got a reply of type {got:#x}")
            return data

    # ---- requests ----

    def info(self) -> DeviceInfo:
        info = _parse_info(self.request(INFO))  # another protocol version: LinkError
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

    def _next_run(self) -> int:
        self._run = (self._run + 1) & 0xFFFFFFFF
        return self._run

    def run(self, timeout: float | None = None) -> int:
        """Runs one inference (once, however often the request is sent: see the module's
        docstring); returns its counter units (INFO's counter_unit). A program with state
        continues from the state the run before left."""
        return struct.unpack("<Q", self.request(RUN, struct.pack("<I", self._next_run()), timeout=timeout))[0]

    def reset_state(self) -> int:
        """Gives the program's persistent tensors their reset value (a real 0): the next run()
        starts a new sequence. Returns how many it reset (0 for a program without state, which
        has nothing to reset: not an error)."""
        return struct.unpack("<I", self.request(RESET_STATE))[0]

    def state(self, index: int) -> np.ndarray:
        """Persistent tensor `index` (INFO's state) as the next run() will read it."""
        state = self._tensors().state
        if not 0 <= index < len(state):
            raise LinkError(f"state {index} does not exist: the program keeps {len(state)}")
        layout = state[index].layout
        return np.frombuffer(self.tensor(state[index].tensor, layout.bytes), layout.dtype).reshape(layout.shape)

    def run_sequence(self, steps, reset: bool = True, timeout: float | None = None) -> Sequence:
        """Runs the steps one after another over one state: each step is the inputs of one run
        (an array for a program of one input, else a list with one per input), written with
        set_input; then run(), and every output read. From a reset_state() first, unless `reset`
        is False (then the sequence continues the device's state). Returns each step's outputs
        and counter units."""
        info = self._tensors()
        if reset:
            self.reset_state()
        outputs, counts = [], []
        for t, step in enumerate(steps):
            step = [step] if isinstance(step, (np.ndarray, bytes)) else list(step)
            if len(step) != len(info.inputs):
                raise LinkError(f"step {t} gives {len(step)} inputs: the program takes {len(info.inputs)}")
            for index, data in enumerate(step):
                self.set_input(index, data)
            counts.append(self.run(timeout))
            outputs.append([self.output(k) for k in range(len(info.outputs))])
        return Sequence(outputs, counts)

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
        """Runs operators 0..operators-1 only (their outputs stay readable by tensor()). On a
        program with state it may write part of the state: RUN and RUN_TO are then refused
        (STATE_STALE) until reset_state()."""
        payload = struct.pack("<II", operators, self._next_run())
        return struct.unpack("<Q", self.request(RUN_TO, payload, timeout=timeout))[0]

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
        """Ends the serving firmware (QEMU exits with `status`). The firmware exits right after
        its reply: a reply that arrived damaged or cut short counts as the reply."""
        try:
            self.request(SHUTDOWN, struct.pack("<i", status))
        except (FrameError, LinkTimeout) as error:
            if not (isinstance(error, FrameError) or (error.heard and error.heard[-1].partial)):
                raise


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve(board, elf: Path | str, timeout: float = 30.0, args: str = "", cwd: Path | str | None = None) -> Iterator[Link]:
    """Starts the serving firmware `elf` for `board` (an ember_build Board: QEMU with its UART on
    a TCP socket, or the host build on pipes), yields a Link to it, and stops it afterwards.
    `args`: its command line (em_run's `PROGRAM --serve`; files through semihosting in QEMU,
    relative to `cwd`)."""
    from ember_build.qemu import emulator_command

    if board.emulator is None:
        process = subprocess.Popen(emulator_command(board, elf, args), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   start_new_session=True, cwd=cwd)
        link = Link(PipePort(process, 0.05), timeout, "pipe")
    else:
        port = _free_port()
        url = f"socket://127.0.0.1:{port}"
        process = subprocess.Popen(emulator_command(board, elf, args, serial=f"tcp:127.0.0.1:{port},server=on,wait=on"),
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                   start_new_session=True, cwd=cwd)
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


def _steps(info: DeviceInfo, paths: list[Path], invokes: int) -> list[list[bytes]]:
    """Each --input file cut into `invokes` of its program input (as em_run --invokes reads them)."""
    if len(paths) != len(info.inputs):
        raise LinkError(f"{len(paths)} --input files for a program of {len(info.inputs)} inputs: give one per input, in order")
    columns = []
    for k, (path, tensor) in enumerate(zip(paths, info.inputs)):
        data = path.read_bytes()
        if len(data) != tensor.bytes * invokes:
            raise LinkError(f"input {k} ({tensor.bytes} bytes): {path} holds {len(data)} bytes: give a file of "
                            f"exactly {tensor.bytes * invokes} bytes (its size for each of the --invokes)")
        columns.append([data[t * tensor.bytes:(t + 1) * tensor.bytes] for t in range(invokes)])
    return [list(step) for step in zip(*columns)]


def main(argv: list[str] | None = None, link: Link | None = None) -> None:
    """The command line; `link`: an open Link instead of the URL's (tests, over pipes)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("url", help="serial device (/dev/ttyACM0) or pyserial URL (socket://127.0.0.1:4000)")
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--input", type=Path, action="append", default=[],
                        help="raw bytes of program input k (the k-th --input), --invokes of it one after the other")
    parser.add_argument("--output", type=Path, action="append", default=[],
                        help="receives program output k (the k-th --output) of every invoke, one after the other")
    parser.add_argument("--invokes", type=int, default=0,
                        help="RUNs over one state, from a reset (default 1 when --input is given)")
    args = parser.parse_args(argv)
    if args.invokes < 0 or (args.invokes and not args.input):
        parser.error("--invokes takes a count of RUNs and the --input files to run them on")
    with contextlib.nullcontext(link) if link is not None else Link.open(args.url, args.timeout) as link:
        info = link.info()
        print(f"{info.app}: tier {info.tier}, program {info.program_bytes} B (id {info.program_id:08x}), "
              f"arenas {info.arena_bytes}, counter {info.counter_unit}, max payload {info.max_payload}")
        for kind, tensors in (("input", info.inputs), ("output", info.outputs)):
            for i, t in enumerate(tensors):
                print(f"  {kind} {i}: {np.dtype(t.dtype).name}{list(t.shape)} scale {t.scale:g} zero point {t.zero_point}")
        if info.state:
            print(f"  state: {len(info.state)} persistent tensors, {info.state_bytes} B, kept between RUNs "
                  f"(tensors {', '.join(str(s.tensor) for s in info.state)})")
        if not args.input:
            return
        if len(args.output) > len(info.outputs):
            raise LinkError(f"{len(args.output)} --output files for a program of {len(info.outputs)} outputs")
        sequence = link.run_sequence(_steps(info, args.input, args.invokes or 1))
        for k, path in enumerate(args.output):
            path.write_bytes(b"".join(step[k].tobytes() for step in sequence.outputs))
        unit = info.counter_unit.split(" ")[0]
        print(f"{unit}: {sequence.total}")
        if len(sequence.counts) > 1:
            print(f"invokes: {len(sequence.counts)}\nmax {unit}: {sequence.most}")


if __name__ == "__main__":
    try:
        main()
    except LinkError as error:
        raise SystemExit(f"ember_link: {error}") from None
