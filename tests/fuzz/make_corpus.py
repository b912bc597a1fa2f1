"""Writes the fuzzer's seed corpus to a folder: valid programs from tests/runtime/programs.py and,
for every op, a few of its conformance cases (tests/kernels/cases/), so that each op's check()
is fuzzed from programs it accepts.

    python tests/fuzz/make_corpus.py build/fuzz/corpus
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO), str(REPO / "tests" / "runtime"), str(REPO / "tests" / "kernels")]

import programs  # noqa: E402

if TYPE_CHECKING:
    from compiler.target import Target

SEED_MAX_BYTES = 4096  # the fuzzer's -max_len
CASES_PER_OP = 3       # the first, middle and last of an op's cases: different shapes and options


def conformance_programs(target: Target | None = None) -> dict[str, bytes]:
    """Per op, CASES_PER_OP of its conformance cases (spread over its list) as programs for
    `target` (default: the host)."""
    import conformance
    from compiler.target import Target
    from compiler.writer import write_program

    target = target or Target("host")
    by_op: dict[str, list] = {}
    for case in conformance.all_cases():
        by_op.setdefault(case.op, []).append(case)
    seeds = {}
    for op, cases in by_op.items():
        picks = {cases[i * (len(cases) - 1) // max(CASES_PER_OP - 1, 1)].name: None for i in range(CASES_PER_OP)}
        for case in cases:
            if case.name in picks:
                data = write_program(case.graph, target)
                if len(data) <= SEED_MAX_BYTES:
                    seeds[f"{op}-{''.join(c if c.isalnum() else '_' for c in case.name)}"] = data
    return seeds


def data_movement_program(target: Target | None = None) -> bytes:
    """Every data-movement op and requantize in one chain (their option vectors get fuzzed)."""
    from compiler.ir import Graph, Op, Quant, Tensor
    from compiler.planner import Region, plan_memory
    from compiler.target import Target
    from compiler.writer import write_program

    shapes = {"x": (1, 2, 3, 4), "p": (1, 3, 3, 5), "t": (1, 5, 3, 3), "s": (1, 3, 2, 2), "u": (1, 6, 4, 2),
              "r": (48,), "y": (48,)}
    tensors = {n: Tensor(n, "int8", shape, Quant.per_tensor(0.1, 0)) for n, shape in shapes.items()}
    ops = [Op("pad", ["x"], ["p"], {"before": [0, 1, 0, 0], "after": [0, 0, 0, 1], "value": -3}),
           Op("transpose", ["p"], ["t"], {"perm": [0, 3, 1, 2]}),
           Op("slice", ["t"], ["s"], {"begin": [0, 1, 0, 1], "step": [1, 1, 2, 1], "size": [1, 3, 2, 2]}),
           Op("upsample_nearest", ["s"], ["u"], {"scale_h": 2, "scale_w": 2}),
           Op("reshape", ["u"], ["r"], {}),
           Op("requantize", ["r"], ["y"], {"input_offset": 3, "output_offset": -7, "output_multiplier": 1 << 30,
                                           "output_shift": 1})]
    graph = Graph(tensors, ops, ["x"], ["y"])
    plan_memory(graph, Region("sram", 1 << 16))
    return write_program(graph, target or Target("host"))


def broadcast_program(target: Target | None = None) -> bytes:
    """add, mul, maximum and minimum chained over general broadcasts (both operands broadcast,
    middle axes, rank 0 and rank 4 against rank 3), so their shape checks get fuzzed."""
    import numpy as np

    from compiler.fixedpoint import quantize_multiplier
    from compiler.ir import Graph, Op, Quant, Tensor
    from compiler.planner import Region, plan_memory
    from compiler.target import Target
    from compiler.writer import write_program

    q = Quant.per_tensor(0.1, 0)
    shapes = {"x": (2, 1, 5), "c": (1, 3, 1), "s": (2, 3, 5), "d": (3, 1), "m": (2, 3, 5), "e": (),
              "h": (2, 3, 5), "f": (2, 1, 1, 5), "y": (2, 2, 3, 5)}
    constants = {n: np.arange(int(np.prod(shapes[n])), dtype=np.int8).reshape(shapes[n]) for n in "cdef"}
    tensors = {n: Tensor(n, "int8", shape, q, constants.get(n)) for n, shape in shapes.items()}
    (ma, sa), (mo, so) = quantize_multiplier(0.5), quantize_multiplier(2.0 ** -20)
    add = dict(a_offset=1, a_multiplier=ma, a_shift=sa, b_offset=-2, b_multiplier=-ma, b_shift=sa, output_offset=3,
               output_multiplier=mo, output_shift=so, activation_min=-128, activation_max=127)
    mul = dict(a_offset=0, b_offset=5, output_offset=-1, output_multiplier=ma, output_shift=-4, activation_min=-100,
               activation_max=100)
    ops = [Op("add", ["x", "c"], ["s"], add), Op("mul", ["s", "d"], ["m"], mul), Op("maximum", ["e", "m"], ["h"], {}),
           Op("minimum", ["h", "f"], ["y"], {})]
    graph = Graph(tensors, ops, ["x"], ["y"])
    plan_memory(graph, Region("sram", 1 << 16))
    return write_program(graph, target or Target("host"))


def write_corpus(out: Path, target: Target | None = None) -> list[Path]:
    """The seeds as program files in `out`, written for `target` (default: the host, the fuzzer's)."""
    out.mkdir(parents=True, exist_ok=True)
    seeds = {
        "fc_b1": programs.fc_program(batches=1)[0],
        "fc_b3": programs.fc_program(batches=3)[0],
        "fc_big": programs.fc_program(programs.fc_case(batches=1, n_in=40, n_out=9, seed=4), 1)[0],
        "pipeline": programs.pipeline_program()[0],
    }
    pinned = programs.fc_program(batches=2)[0]  # weights pinned to RAM: copied at load (initial_buffer)
    name, size = pinned.arenas[0]
    pinned.tensors[1].buffer, pinned.tensors[1].offset, pinned.tensors[1].initial_buffer = -1, size, 0
    pinned.arenas[0] = (name, size + (pinned.tensors[1].byte_size() + 15) // 16 * 16)
    seeds["fc_pinned"] = pinned
    for spec in seeds.values():
        spec.tier = target.tier.number if target else spec.tier
    payloads = {name: programs.build(spec) for name, spec in seeds.items()}
    payloads["data_movement"] = data_movement_program(target)
    payloads["broadcast"] = broadcast_program(target)
    payloads.update(conformance_programs(target))
    paths = []
    for name, data in payloads.items():
        path = out / f"{name}.embr"
        path.write_bytes(data)
        paths.append(path)
    return paths


if __name__ == "__main__":
    write_corpus(Path(sys.argv[1]))
