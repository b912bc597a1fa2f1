"""A program with state over the serial link (em_link.h "State between RUNs", "Run numbers";
tools/ember_link.py): served by em_run --serve (any program file, the builds tests/runtime's
em_run tests make) on the host over pipes and in QEMU on corstone300 over a TCP socket UART.

A sequence of RUNs equals the reference run with its state carried; RESET_STATE starts the
sequence again (and a stateless program answers it with 0); a RUN whose reply was lost is
answered from the device's memory of it, so the state advances once and the outputs are those
without loss; a RUN_TO leaves the state stale until a reset; malformed requests get named errors;
the command line runs a sequence as em_run --invokes does."""
from __future__ import annotations

import functools
import struct
import numpy as np
import pytest

from ember_build.board import load_board
from tools import ember_link
from tools.ember_link import RESET_STATE, RUN, RUN_TO, DeviceError, serve

from build_host import build_em_run, build_em_run_firmware
from test_state import Cell, lowered
from tests.tools.ports import CutOnce

STEPS = 12
LOST = (3, 7)  # the steps whose RUN reply is cut short on its way to the host


class CountingCut(CutOnce):
    """CutOnce that also counts the RUN and RUN_TO frames written through it."""

    def __init__(self, port, at: int, drop: int) -> None:
        super().__init__(port, at, drop)
        self.runs = 0

    def write(self, data: bytes) -> int:
        self.runs += data[:2] == b"\xa5\x5a" and data[2] in (RUN, RUN_TO)
        return self.port.write(data)


@functools.cache
def _served(board: str):
    """The em_run that serves, its Board, and the Cell program lowered for the board's CPU (once a session)."""
    info = load_board(board)
    program, frames = lowered(Cell(), [(1, 5), (1, 8)], [(1, 1)],
                              target="cortex-m3" if info.emulator is None else info.cpu)
    elf = build_em_run() if info.emulator is None else build_em_run_firmware(board)
    return info, elf, program, [f.numpy() for f in frames[:STEPS]]


def _reference(program, frames) -> list[list[np.ndarray]]:
    """The reference over the frames, its state carried from one to the next (one dict)."""
    state: dict = {}
    return [program.run_reference(f, state=state) for f in frames]


def _bytes(outputs) -> list[bytes]:
    return [b"".join(np.ascontiguousarray(o).tobytes() for o in step) for step in outputs]


@pytest.mark.parametrize("board", ["host", pytest.param("corstone300", marks=pytest.mark.qemu)])
def test_a_sequence_over_the_link_carries_the_state(board, tmp_path):
    info, elf, program, frames = _served(board)
    want = _bytes(_reference(program, frames))
    path = program.save(tmp_path / "cell.embr")
    with serve(info, elf, args=f"{path.name} --serve", cwd=tmp_path) as link:
        link.timeout = 2.0
        device = link.info()
        assert len(device.state) == 1 and device.state_bytes == 8 and device.state[0].layout.shape == (1, 8)
        zero = device.state[0].layout.zero_point
        assert np.all(link.state(0) == zero)  # the reset at start-up: a real 0

        # N RUNs over one state: the reference with its state carried, step for step
        sequence = link.run_sequence(frames)
        assert _bytes(sequence.outputs) == want and all(c > 0 for c in sequence.counts)
        assert _bytes([sequence.outputs[0]]) != _bytes([sequence.outputs[-1]])
        assert not np.all(link.state(0) == zero)

        # RESET_STATE starts the sequence again: the first steps again, then the rest
        assert link.reset_state() == 1 and np.all(link.state(0) == zero)
        first = link.run_sequence(frames[:4], reset=False)
        assert _bytes(first.outputs) == want[:4]
        assert _bytes(link.run_sequence(frames[4:], reset=False).outputs) == want[4:]

        # A RUN whose reply is lost is sent again and answered from the device's memory:
        # the state advances once, and every output is the one without loss.
        link.reset_state()
        got = []
        for t, frame in enumerate(frames):
            link.set_input(0, frame)
            port = link.port = CountingCut(link.port, 5, 3) if t in LOST else link.port
            assert link.run() > 0
            if t in LOST:
                assert port.runs == 2, "the lost reply's RUN was not sent again"
                link.port = port.port
            got.append([link.output(0)])
        assert _bytes(got) == want

        # RUN_TO may write part of the state: RUN is refused by name until RESET_STATE (a RUN_TO
        # whose reply was lost is answered from memory too, not refused for the state it left)
        link.set_input(0, frames[0])
        port = link.port = CountingCut(link.port, 5, 3)
        assert link.run_to(1) > 0 and port.runs == 2
        link.port = port.port
        link.set_input(0, frames[0])
        with pytest.raises(DeviceError, match="STATE_STALE: .*RESET_STATE first"):
            link.run()
        link.reset_state()
        assert _bytes(link.run_sequence(frames[:2], reset=False).outputs) == want[:2]

        # malformed requests: named errors, and the device keeps serving
        with pytest.raises(DeviceError, match="BAD_REQUEST: RESET_STATE takes no payload"):
            link.request(RESET_STATE, b"\0")
        with pytest.raises(DeviceError, match=r"BAD_REQUEST: RUN takes a u32 run number \(link protocol 2\)"):
            link.request(RUN)  # a protocol-1 host's RUN
        with pytest.raises(DeviceError, match="BAD_REQUEST: RUN_TO takes"):
            link.request(RUN_TO, struct.pack("<I", 1))
        assert _bytes(link.run_sequence(frames[:2]).outputs) == want[:2]
        link.shutdown()


def test_the_command_line_runs_a_sequence_over_one_state(tmp_path, capsys):
    info, elf, program, frames = _served("host")
    want = b"".join(_bytes(_reference(program, frames)))
    path = program.save(tmp_path / "cell.embr")
    np.concatenate(frames).astype(np.float32).tofile(tmp_path / "in.bin")
    with serve(info, elf, args=f"{path.name} --serve", cwd=tmp_path) as link:
        ember_link.main(["pipe", "--input", str(tmp_path / "in.bin"), "--invokes", str(len(frames)),
                         "--output", str(tmp_path / "out.bin")], link)
        with pytest.raises(ember_link.LinkError, match=r"holds 240 bytes: give a file of exactly 20 bytes"):
            ember_link.main(["pipe", "--input", str(tmp_path / "in.bin")], link)
        link.shutdown()
    printed = capsys.readouterr().out
    assert "state: 1 persistent tensors, 8 B" in printed
    assert f"invokes: {len(frames)}" in printed and "max ns: " in printed
    assert (tmp_path / "out.bin").read_bytes() == want
