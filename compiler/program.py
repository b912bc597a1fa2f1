"""Program: a lowered, planned model for one target — save it, run it on the reference,
inspect it, or emit its C sources."""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from compiler import emit_c, kernel_variants, reference
from compiler.errors import EmberCompileError, InputShapeError
from compiler.files import write_atomically
from compiler.ir import Graph
from compiler.ops import OP_TABLE, OpSpec
from compiler.planner import Plan
from compiler.reader import read_program, recorded_inputs_kept
from compiler.target import Target
from compiler.writer import write_program


def float_fallback_report(graph: Graph) -> str:
    """One line per op that runs in float32 and why; empty when every op is int8. (The reason is
    the compiler's: a program read back from its file has the ops, not the reasons.)"""
    ops = [op for op in graph.ops if "float_reason" in op.attrs or op.kind.startswith("float_")]
    if not ops:
        return ""
    lines = [f"{len(ops)} op{'s' if len(ops) > 1 else ''} fell back to float32 (portable kernels, not accelerated):"]
    for op in ops:
        what = op.kind + (f"({op.attrs['function']})" if "function" in op.attrs else "")
        lines.append(f"  {what:<28} {op.attrs.get('float_reason', 'in float32')}" + (f"  [{op.origin}]" if op.origin else ""))
    return "\n".join(lines)


def check_input_shape(k: int, want: tuple[int, ...], got: tuple[int, ...]) -> None:
    """Input `k` of shape `got` may feed a program input of shape `want`: the same shape, up to
    leading 1s (a sample without its batch dim). Anything else — an NCHW image for an NHWC
    program, another size — is InputShapeError saying what the program takes."""
    def core(shape: tuple[int, ...]) -> tuple[int, ...]:
        shape = tuple(shape)
        while shape and shape[0] == 1:
            shape = shape[1:]
        return shape

    if core(got) == core(want):
        return
    hint = ""
    if len(want) == 4 and len(got) == 4 and tuple(got) == (want[0], want[3], want[1], want[2]):
        hint = ": the program takes images NHWC (height, width, channels); give x.transpose(0, 2, 3, 1)"
    raise InputShapeError(f"program input {k} takes shape {list(want)}, got {list(got)}{hint}")


@dataclass
class Program:
    graph: Graph
    target: Target
    name: str = "model"
    plan: Plan | None = None
    # PyTorch's converted (PT2E) model this program was lowered from, when lowered in-process.
    quantized_model: object | None = field(default=None, repr=False)
    # Program.inputs_kept as the file it was loaded from records it (None: not loaded, the
    # writer computes it from the plan: compiler.planner.inputs_kept).
    recorded_inputs_kept: list[bool] | None = None

    @classmethod
    def load(cls, path: str | Path) -> "Program":
        data = Path(path).read_bytes()
        graph, target, name = read_program(data)
        return cls(graph, target, name, recorded_inputs_kept=recorded_inputs_kept(data))

    def to_bytes(self) -> bytes:
        return write_program(self.graph, self.target, self.name)

    def save(self, path: str | Path) -> Path:
        write_atomically(Path(path), self.to_bytes())
        return Path(path)

    def run_reference(self, *inputs: np.ndarray, keep_all: bool = False,
                      state: dict[str, np.ndarray] | None = None) -> list[np.ndarray] | dict:
        """The reference's outputs for `inputs`, one array per program input in its shape (up to
        leading 1s; InputShapeError otherwise, e.g. for an NCHW image: the program takes NHWC).
        `state` (a program with persistent tensors): a dict the run reads and leaves the next
        state in, so that runs over one dict are a sequence of invokes ({} or None: from a reset)."""
        if len(inputs) != len(self.graph.inputs):
            raise InputShapeError(f"the program takes {len(self.graph.inputs)} input(s), got {len(inputs)}")
        for k, (name, value) in enumerate(zip(self.graph.inputs, inputs)):
            check_input_shape(k, self.graph.tensors[name].shape, np.shape(value))
        values = reference.run(self.graph, list(inputs), keep_all=keep_all, state=state)
        return values if keep_all else [values[name] for name in self.graph.outputs]

    @property
    def selected_ops(self) -> list[OpSpec]:
        kinds = dict.fromkeys(op.kind for op in self.graph.ops)
        return [OP_TABLE[kind] for kind in kinds]

    @property
    def arena_bytes(self) -> dict[str, int]:
        return {arena.name: arena.size for arena in self.graph.arenas}

    def emit_c(self, out_dir: str | Path, symbol: str = "em_model_program") -> list[Path]:
        """Writes <symbol>.c/.h (the program array), em_registry.c and em_nn_variants_selected.h (the
        kernel variants its ops take); returns their paths."""
        out = Path(out_dir)
        files = {
            out / f"{symbol}.c": emit_c.program_array_c(self.to_bytes(), symbol),
            out / f"{symbol}.h": emit_c.program_header_c(symbol),
            out / "em_registry.c": emit_c.registry_c(self.selected_ops),
            out / "em_nn_variants_selected.h": emit_c.variants_h(
                kernel_variants.linked_variants(self.graph, self.target.tier, self.target.optimize),
                kernel_variants.LINK_SWITCHES),
        }
        for path, text in files.items():
            write_atomically(path, text)
        return list(files)

    def summary(self) -> str:
        lines = [f"program {self.name}: target {self.target.cpu}, tier {self.target.tier}, "
                 f"{len(self.graph.ops)} ops, arenas {self.arena_bytes}"]
        for i, op in enumerate(self.graph.ops):
            outs = ", ".join(f"{t}{list(self.graph.tensors[t].shape)}@{self.graph.tensors[t].offset}"
                             for t in op.outputs)
            consts = sum(self.graph.tensors[t].nbytes for t in op.inputs if self.graph.tensors[t].is_constant)
            lines.append(f"  {i:3} {op.kind:<16} -> {outs}  constants {consts} B  {op.origin}")
        report = float_fallback_report(self.graph)
        return "\n".join(lines + ([report] if report else []))


class ProgramSetError(EmberCompileError):
    """Programs that cannot share one firmware (emit_programs_c): none, a name that is not a C
    identifier, or programs for different targets."""


C_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def emit_programs_c(programs: Mapping[str, Program], out_dir: str | Path,
                    symbol: str = "em_model_program") -> list[Path]:
    """The C sources of one firmware running several programs (one after the other, or as the app
    chooses): <symbol>.c holds every program's array as `<symbol>_<name>` (with `<symbol>_<name>_size`),
    <symbol>.h declares them and defines EM_MODEL_PROGRAMS (their count); em_registry.c lists the
    union of their ops (opcode order, each once) and em_nn_variants_selected.h turns on the union of
    the kernel variants they take, so the firmware links every op and variant of each program and
    nothing else. `programs` maps a name (a C identifier) to its program, in the order the arrays
    are written. Every program must be for the same target (one tier's kernels are linked).
    Returns the written paths.
    """
    if not programs:
        raise ProgramSetError("emit_programs_c needs at least one program; for one, Program.emit_c is enough")
    bad = [name for name in programs if not C_NAME.fullmatch(name)]
    if bad:
        raise ProgramSetError(f"program names {bad} are not C identifiers; name each program with letters, "
                              "digits and underscores (its array is <symbol>_<name>)")
    targets = {name: p.target for name, p in programs.items()}
    if len(set(targets.values())) > 1:
        raise ProgramSetError(f"programs for different targets cannot share a firmware: {targets}; "
                              "lower every program for the firmware's board")
    tier = next(iter(targets.values())).tier
    out = Path(out_dir)
    symbols = {name: f"{symbol}_{name}" for name in programs}
    used = set().union(*(kernel_variants.linked_variants(p.graph, tier, p.target.optimize) for p in programs.values()))
    files = {
        out / f"{symbol}.c": emit_c.programs_array_c({symbols[n]: p.to_bytes() for n, p in programs.items()}),
        out / f"{symbol}.h": emit_c.programs_header_c(symbol, list(symbols.values())),
        out / "em_registry.c": emit_c.registry_c([s for p in programs.values() for s in p.selected_ops]),
        out / "em_nn_variants_selected.h": emit_c.variants_h(used, kernel_variants.LINK_SWITCHES),
    }
    for path, text in files.items():
        write_atomically(path, text)
    return list(files)
