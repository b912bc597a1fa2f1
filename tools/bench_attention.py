#!/usr/bin/env python3
"""Instruction counts of an int8 attention block on QEMU boards (exact: -icount, see
/work/shared/MEASURING.md): KWT-like, x [1, tokens, dim] -> q, k, v linear -> `heads` heads of
F.scaled_dot_product_attention (optionally causal) -> output linear.

    ./scons em_run board=corstone300 && ./scons em_run board=mps2_an386 && \
        .venv/bin/python tools/bench_attention.py [--boards corstone300,mps2_an386] \
        [--tokens 99] [--dim 64] [--heads 4] [--causal]

Per board the block is lowered for the board's CPU (int8 in and out) and run twice whole; then
its attention part alone — every op after the q, k, v projections and before the output
projection (the head split, q·kᵀ with the scale folded in, the softmax, ·v, the merge) — as a
program of its own fed the projections' reference values. Each output is checked against
compiler.reference byte for byte and the two runs' counts must agree.
"""
from __future__ import annotations

import argparse
import copy
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import compiler
from compiler import reference
from compiler.ir import Graph
from compiler.planner import Region, plan_memory
from compiler.program import Program
from compiler.scratch import SUFFIX
from compiler.target import Target
from ember_build.board import load_board
from ember_build.paths import BUILD_ROOT
from ember_build.qemu import emulator_command


class Block(nn.Module):
    def __init__(self, dim: int, heads: int, causal: bool):
        super().__init__()
        self.heads, self.causal = heads, causal
        self.q, self.k, self.v, self.out = (nn.Linear(dim, dim) for _ in range(4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = (p(x).view(b, t, self.heads, d // self.heads).transpose(1, 2) for p in (self.q, self.k, self.v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=self.causal)
        return self.out(y.transpose(1, 2).reshape(b, t, d))


def attention_part(graph: Graph) -> Graph:
    """The ops downstream of the first three fully_connected ops (q, k, v) and upstream of the
    last (the output projection), with the tensors they read from outside as inputs."""
    projections = [op for op in graph.ops if op.kind == "fully_connected"]
    assert len(projections) == 4, [op.kind for op in graph.ops]
    *qkv, out = projections
    reached = {name for op in qkv for name in op.outputs}
    part = []
    for op in graph.ops:
        if op is out:
            break
        if op.kind != "fully_connected" and any(name in reached for name in op.inputs):
            part.append(op)
            reached.update(op.outputs)
    produced = {name for op in part for name in op.outputs}
    inputs = list(dict.fromkeys(name for op in part for name in op.inputs
                                if name not in produced and not graph.tensors[name].is_constant))
    outputs = [name for name in out.inputs if name in produced]
    names = {name for op in part for name in (*op.inputs, *op.outputs)}
    tensors = {name: copy.deepcopy(t) for name, t in graph.tensors.items() if name in names}
    return Graph(tensors, [copy.deepcopy(op) for op in part], inputs, outputs)


def single_op(graph: Graph, op) -> Graph:
    """`op` alone, its non-constant inputs the program's inputs (its scratch planned again)."""
    alone = copy.deepcopy(op)
    alone.outputs = [name for name in op.outputs if not name.endswith(SUFFIX)]
    tensors = {name: copy.deepcopy(graph.tensors[name]) for name in (*alone.inputs, *alone.outputs)}
    inputs = list(dict.fromkeys(name for name in op.inputs if not graph.tensors[name].is_constant))
    return Graph(tensors, [alone], inputs, list(alone.outputs))


def run(board: str, program: Program, inputs: list[np.ndarray], workdir: Path) -> int:
    """Instructions of one invoke of `program` on `board` (twice, equal), output checked."""
    want = [reference.run(program.graph, inputs)[name] for name in program.graph.outputs]
    (workdir / "p.embr").write_bytes(program.to_bytes())
    args = ["p.embr"]
    for k, x in enumerate(inputs):
        (workdir / f"in{k}.bin").write_bytes(np.ascontiguousarray(x).tobytes())
        args += ["--input", f"in{k}.bin"]
    args += ["--output", "out.bin"]
    elf = BUILD_ROOT / board / "em_run.elf"
    counts = []
    for _ in range(2):
        command = emulator_command(load_board(board), elf, " ".join(args))
        result = subprocess.run(command, cwd=workdir, capture_output=True, text=True, timeout=600)
        if result.returncode != 0:
            raise SystemExit(f"{board}: em_run failed ({result.returncode}):\n{result.stdout}{result.stderr}")
        got = np.frombuffer((workdir / "out.bin").read_bytes(), np.int8)
        if not np.array_equal(got, np.ascontiguousarray(want[0]).reshape(-1).view(np.int8)):
            raise SystemExit(f"{board}: output differs from compiler.reference")
        counts.append(next(int(line.split()[1]) for line in result.stdout.splitlines()
                           if line.startswith("instructions:")))
    if counts[0] != counts[1]:
        raise SystemExit(f"{board}: counts differ between runs: {counts}")
    return counts[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", default="corstone300,mps2_an386")
    parser.add_argument("--tokens", type=int, default=99)
    parser.add_argument("--dim", type=int, default=64)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--causal", action="store_true")
    args = parser.parse_args()
    torch.manual_seed(0)
    model = Block(args.dim, args.heads, args.causal).eval()
    generator = torch.Generator().manual_seed(1)
    calibration = [(torch.randn(1, args.tokens, args.dim, generator=generator),) for _ in range(4)]
    x = torch.randn(1, args.tokens, args.dim, generator=generator)
    print(f"| board | block: {args.tokens} tokens, dim {args.dim}, {args.heads} heads{', causal' if args.causal else ''} "
          "| instructions (QEMU), whole block | attention part | its ops, each alone |\n|---|---|---:|---:|---|")
    for board in args.boards.split(","):
        cpu = load_board(board).cpu
        program = compiler.lower(model, (x,), calibration, target=cpu, int8_io=True, report_fallbacks=False)
        codes = np.clip(np.rint(x.numpy() / program.graph.tensors[program.graph.inputs[0]].quant.scale[0])
                        + program.graph.tensors[program.graph.inputs[0]].quant.zero_point[0], -128, 127).astype(np.int8)
        values = reference.run(program.graph, [codes], keep_all=True)
        part = attention_part(program.graph)
        plan = plan_memory(part, Region("sram", 1 << 20), None)
        part_program = Program(part, Target(cpu), "attention", plan)
        each = []
        with tempfile.TemporaryDirectory() as tmp:
            whole = run(board, program, [codes], Path(tmp))
            attention = run(board, part_program, [values[name] for name in part.inputs], Path(tmp))
            for op in part.ops:
                if op.kind == "reshape":  # an alias of its input: no work
                    continue
                alone = single_op(part, op)
                alone_program = Program(alone, Target(cpu), op.kind, plan_memory(alone, Region("sram", 1 << 20), None))
                count = run(board, alone_program, [values[name] for name in alone.inputs], Path(tmp))
                each.append(f"{op.kind} {'x'.join(map(str, part.tensors[op.outputs[0]].shape))} {count:,}")
        kinds = "; ".join(each)
        print(f"| {board} | {cpu} | {whole:,} | {attention:,} | {kinds} |", flush=True)


if __name__ == "__main__":
    main()
