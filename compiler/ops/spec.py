"""OpSpec: everything the compiler knows of one Ember op, declared once in the op's own module.

The generic modules read these records and name no op: the writer and reader (options), the
reference interpreter, the planner (in-place margin, output aliasing), compiler/scratch.py
(kernel scratch), compiler/macs.py, compiler/kernel_variants.py (the kernel path and the
selectable Helium variants), compiler/placement.py (weights worth pinning to fast memory),
fold_activations and fold_data_movement, and the generated registry (registration).
"""
from __future__ import annotations

import ctypes
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from compiler.ir import Graph, Op
from compiler.streaming import StreamRule
from compiler.schema import program_generated as fb


# (graph, op, tier, variants the program links) -> the path `op` runs, in words.
PathRule = Callable[[Graph, Op, str, frozenset[str]], str]


def _no_macs(graph: Graph, op: Op) -> int:
    return 0


def _no_overlap(graph: Graph, op: Op, index: int) -> int | None:
    return None


@dataclass(frozen=True)
class Import:
    """ATen ops of the exported graph that an op module takes: how compiler/importer.py reads them
    into the importer's kinds, and how CortexMQuantizer annotates them (compiler/quantizer.py)."""

    targets: tuple[object, ...]  # torch.ops OpOverloads
    # (node, its tensor inputs) -> (the importer's kind, attrs); raises UnsupportedOpError for
    # arguments Ember does not lower.
    read: Callable[[object, list], tuple[str, dict]]
    # CortexMQuantizer's annotation scheme ("weighted", "binary", "shared", …: quantizer.py); None: the
    # node gets none of its own (a boundary, an activation, a table's member, a float-only op).
    scheme: str | None = None
    weight_axis: int = 0  # "weighted": the weight's output-channel axis
    # A ReLU / clamp that a producer's annotation may take as its fused output clamp.
    activation: bool = False
    float_only: bool = False  # no int8 lowering: float32 kernels only (left in float)
    # Has int16 kernels (A16W8: int16 activations, zero point 0): an "a16w8" layer's op of this
    # kind computes in int16; others stay int8, with a requantize at each boundary.
    int16: bool = False
    # Ranges inside the op that PT2E cannot observe (an LSTM's cell state): (node, its float
    # argument values, its result) -> {name: (low, high)}, run on every calibration batch
    # (compiler/frontend.py); the union of the ranges reaches the reader as node.meta["ember_ranges"].
    calibrate: Callable[[object, tuple, object], dict[str, tuple[float, float]]] | None = None
    # Run only at the example's batch: its ATen kernel does not check a traced state's batch
    # against the input's (aten.lstm.input corrupts the heap), so compiler/frontend.py's
    # ExampleBatched runs a larger batch chunk by chunk instead of trying it at once.
    fixed_batch: bool = False


@dataclass(frozen=True)
class Lowering:
    """How an op's module turns what the importer made (an "aten.*" op inside its dequantize → … →
    quantize pattern) into Ember ops (passes/lower_ops.py runs them)."""

    imported: tuple[str, ...]  # the importer's kinds it lowers
    lower: Callable[[Graph, Op], None]  # replaces one such op (and its pattern) in the graph
    # Runs after the data-movement and pad folds (a linear folds the reshape before it; the
    # others kept the place they had when the lowerings were passes).
    after_folds: bool = False
    # Takes a ReLU / clamp that alone reads the imported op's output as its activation
    # (passes/fold_activations.py).
    fuses_activation: bool = False


@dataclass(frozen=True, eq=False)  # one record per op: compared and hashed by identity
class OpSpec:
    kind: str
    opcode: int  # schema OpCode value
    options_type: int  # schema OpOptions union type
    # (op, input arrays) -> output arrays, exactly as the C kernels compute them.
    reference: Callable[[Op, list[np.ndarray]], list[np.ndarray]]
    # (flatbuffers builder, op) -> offset of the options table.
    write_options: Callable[[object, Op], int]
    # (options table object from the generated reader) -> op attrs.
    read_options: Callable[[object], dict]
    # C symbol of the op's em_op_registration (runtime/ops/em_op_<kind>.c). The generated
    # registry names it, so the linker pulls that adapter and its kernels from the runtime library.
    registration: str
    # The output holds exactly the input's bytes (reshape): the planner may give both one buffer.
    output_aliases_input: bool = False
    # (graph, op) -> multiply-accumulates of one run (ops not built on them count 0, as
    # CMSIS-NN's and MLPerf Tiny's figures do).
    macs: Callable[[Graph, Op], int] = _no_macs
    # (graph, op, input index) -> the least offset(input) − offset(output) at which the kernel may
    # write its output over that input (it dies at this op); None: never (compiler/ops/overlap.py).
    in_place: Callable[[Graph, Op, int], int | None] = _no_overlap
    # (sizing library of one tier, graph, op) -> bytes of scratch the kernel asks for, from the
    # kernel's own C (compiler/scratch.py); None: the adapter takes no scratch.
    scratch: Callable[[ctypes.CDLL, Graph, Op], int] | None = None
    # The kernel path on a tier: a rule, or {tier or "*": path} when the tier alone decides.
    path: PathRule | Mapping[str, str] = field(default_factory=lambda: {"*": "portable"})
    # Its kernel's Helium variants (EM_NN_PATH_<NAME> of runtime/kernels/include/em_nn_variants.h)
    # and the rule that chooses them: (graph, the graph's ops of this kind, the graph's MACs,
    # compact: the target optimises for size) -> per op, the variants it runs (compact: leave out
    # those that only save instructions). The choice is written into the program and the kernel runs it
    # (compiler/kernel_variants.py); the adapter's check() refuses a choice that does not fit.
    variants: tuple[str, ...] = ()
    choose_variants: Callable[[Graph, list[Op], int, bool], list[set[str]]] | None = None
    # Its kernel has an int16 (A16W8) form, built only into a firmware whose program has an op of
    # this kind with an int16 input or output: link switch EM_NN_VARIANT_<KIND>_S16 of
    # em_nn_variants.h (compiler/kernel_variants.py). Its int8 variants are not chosen for such ops.
    int16_kernel: bool = False
    # What reports add to its shapes (compiler/layers.py), e.g. a convolution's " k3x3/2".
    shape_note: Callable[[Graph, Op], str] | None = None
    # Its constants (weights, bias) only its kernel reads, at run time, so they may be copied to
    # RAM (compiler/placement.py); other ops' constants (LUT tables, the audio front end's) are
    # read by their check() at load, before any copy.
    weighted: bool = False
    # A pad of real 0 over H and W in front of its first input folds into its own padding
    # (ops/pad.py's fold): (op, the pad, the pad's (top, bottom, left, right)) -> whether it
    # took them (then it has updated its attrs).
    take_zero_pad: Callable[[Op, Op, tuple[int, int, int, int]], bool] | None = None

    # How it runs on a stream along a time axis (compiler/streaming.py): (graph, op, {input index:
    # its time axis}) -> Framewise / Window, or None: it needs the whole window (passes/stream_frames.py).
    stream: StreamRule | None = None
    # A peephole over the graph's ops of this kind that removes copies layout conversion,
    # slicing and padding made redundant (passes/fold_data_movement.py runs them all until none changes
    # anything); returns whether it changed the graph.
    fold: Callable[[Graph], bool] | None = None
    # (graph, op) -> rows of its int4 weights its adapter unpacks at a time (compiler/scratch.py
    # sizes the scratch for them); None: all at once, once per run.
    int4_rows: Callable[[Graph, Op], int] | None = None
    # What it lowers from the importer's ops (one lowering may make several ops: conv2d's makes
    # depthwise_conv2d too, and is declared once, by conv2d).
    lowerings: tuple[Lowering, ...] = ()
    # The importer's kinds it lowers in float32 when they stay in float (passes/lower_float_ops.py):
    # kind -> (graph, op) -> the float op, or the ops from the input to the output in order.
    float_lowerings: Mapping[str, Callable[[Graph, Op], Op | list[Op]]] = field(default_factory=dict)
    # The ATen ops it imports (one op may import what others lower too: conv2d's aten.conv2d
    # lowers to depthwise_conv2d as well, and is declared once, by conv2d).
    imports: tuple[Import, ...] = ()

    def __post_init__(self) -> None:
        if not self.registration.startswith("em_op_"):
            raise ValueError(f"{self.kind}: registration symbol must start with em_op_")
        if bool(self.variants) != (self.choose_variants is not None):
            raise ValueError(f"{self.kind}: selectable variants and the rule that chooses them come together")

    def margin(self, graph: Graph, op: Op, index: int) -> int | None:
        """offset(input `index`) − offset(output) needed for op's output (its first: a second one
        is kernel scratch) to overlap that input; None: no overlap (a constant input never)."""
        return None if graph.tensors[op.inputs[index]].is_constant else self.in_place(graph, op, index)

    def kernel_path(self, graph: Graph, op: Op, tier: str, chosen: frozenset[str]) -> str:
        """What `op` runs on `tier`, given the variants chosen for it (kernel_variants)."""
        if callable(self.path):
            return self.path(graph, op, tier, chosen)
        return self.path.get(tier, self.path.get("*", "scalar"))


FLOAT_PATH: Mapping[str, str] = MappingProxyType({"*": "portable float32"})  # float ops: one C on every tier


def each_op(rule: Callable[[Graph, Op], set[str]]) -> Callable[[Graph, list[Op], int, bool], list[set[str]]]:
    """A choose_variants rule from one that looks at each op alone, compact or not."""
    return lambda graph, ops, total_macs, compact: [rule(graph, op) for op in ops]


def tier_paths(mve: str, dsp: str | None = None, scalar: str = "scalar") -> dict[str, str]:
    """A path table for an op whose path depends on the tier alone (dsp None: as scalar)."""
    return {"mve": mve, "dsp": scalar if dsp is None else dsp, "scalar": scalar}


def int_options(table: str, fields: tuple[tuple[str, str], ...],
                defaults: dict[str, int] | None = None) -> tuple[Callable, Callable]:
    """(write_options, read_options) of an options table of int fields: `fields` pairs each op
    attr with its field's name in the generated code (("axis", "Axis"), …); `defaults` holds the
    value written for an attr an op may leave out (a field appended to the schema later)."""
    defaults = defaults or {}

    def write(builder, op: Op) -> int:
        getattr(fb, f"{table}Start")(builder)
        for attr, name in fields:
            value = op.attrs[attr] if attr in op.attrs or attr not in defaults else defaults[attr]
            getattr(fb, f"{table}Add{name}")(builder, int(value))
        return getattr(fb, f"{table}End")(builder)

    def read(options_table) -> dict:
        options = getattr(fb, table)()
        options.Init(options_table.Bytes, options_table.Pos)
        return {attr: getattr(options, name)() for attr, name in fields}

    return write, read


def int_vector(builder, values) -> int:
    """An options table's [int] field."""
    return builder.CreateNumpyVector(np.ascontiguousarray(values, dtype=np.int32).reshape(-1))


def int_list(options, field: str) -> list[int]:
    """An options table's [int] field `field` (generated accessor name) as a list; [] when absent."""
    n = getattr(options, f"{field}Length")()
    return [int(v) for v in getattr(options, f"{field}AsNumpy")()] if n else []
