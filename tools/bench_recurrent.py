"""Instructions (QEMU, MEASURING.md's counting through em_run) of the zoo's recurrent models per
board, as one op per layer and unrolled per step, with their program and arena bytes (README,
"Recurrent layers"). Each program runs twice on the zoo's test input; the counts must agree.

    .venv/bin/python tools/bench_recurrent.py [BOARDS] [MODELS] [FORMS]
    e.g. tools/bench_recurrent.py corstone300,mps2_an386,mps2_an385 gru_kws,lstm_kws one,unrolled
"""
from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests" / "runtime"), str(REPO / "tests" / "kernels")]
import compiler  # noqa: E402
from compiler.target import Target  # noqa: E402
from compiler.ops import recurrent
from build_host import scons_em_run
from ember_build.board import load_board
from ember_build.qemu import run_firmware
from tests.zoo.architectures import ARCHITECTURES
from tests.zoo import harness

BOARDS = sys.argv[1].split(",") if len(sys.argv) > 1 else ["corstone300", "mps2_an386", "mps2_an385"]
MODELS = sys.argv[2].split(",") if len(sys.argv) > 2 else ["gru_kws", "lstm_kws"]
rows = []
whole = recurrent.takes_whole
import torch
from compiler.decompositions import EMBER_DECOMPOSITIONS
FORMS = sys.argv[3].split(",") if len(sys.argv) > 3 else ["one"]
for unrolled in [f == "unrolled" for f in FORMS]:
    patched = (lambda *a, **k: "measuring the unrolled form") if unrolled else whole
    recurrent.takes_whole = patched
    for op in (torch.ops.aten.gru.input, torch.ops.aten.lstm.input):
        for cell in EMBER_DECOMPOSITIONS[op].__closure__:
            if getattr(cell.cell_contents, "__name__", "") in ("takes_whole", "<lambda>"):
                cell.cell_contents = patched
    for name in MODELS:
        arch = ARCHITECTURES[name]
        model = arch.build()
        cal = [arch.inputs(s) for s in range(1, 1 + harness.CALIBRATION_BATCHES)]
        x = harness._ember_layout(arch.inputs(harness.TEST_SEED)[0])
        for board_name in BOARDS:
            board = load_board(board_name)
            program = compiler.lower(model, arch.inputs(0), cal, target=Target(board.cpu, board.tier), report_fallbacks=False)
            data = program.to_bytes()
            work = Path(tempfile.mkdtemp(prefix="rnnbench_"))
            (work / "p.embr").write_bytes(data)
            (work / "x.bin").write_bytes(np.ascontiguousarray(x, np.float32).tobytes())
            elf = scons_em_run(board_name)
            counts = []
            for _ in range(2):  # two runs must agree (MEASURING.md step 5)
                done = run_firmware(board, elf, args="p.embr --input x.bin", timeout_s=600, cwd=work)
                m = re.search(r"instructions: (\d+)", done.console_text)
                counts.append(int(m.group(1)) if m else done.console_text[-500:])
            ops = len(program.graph.ops)
            rows.append((name, "unrolled" if unrolled else "one op", board_name, board.tier, ops, len(data),
                         sum(program.arena_bytes.values()), counts))
            print(rows[-1], flush=True)
print("| model | form | board (tier) | ops | program bytes | arena bytes | instructions | per step (T=49) |")
for name, form, b, tier, ops, size, arena, c in rows:
    n = c[0] if isinstance(c[0], int) else None
    same = "" if c[0] == c[1] else " (runs differ!)"
    print(f"| {name} | {form} | {b} ({tier}) | {ops} | {size:,} | {arena:,} | {n:,}{same} | {n / 49:,.0f} |" if n else
          f"| {name} | {form} | {b} | {ops} | {size:,} | {arena:,} | failed: {c[0]!r} | |")
