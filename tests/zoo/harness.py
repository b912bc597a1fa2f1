"""Lowers architectures as a user would (compiler.lower for the Cortex-M55, the model exactly as
written, a few random calibration batches), measures how far the integer program is from
PyTorch's quantized (PT2E) model, and runs every program on the devices in one em_run --batch
launch each.

Two distances from PT2E, both in output LSBs:
- op by op (tools/debug_numerics.op_by_op_lsb): each op on PT2E's own input codes, its output
  against PT2E's. This is the numerics contract: at most 1 LSB for every op.
- end to end: the program's outputs against the PT2E model's. Over a deep network with random
  weights, a 1-LSB difference at one op (PyTorch rounds a float sum, Ember an exact integer one)
  can grow op after op, so this is reported (the share within 1 LSB), not bounded.

Lowering is the slow part (torch.export, PT2E): `lower_all` spreads it over the machine's cores,
and each worker returns plain data (bytes, arrays, numbers), not programs.
"""
from __future__ import annotations

import copy
import multiprocessing
import os
import time
import traceback
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from tests.zoo.architectures import Architecture

TARGET = "cortex-m55"
DEVICE_TARGETS = {"host": "host", "corstone300": "cortex-m55"}  # board -> the CPU its runtime runs
CALIBRATION_BATCHES = 4
TEST_SEED = 9  # the inputs the programs are compared on


@dataclass
class Lowered:
    """One architecture through the compiler: everything the tests and the README table read."""

    name: str
    family: str
    error: str = ""  # the compiler's message when lowering failed
    seconds: float = 0.0  # compiler.lower, wall clock
    ops: int = 0
    int8_ops: int = 0
    float_ops: list[str] = field(default_factory=list)  # "kind (reason)" of each op left in float
    kinds: list[str] = field(default_factory=list)
    program: bytes = b""
    # board -> the program for it, once with each output first (em_run --batch compares output 0)
    device_programs: dict[str, list[bytes]] = field(default_factory=dict)
    inputs: list[np.ndarray] = field(default_factory=list)  # Ember's layout
    outputs: list[np.ndarray] = field(default_factory=list)  # the reference's, for `inputs`
    op_lsb: list[tuple[int, str, int]] = field(default_factory=list)  # op_by_op_lsb
    end_to_end_within_1: float = 1.0  # share of output values within 1 LSB of PT2E
    end_to_end_max: float = 0.0
    arena_bytes: int = 0
    constant_bytes: int = 0

    @property
    def lowered(self) -> bool:
        return not self.error

    @property
    def worst_op_lsb(self) -> int:
        return max((lsb for *_, lsb in self.op_lsb), default=0)


def _ember_layout(x) -> np.ndarray:
    from tests.integration.agreement import nhwc

    return nhwc(x)


def lower(architecture: Architecture) -> Lowered:
    import torch

    import compiler
    from compiler.errors import EmberCompileError
    from tools.debug_numerics import op_by_op_lsb

    result = Lowered(architecture.name, architecture.family)
    model = architecture.build()
    example = architecture.inputs(0)
    calibration = [architecture.inputs(seed) for seed in range(1, 1 + CALIBRATION_BATCHES)]
    start = time.perf_counter()
    try:
        program = compiler.lower(model, example, calibration, target=TARGET, report_fallbacks=False)
    except EmberCompileError as error:
        result.error = str(error)
        return result
    except Exception:  # noqa: BLE001  (a raw error from Ember's own code is a finding: kept whole)
        result.error = "INTERNAL " + traceback.format_exc(limit=-3)
        return result
    result.seconds = time.perf_counter() - start
    graph = program.graph
    result.ops = len(graph.ops)
    result.kinds = [op.kind for op in graph.ops]
    result.float_ops = [f"{op.kind}: {op.attrs['float_reason']}" for op in graph.ops if "float_reason" in op.attrs]
    result.int8_ops = result.ops - len(result.float_ops)
    result.program = program.to_bytes()
    result.device_programs = _device_programs(program)
    result.arena_bytes = sum(program.arena_bytes.values())
    result.constant_bytes = sum(t.nbytes for t in graph.tensors.values() if t.is_constant)
    torch_inputs = architecture.inputs(TEST_SEED)
    result.inputs = [_ember_layout(x) for x in torch_inputs]
    result.outputs = program.run_reference(*result.inputs)
    result.op_lsb = op_by_op_lsb(program, result.inputs)
    theirs = program.quantized_model(*torch_inputs)
    theirs = theirs if isinstance(theirs, (tuple, list)) else (theirs,)
    differences = []
    for k, (ours, pt2e) in enumerate(zip(result.outputs, theirs)):
        producer = graph.producer(graph.outputs[k])
        scale = float(producer.attrs["scale"]) if producer is not None and "scale" in producer.attrs else None
        if scale is not None:
            differences.append(np.abs(np.rint((ours - _ember_layout(pt2e.detach())) / scale)).reshape(-1))
    if differences:
        lsb = np.concatenate(differences)
        result.end_to_end_within_1 = float(np.mean(lsb <= 1))
        result.end_to_end_max = float(lsb.max())
    return result


def _device_programs(program) -> dict[str, list[bytes]]:
    """The program planned for every tier (scratch the largest any tier's kernels ask for; the
    passes do not depend on the tier), stamped for each device's CPU, once per output first."""
    from compiler.planner import Region, plan_memory
    from compiler.program import Program
    from compiler.target import Target

    graph = copy.deepcopy(program.graph)
    plan = plan_memory(graph, Region("sram", 1 << 30), None)
    programs = {}
    for board, cpu in DEVICE_TARGETS.items():
        portable = Program(graph, Target(cpu), program.name, plan)
        programs[board] = [
            replace(portable, graph=replace(graph, outputs=[graph.outputs[k]] + graph.outputs[:k] + graph.outputs[k + 1:]))
            .to_bytes() for k in range(len(graph.outputs))]
    return programs


def _lower_by_name(args: tuple[str, str, str]) -> Lowered:
    module, table, name = args
    from importlib import import_module

    return lower(getattr(import_module(module), table)[name])


def _warm_up() -> None:
    import compiler  # noqa: F401  (torch, torchao and the compiler, imported once per worker)


def lower_all(tables: list[tuple[str, str]]) -> list[dict[str, Lowered]]:
    """The architectures of each dict `module.table`, lowered in one pool over all cores (one
    pool: each spawned worker imports torch once), in the order given (the slow ones first keeps
    both cores busy to the end)."""
    from importlib import import_module

    jobs = [(module, table, name) for module, table in tables for name in getattr(import_module(module), table)]
    workers = max(1, min(len(jobs), os.cpu_count() or 1))
    context = multiprocessing.get_context("spawn")  # a fork of a process that ran torch's threads can hang
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_warm_up) as pool:
        done = list(pool.map(_lower_by_name, jobs))
    results: list[dict[str, Lowered]] = [{} for _ in tables]
    for (module, table, _), result in zip(jobs, done):
        results[tables.index((module, table))][result.name] = result
    return results


def device_batch(board: str, lowered: list[Lowered]) -> list[tuple[str, int, tuple]]:
    """(architecture, output index, em_run --batch case) for every output of every program:
    program bytes with that output first, the inputs' bytes, the expected output's bytes."""
    cases = []
    for result in lowered:
        inputs = [np.ascontiguousarray(x).tobytes() for x in result.inputs]
        for k, program in enumerate(result.device_programs[board]):
            cases.append((result.name, k, (program, inputs, np.ascontiguousarray(result.outputs[k]).tobytes())))
    return cases


def run_on_device(board: str, lowered: list[Lowered], workdir: Path) -> dict[tuple[str, int], str]:
    """Every output of every lowered program in ONE em_run --batch launch on `board`: the verdict
    ("match ..." or what went wrong) by (architecture, output index)."""
    from tests.kernels.conformance import Device, run_batch

    device = Device(board, board)
    cases = device_batch(board, [r for r in lowered if r.lowered])
    run = run_batch(device, device.build_runner(), [case for *_, case in cases], workdir)
    return {(name, k): f"{verdict.status} {verdict.detail}".strip()
            for (name, k, _), verdict in zip(cases, run.verdicts)}
