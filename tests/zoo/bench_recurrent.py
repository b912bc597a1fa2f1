"""Instructions (QEMU, MEASURING.md's counting through em_run) of the zoo's recurrent models per
board, as Ember's one op per layer and as the same layers unrolled by hand into nn.GRUCell /
nn.LSTMCell steps (how a model had to be written before the op: every step its own ops and its
own copy of the weights), with their program and arena bytes (README, "Recurrent layers"). Each
program runs twice on the zoo's test input; the counts must agree.

    ./scons em_run board=corstone300 && ./scons em_run board=mps2_an386 && ./scons em_run board=mps2_an385
    .venv/bin/python -m tests.zoo.bench_recurrent [--boards corstone300,mps2_an386,mps2_an385]
        [--models gru_kws,lstm_kws] [--forms one,unrolled]
"""
from __future__ import annotations

import argparse
import re
import tempfile
from pathlib import Path

import numpy as np
import torch
from torch import nn

import compiler
from compiler.target import Target
from ember_build.board import load_board
from ember_build.paths import BUILD_ROOT
from ember_build.qemu import run_firmware
from tests.zoo import harness
from tests.zoo.architectures import ARCHITECTURES

RUNS = 2  # the counts of two runs must agree (MEASURING.md, step 5)


class UnrolledRNN(nn.Module):
    """`rnn` (an nn.GRU or nn.LSTM, unidirectional, zero initial state) as a Python loop over its
    cells: the same outputs, (output, h_n) or (output, (h_n, c_n)), in the layout `rnn` gives."""

    def __init__(self, rnn: nn.GRU | nn.LSTM) -> None:
        super().__init__()
        cell = nn.GRUCell if isinstance(rnn, nn.GRU) else nn.LSTMCell
        self.lstm, self.batch_first, self.hidden = isinstance(rnn, nn.LSTM), rnn.batch_first, rnn.hidden_size
        self.cells = nn.ModuleList()
        for layer in range(rnn.num_layers):
            c = cell(rnn.input_size if layer == 0 else rnn.hidden_size, rnn.hidden_size, bias=rnn.bias)
            for name in ("weight_ih", "weight_hh", *(("bias_ih", "bias_hh") if rnn.bias else ())):
                getattr(c, name).data.copy_(getattr(rnn, f"{name}_l{layer}"))
            self.cells.append(c)

    def forward(self, x: torch.Tensor):
        steps = x.unbind(1 if self.batch_first else 0)
        hs, cs = [], []
        for cell in self.cells:
            h = torch.zeros(steps[0].shape[0], self.hidden)
            c = torch.zeros_like(h)
            outputs = []
            for step in steps:
                if self.lstm:
                    h, c = cell(step, (h, c))
                else:
                    h = cell(step, h)
                outputs.append(h)
            steps = outputs
            hs.append(h)
            cs.append(c)
        output = torch.stack(steps, 1 if self.batch_first else 0)
        h_n = torch.stack(hs)
        return (output, (h_n, torch.stack(cs))) if self.lstm else (output, h_n)


def unrolled(model: nn.Module) -> nn.Module:
    """`model` with each of its nn.GRU / nn.LSTM children replaced by an UnrolledRNN."""
    for name, child in model.named_children():
        if isinstance(child, (nn.GRU, nn.LSTM)):
            setattr(model, name, UnrolledRNN(child))
        else:
            unrolled(child)
    return model


def instructions(board_name: str, data: bytes, x: np.ndarray) -> list[int | str]:
    """em_run's instruction count of `data` on `x`, RUNS times (a failed run: its console's tail)."""
    board = load_board(board_name)
    elf = BUILD_ROOT / board_name / "em_run.elf"
    if not elf.exists():
        raise SystemExit(f"{elf} is missing: build it first (./scons em_run board={board_name})")
    work = Path(tempfile.mkdtemp(prefix="rnnbench_"))
    (work / "p.embr").write_bytes(data)
    (work / "x.bin").write_bytes(np.ascontiguousarray(x, np.float32).tobytes())
    counts: list[int | str] = []
    for _ in range(RUNS):
        done = run_firmware(board, elf, args="p.embr --input x.bin", timeout_s=600, cwd=work)
        m = re.search(r"instructions: (\d+)", done.console_text)
        counts.append(int(m.group(1)) if m else done.console_text[-500:])
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--boards", default="corstone300,mps2_an386,mps2_an385")
    parser.add_argument("--models", default="gru_kws,lstm_kws")
    parser.add_argument("--forms", default="one", help="one (Ember's op), unrolled (by hand), or both")
    args = parser.parse_args()
    print("| model | form | board (tier) | ops | program bytes | arena bytes | instructions | per step |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for form in args.forms.split(","):
        for name in args.models.split(","):
            arch = ARCHITECTURES[name]
            model = arch.build() if form == "one" else unrolled(arch.build())
            example = arch.inputs(0)
            steps = example[0].shape[1]  # the zoo's sequence models are [batch, time, features]
            calibration = [arch.inputs(s) for s in range(1, 1 + harness.CALIBRATION_BATCHES)]
            x = harness._ember_layout(arch.inputs(harness.TEST_SEED)[0])
            for board_name in args.boards.split(","):
                board = load_board(board_name)
                program = compiler.lower(model, example, calibration, target=Target(board.cpu, board.tier),
                                         report_fallbacks=False)
                data = program.to_bytes()
                counts = instructions(board_name, data, x)
                arena = sum(program.arena_bytes.values())
                cell = (f"{counts[0]:,}" + ("" if counts[0] == counts[1] else " (runs differ!)")
                        if isinstance(counts[0], int) else f"failed: {counts[0]!r}")
                per_step = f"{counts[0] / steps:,.0f}" if isinstance(counts[0], int) else ""
                print(f"| {name} | {'one op' if form == 'one' else 'unrolled by hand'} | {board_name} "
                      f"({board.tier}) | {len(program.graph.ops)} | {len(data):,} | {arena:,} | {cell} | {per_step} |",
                      flush=True)


if __name__ == "__main__":
    main()
