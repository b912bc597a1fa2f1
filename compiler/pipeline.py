"""The compilation pipeline behind compiler.lower: a PyTorch model in, a planned int8 program for one target out."""
from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence

import torch

from compiler.audio_features import FrontEnd
from compiler.errors import UnsupportedOpError
from compiler.frontend import importable, quantize
from compiler.importer import import_program
from compiler.ir import Graph
from compiler.ops import OP_TABLE
from compiler.options import LoweringOptions, Stream
from compiler.passes import IR_PASSES
from compiler.placement import Memory
from compiler.planner import Region, plan_memory
from compiler.program import Program, float_fallback_report
from compiler.quantizer import CortexMQuantizer
from compiler.target import Target

DEFAULT_ARENA_CAPACITY = 1 << 30  # no cap unless the board or app gives one


def lower_graph(graph: Graph, options: LoweringOptions) -> Graph:
    """Runs the IR pass list; fails naming the first op that has no Ember lowering."""
    for lowering in IR_PASSES:
        graph = lowering(graph, options)
    for op in graph.ops:
        if op.kind not in OP_TABLE:
            raise UnsupportedOpError(op.kind, op.origin, "No Ember kernel implements it in this release.")
    return graph


def lower(
    model: torch.nn.Module,
    example_inputs: tuple,
    calibration_data: Iterable,
    target: str | Target = "cortex-m55",
    *,
    int8_io: bool = False,
    arena: Region | Memory | None = None,
    name: str = "model",
    quantizer: CortexMQuantizer | None = None,
    report_fallbacks: bool = True,
    front_end: FrontEnd | None = None,
    state: Sequence[tuple[int, int]] = (),
    stream: Stream | None = None,
) -> Program:
    """Exports, quantizes (PT2E), lowers and plans `model` for `target`.

    `calibration_data` yields input batches (a tensor or a tuple of tensors each). With
    `int8_io` the program takes and returns int8 tensors instead of float32. Ops left in float
    (`quantizer`'s skip options, or ops with no int8 lowering) run in float32 kernels; with
    `report_fallbacks` the list of them, and why, is printed to stderr (Program.summary() has it).

    `arena`: one Region, or a compiler.placement.Memory (the board's regions by speed, with pins
    and caps): the plan then spills over the regions (compiler/placement.py).

    `front_end` (compiler.audio_features.MFCC_KWS, LOG_MEL_ANOMALY or another FrontEnd): the
    program takes raw int16 audio [batch, front_end.samples] and computes the model's input with
    the mel_features op. `example_inputs` and `calibration_data` stay features (what
    `front_end(audio)` returns, reshaped to the model's input), exactly the device's values.

    `state`: pairs (input index, output index) of a model that takes its state and returns the
    next one (`forward(x, h) -> (y, h_next)`: state=[(1, 1)]). Each such input becomes a
    persistent tensor the program keeps from one invoke to the next, fed by that output (which
    leaves the outputs), reset to 0 by em_program_reset_state(); `example_inputs` and
    `calibration_data` still give every input, the state's with values it takes in use.

    `stream` (compiler.options.Stream(axis, hop)): the model, calibrated and quantized on whole
    windows of input 0, becomes a program that takes `hop` new frames along `axis` per invoke and
    keeps the earlier frames its layers still need (passes/stream_frames.py); each invoke returns
    what the windowed program returns for the window ending with its frames.
    """
    target = target if isinstance(target, Target) else Target(target)
    quantizer = quantizer or CortexMQuantizer()
    state = tuple((int(i), int(j)) for i, j in state)
    quantized = quantize(model, example_inputs, calibration_data, quantizer, state)
    imported = import_program(importable(quantized, example_inputs), quantizer.float_reason)
    graph = lower_graph(imported, LoweringOptions(target, int8_io, front_end, state, stream))
    report = float_fallback_report(graph)
    if report and report_fallbacks:
        print(f"ember: {name}: {report}", file=sys.stderr)
    plan = plan_memory(graph, arena or Region("sram", DEFAULT_ARENA_CAPACITY), target.tier)
    return Program(graph, target, name, plan, quantized_model=quantized)
