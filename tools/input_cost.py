"""What keeping every program input intact through an invoke would cost in arena bytes: the four
MLPerf Tiny models (the bench's, int8 in and out) planned as the compiler plans them, and again
with each input alive to the last step and no in-place op over it.

    .venv/bin/python -m tools.input_cost [--tiers mve,dsp,scalar] [--out build/input_cost.md]

The compiler keeps the saving: the plan reuses a dead input's bytes, the program says which inputs
an invoke consumes (Program.inputs_kept), and the serial link refuses a RUN on a consumed one
(runtime/README.md, "Memory"). This table is the figure behind that choice.
"""
from __future__ import annotations

import argparse
import copy
from pathlib import Path

from compiler import scratch
from compiler.planner import Buffer, Region, best_offsets, lifetimes, overlaps, plan_memory
from compiler.program import write_atomically
from ember_build import bench


def kept_arena(graph, tier: str) -> int:
    """The arena of `graph` planned with its inputs alive over every step and never overwritten."""
    scratch.attach(graph, tier)
    last = max(len(graph.ops) - 1, 0)
    buffers = [Buffer(b.name, b.size, b.first, last) if b.name in graph.inputs else b for b in lifetimes(graph)]
    allowed = {pair: margin for pair, margin in overlaps(graph, buffers).items() if pair[1] not in graph.inputs}
    return best_offsets(buffers, allowed)[0]


def table(tiers: list[str]) -> str:
    rows = ["| model | tier | input B | arena B | inputs kept B | cost |", "|---|---|---:|---:|---:|---:|"]
    for name in bench.MLPERF_MODELS:
        for tier in tiers:
            lowered = bench._lowered(name, tier)
            reused = plan_memory(copy.deepcopy(lowered), Region("sram", 1 << 30), tier).size
            kept = kept_arena(copy.deepcopy(lowered), tier)
            inputs = sum(lowered.tensors[t].nbytes for t in lowered.inputs)
            rows.append(f"| {name} | {tier} | {inputs:,} | {reused:,} | {kept:,} | {100 * (kept - reused) / reused:+.1f} % |")
    return "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiers", default="mve,dsp,scalar", help="comma-separated ISA tiers")
    parser.add_argument("--out", type=Path, help="also write the table to this Markdown file")
    args = parser.parse_args(argv)
    text = table([t for t in args.tiers.split(",") if t])
    print(text, end="")
    if args.out:
        write_atomically(args.out, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
