"""Stateful programs (compiler/passes/bind_state.py, runtime/core/em_state.c): a model that takes
its state and returns the next one, lowered with `state=`, keeps that state in a persistent tensor
from one invoke to the next.

Graph level: the state input and output leave the program's I/O, the persistent tensor holds the
output's int8 bytes (a requantize follows where the model quantized the input otherwise), the plan
keeps its bytes to itself. Execution: a sequence of reference runs follows PyTorch's PT2E model
fed its own state; em_run --invokes on the host and in QEMU gives the reference's bytes invoke for
invoke; invoke before a reset is refused by name, a reset starts the sequence again; malformed
state is refused at load."""
from __future__ import annotations

import os
import subprocess

import numpy as np
import pytest
import torch
from torch import nn

import compiler
from build_host import CFLAGS, INCLUDES, build, build_em_run, build_em_run_firmware, runtime_sources
from compiler import writer
from compiler.errors import StateError
from compiler.ir import State
from compiler.quantizer import CortexMQuantizer
from ember_build.board import load_board
from ember_build.qemu import emulator_command

STEPS = 24


class Cell(nn.Module):
    """An Elman cell with a head: forward(x, h) -> (y, h_next)."""

    def __init__(self, features: int = 5, hidden: int = 8, classes: int = 3) -> None:
        super().__init__()
        self.x, self.h, self.out = nn.Linear(features, hidden), nn.Linear(hidden, hidden), nn.Linear(hidden, classes)

    def forward(self, x, h):
        h = torch.tanh(self.x(x) + self.h(h))
        return self.out(h), h


class SharedNext(Cell):
    """The next state made by an op whose output shares its input's quantization (a transpose): the
    state input cannot take that, so the program requantizes it."""

    def forward(self, x, h):
        y, h = super().forward(x, h)
        return y, h.reshape(1, 2, 4).transpose(1, 2).reshape(1, 8)


class TwoStates(nn.Module):
    """Two states, returned in the other order, one of them through a ReLU on a scale of its own."""

    def __init__(self) -> None:
        super().__init__()
        self.a, self.b, self.out = nn.Linear(4 + 6, 6), nn.Linear(6 + 3, 3), nn.Linear(6 + 3, 2)

    def forward(self, x, s1, s2):
        n1 = torch.relu(self.a(torch.cat([x, s1], 1)))
        n2 = torch.sigmoid(self.b(torch.cat([n1, s2], 1)))
        return n2, self.out(torch.cat([n1, n2], 1)), n1


class GRUStep(nn.Module):
    """One nn.GRU step per invoke, its hidden state carried: forward(x, h) -> (y, h_n)."""

    def __init__(self) -> None:
        super().__init__()
        self.gru, self.out = nn.GRU(5, 8, batch_first=True), nn.Linear(8, 3)

    def forward(self, x, h):
        y, h_n = self.gru(x, h)
        return self.out(y[:, -1]), h_n


class LSTMStep(nn.Module):
    """Two frames of a 2-layer nn.LSTM per invoke, (h, c) carried: forward(x, h, c) -> (y, h_n, c_n)."""

    def __init__(self) -> None:
        super().__init__()
        self.lstm, self.out = nn.LSTM(4, 6, num_layers=2), nn.Linear(6, 2)

    def forward(self, x, h, c):
        y, (h_n, c_n) = self.lstm(x, (h, c))
        return self.out(y[-1]), h_n, c_n


def sequence(model: nn.Module, shapes: list[tuple[int, ...]], pairs: list[tuple[int, int]], steps: int,
             seed: int, state_scale: float = 1.0) -> tuple[list[torch.Tensor], list[tuple]]:
    """Frames of the first input, and calibration items from running the float model over them
    (each state input as the model feeds it; `state_scale` widens them, so that the state input is
    calibrated on another scale than its output)."""
    g = torch.Generator().manual_seed(seed)
    frames = [torch.randn(*shapes[0], generator=g) for _ in range(steps)]
    state = {i: torch.zeros(*shapes[i]) for i, _ in pairs}
    items = []
    with torch.no_grad():
        for x in frames:
            inputs = [x] + [state[i] * state_scale for i in range(1, len(shapes))]
            items.append(tuple(inputs))
            outs = model(*inputs)
            outs = outs if isinstance(outs, tuple) else (outs,)
            state = {i: outs[j] for i, j in pairs}
    return frames, items


def lowered(model: nn.Module, shapes, pairs, target: str = "cortex-m55", state_scale: float = 1.0, seed: int = 0):
    torch.manual_seed(seed)
    model.eval()
    frames, items = sequence(model, shapes, pairs, STEPS, seed + 1, state_scale)
    program = compiler.lower(model, items[0], items, target, state=pairs, report_fallbacks=False)
    return program, frames


def pt2e_sequence(program, frames, shapes, pairs) -> list[list[np.ndarray]]:
    """PyTorch's PT2E model over the frames, each state input fed the state output before it."""
    state = {i: torch.zeros(*shapes[i]) for i, _ in pairs}
    dropped = {j for _, j in pairs}
    results = []
    with torch.no_grad():
        for x in frames:
            outs = program.quantized_model(x, *[state[i] for i in range(1, len(shapes))])
            outs = outs if isinstance(outs, tuple) else (outs,)
            state = {i: outs[j] for i, j in pairs}
            results.append([o.numpy() for j, o in enumerate(outs) if j not in dropped])
    return results


def reference_sequence(program, frames) -> list[list[np.ndarray]]:
    state: dict = {}
    return [program.run_reference(x.numpy(), state=state) for x in frames]


@pytest.fixture(scope="module")
def cell():
    return lowered(Cell(), [(1, 5), (1, 8)], [(1, 1)])


# ---- graph level -------------------------------------------------------------------------------------

def test_the_state_input_becomes_a_persistent_tensor(cell):
    program, _ = cell
    graph = program.graph
    assert len(graph.inputs) == 1 and len(graph.outputs) == 1
    [state] = graph.state
    s, n = graph.tensors[state.tensor], graph.tensors[state.next]
    assert s.dtype == n.dtype == "int8" and s.shape == n.shape == (1, 8)
    assert np.array_equal(s.quant.scale, n.quant.scale) and np.array_equal(s.quant.zero_point, n.quant.zero_point)
    assert graph.producer(state.tensor) is None and graph.consumers(state.tensor)
    assert not any(op.kind == "quantize" and state.tensor in op.outputs for op in graph.ops)


def test_no_other_tensor_shares_the_state_bytes(cell):
    """The state lives over every step; only its next value, made after the state's last read,
    may sit on it (then nothing is copied at the end of the invoke)."""
    program, _ = cell
    graph = program.graph
    [state] = graph.state
    s = graph.tensors[state.tensor]
    span = range(s.offset, s.offset + s.nbytes)
    sharing = {name for name, t in graph.tensors.items()
               if not t.is_constant and name != state.tensor and t.arena == s.arena
               and t.offset < span.stop and span.start < t.offset + max(t.nbytes, 1)}
    assert sharing <= {state.next}
    made = next(k for k, op in enumerate(graph.ops) if state.next in op.outputs)
    last_read = max(k for k, op in enumerate(graph.ops) if state.tensor in op.inputs)
    assert (state.next in sharing) == (made > last_read)


def test_the_state_input_is_quantized_as_the_output_that_feeds_it():
    """quantizer.StateSharing: however the calibration's state inputs spread, PT2E quantizes the
    state input as its output, so the persistent tensor is read as it is."""
    for model in (Cell(), TwoStates()):
        shapes = [(1, 5), (1, 8)] if isinstance(model, Cell) else [(1, 4), (1, 6), (1, 3)]
        pairs = [(1, 1)] if isinstance(model, Cell) else [(1, 2), (2, 0)]
        program, _ = lowered(model, shapes, pairs, state_scale=4.0)
        assert all(op.kind != "requantize" for s in program.graph.state for op in program.graph.consumers(s.tensor))


def test_a_state_input_quantized_otherwise_is_requantized():
    program, _ = lowered(SharedNext(), [(1, 5), (1, 8)], [(1, 1)], state_scale=4.0)
    [state] = program.graph.state
    readers = program.graph.consumers(state.tensor)
    assert [op.kind for op in readers] == ["requantize"]


def test_the_file_records_the_state_and_a_version_older_runtimes_refuse(cell, tmp_path):
    program, frames = cell
    path = program.save(tmp_path / "cell.embr")
    loaded = compiler.Program.load(path)
    assert loaded.graph.state == program.graph.state
    from compiler.schema import program_generated as fb
    assert fb.Program.GetRootAs(path.read_bytes(), 0).SchemaVersion() == writer.STATE_SCHEMA_VERSION
    a, b = reference_sequence(program, frames), reference_sequence(loaded, frames)
    assert all(np.array_equal(x[0], y[0]) for x, y in zip(a, b))
    from compiler import inspection
    shown = inspection.text(inspection.describe(loaded))
    assert f"state (kept between invokes, reset to 0 by em_program_reset_state): {program.graph.state[0].tensor}" in shown
    assert "(written in place)" in shown  # the next value is made after the state's last read
    stateless = compiler.lower(nn.Linear(5, 3).eval(), (frames[0],), frames, "cortex-m55")
    assert fb.Program.GetRootAs(stateless.to_bytes(), 0).SchemaVersion() == writer.SCHEMA_VERSION


@pytest.mark.parametrize("pairs, message", [
    ([(2, 1)], "the model has 2 input"),
    ([(1, 0), (1, 1)], "name an input twice"),
    ([(0, 1), (1, 0)], "leave at least one input"),
])
def test_a_binding_the_model_cannot_take_is_a_state_error(pairs, message):
    frames, items = sequence(Cell().eval(), [(1, 5), (1, 8)], [(1, 1)], 4, 0)
    with pytest.raises(StateError, match=message):
        compiler.lower(Cell().eval(), items[0], items, state=pairs)


def test_a_state_of_another_shape_or_made_in_float_is_refused():
    frames, items = sequence(Cell().eval(), [(1, 5), (1, 8)], [(1, 1)], 4, 0)
    with pytest.raises(StateError, match="has shape"):
        compiler.lower(Cell().eval(), items[0], items, state=[(1, 0)])  # h [1, 8] fed by y [1, 3]
    skip = CortexMQuantizer(skip_modules=("h",))
    with pytest.raises(StateError, match="read in float32"):
        compiler.lower(Cell().eval(), items[0], items, state=[(1, 1)], quantizer=skip, report_fallbacks=False)


# ---- the reference against PyTorch ---------------------------------------------------------------------

@pytest.mark.parametrize("model, shapes, pairs, scale", [
    (Cell, [(1, 5), (1, 8)], [(1, 1)], 1.0),
    (Cell, [(1, 5), (1, 8)], [(1, 1)], 4.0),  # calibrated on wider state inputs
    (SharedNext, [(1, 5), (1, 8)], [(1, 1)], 1.0),  # the state input requantized
    (TwoStates, [(1, 4), (1, 6), (1, 3)], [(1, 2), (2, 0)], 1.0),
    (GRUStep, [(1, 1, 5), (1, 1, 8)], [(1, 1)], 1.0),  # a recurrent op's own state, carried
    (LSTMStep, [(2, 1, 4), (2, 1, 6), (2, 1, 6)], [(1, 1), (2, 2)], 1.0),
])
def test_a_sequence_follows_the_pt2e_model_fed_its_own_state(model, shapes, pairs, scale):
    program, frames = lowered(model(), shapes, pairs, state_scale=scale)
    want, got = pt2e_sequence(program, frames, shapes, pairs), reference_sequence(program, frames)
    for w, g in zip(want, got):
        for out_w, out_g, name in zip(w, g, program.graph.outputs):
            lsb = float(program.graph.tensors[program.graph.producer(name).inputs[0]].quant.scale[0])
            assert np.abs(out_w - out_g).max() <= lsb * 1.001, (name, out_w, out_g)
    # the state matters: the same frames from a reset each give other outputs
    fresh = [program.run_reference(x.numpy())[0] for x in frames]
    assert any(not np.array_equal(a, b[0]) for a, b in zip(fresh, got))


# ---- execution ------------------------------------------------------------------------------------------

def _em_run_sequence(run, program, frames, tmp_path) -> tuple[np.ndarray, str]:
    path = program.save(tmp_path / "p.embr")
    np.concatenate([f.numpy().astype(np.float32).reshape(-1) for f in frames]).tofile(tmp_path / "in.bin")
    result = run(path, tmp_path, f"{path.name} --input in.bin --output out.bin --invokes {len(frames)}")
    assert result.returncode == 0, result.stdout + result.stderr
    return np.fromfile(tmp_path / "out.bin", np.float32).reshape(len(frames), -1), result.stdout


def _host(path, cwd, args):
    return subprocess.run([str(build_em_run()), *args.split()], cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("model, shapes, pairs", [
    (TwoStates, [(1, 4), (1, 6), (1, 3)], [(1, 2), (2, 0)]),
    (LSTMStep, [(2, 1, 4), (2, 1, 6), (2, 1, 6)], [(1, 1), (2, 2)]),
])
def test_em_run_invokes_a_sequence_over_one_state_on_the_host(tmp_path, model, shapes, pairs):
    program, frames = lowered(model(), shapes, pairs, target="cortex-m3")
    got, stdout = _em_run_sequence(_host, program, frames, tmp_path)
    want = np.stack([out[0].reshape(-1) for out in reference_sequence(program, frames)])
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    assert f"invokes: {len(frames)}" in stdout and "max ns: " in stdout


def test_an_input_file_not_n_times_the_input_is_named(tmp_path, cell):
    program, frames = lowered(Cell(), [(1, 5), (1, 8)], [(1, 1)], target="cortex-m3")
    path = program.save(tmp_path / "p.embr")
    np.zeros(5 * 3, np.float32).tofile(tmp_path / "in.bin")  # 3 frames for 4 invokes
    result = _host(path, tmp_path, "p.embr --input in.bin --invokes 4")
    assert result.returncode == 74, result.stdout
    assert "holds 60 bytes: give a file of exactly 80 bytes (its size for each of the --invokes)" in result.stdout
    assert _host(path, tmp_path, "p.embr --input in.bin --invokes 0").returncode == 64


@pytest.mark.parametrize("board", ["corstone300", "mps2_an385"])
def test_em_run_invokes_a_sequence_in_qemu(board, tmp_path):
    board_info = load_board(board)
    program, frames = lowered(Cell(), [(1, 5), (1, 8)], [(1, 1)], target=board_info.cpu)
    elf = build_em_run_firmware(board)

    def qemu(path, cwd, args):
        return subprocess.run(emulator_command(board_info, elf, args), cwd=cwd, capture_output=True, text=True,
                              timeout=300)

    got, stdout = _em_run_sequence(qemu, program, frames, tmp_path)
    want = np.stack([out[0].reshape(-1) for out in reference_sequence(program, frames)])
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    assert "max instructions: " in stdout


DRIVER = r'''
#include <stdio.h>
#include <string.h>
#include "ember.h"
static unsigned char bytes[1 << 16] __attribute__((aligned(16)));
static uint8_t pool[1 << 16] __attribute__((aligned(16)));
int main(int argc, char **argv) {
    if (argc != 2) return 64;
    FILE *f = fopen(argv[1], "rb");
    const size_t size = fread(bytes, 1, sizeof bytes, f);
    fclose(f);
    em_program p;
    uint8_t *arenas[1] = {pool};
    uint32_t sizes[1] = {sizeof pool};
    printf("load %s\n", em_status_name(em_program_load(&p, bytes, size)));
    printf("state %u\n", (unsigned)em_program_state_count(&p));
    printf("before reset %s\n", em_status_name(em_program_invoke(&p, arenas, sizes, 1)));
    uint8_t first[64], later[64];
    em_tensor in, out;
    int same_later = 1, same_reset = 1;
    for (int round = 0; round < 2; round++) {
        em_program_reset_state(&p, arenas, sizes, 1);
        for (int t = 0; t < 6; t++) {
            em_program_input(&p, 0, arenas, &in);
            memset(in.data, 0, in.size); /* the same frame every time: only the state changes */
            ((float *)in.data)[0] = 1.5f;
            if (em_program_invoke(&p, arenas, sizes, 1) != EM_OK) return 2;
            em_program_output(&p, 0, arenas, &out);
            if (round == 0 && t == 0) memcpy(first, out.data, out.size);
            if (round == 0 && t == 5) { memcpy(later, out.data, out.size); same_later = !memcmp(first, later, out.size); }
            if (round == 1 && t == 0) same_reset = !memcmp(first, out.data, out.size);
        }
    }
    printf("later invoke differs %d\nreset repeats %d\n", !same_later, same_reset);
    return 0;
}
'''


def test_invoke_before_a_reset_is_refused_and_a_reset_starts_again(tmp_path, cell):
    program, _ = lowered(Cell(), [(1, 5), (1, 8)], [(1, 1)], target="cortex-m3")
    path = program.save(tmp_path / "p.embr")
    (tmp_path / "driver.c").write_text(DRIVER)
    exe = tmp_path / "driver"
    build(os.environ.get("CC", "cc"), [*CFLAGS, *INCLUDES], runtime_sources(tmp_path) + [tmp_path / "driver.c"], exe,
          ["-lm"])
    result = subprocess.run([str(exe), str(path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == ["load EM_OK", "state 1", "before reset EM_ERR_STATE_NOT_RESET",
                                          "later invoke differs 1", "reset repeats 1"]


def _load_status(program, tmp_path) -> str:
    path = tmp_path / "bad.embr"
    path.write_bytes(program.to_bytes())
    result = subprocess.run([str(build_em_run()), str(path), "--zero-inputs"], capture_output=True, text=True,
                            timeout=60)
    return result.stdout.strip().splitlines()[-1]


def test_malformed_state_is_refused_at_load(tmp_path, monkeypatch):
    program, _ = lowered(Cell(), [(1, 5), (1, 8)], [(1, 1)], target="cortex-m3")
    graph = program.graph
    [state] = graph.state
    constant = next(name for name, t in graph.tensors.items() if t.is_constant)
    other_size = next(name for name, t in graph.tensors.items()
                      if not t.is_constant and t.nbytes != graph.tensors[state.tensor].nbytes and t.dtype == "int8")
    cases = {
        "EM_ERR_MALFORMED": [State(graph.inputs[0], state.next)],  # an input (float32, and the caller's)
        "EM_ERR_BAD_SIZE": [State(state.tensor, other_size)],
    }
    cases_constant = [State(constant, state.next)]
    for status, entries in cases.items():
        graph.state = entries
        assert _load_status(program, tmp_path) == f"em_run: {status}"
    graph.state = cases_constant
    assert _load_status(program, tmp_path) == "em_run: EM_ERR_MALFORMED"
    graph.state = [state, state]
    assert _load_status(program, tmp_path) == "em_run: EM_ERR_MALFORMED"
    graph.state = [state]
    monkeypatch.setattr(writer, "STATE_SCHEMA_VERSION", writer.SCHEMA_VERSION)  # state in a version 1 file
    assert _load_status(program, tmp_path) == "em_run: EM_ERR_MALFORMED"
    monkeypatch.undo()
    assert "EM_ERR" not in _load_status(program, tmp_path)
