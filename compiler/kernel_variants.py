"""The kernel variants each op of a lowered graph runs, chosen here and recorded in its program.

On Helium some kernels have variants (specialised loops, each a C function of its own): which
ones an op runs is the compiler's choice, by its record's rule (OpSpec.variants and
.choose_variants in compiler/ops/). The writer records the choice in the op's options
(Conv2DOptions.paths, FullyConnectedOptions.paths) as bits of the kernels' EM_NN_PATH_<NAME>,
whose one definition this module reads from runtime/kernels/include/em_nn_variants.h; the kernel
runs what the bits say, the adapter's check() refuses bits that do not fit the layer, and a
firmware links exactly the variants its program's bits name (emit_c.variants_h). Nothing mirrors
a dispatch: the C decides nothing these choices cover.

An op kind's int16 (A16W8) kernel is linked the same way, by a switch of its own and no program
bits: EM_NN_VARIANT_<KIND>_S16 (OpSpec.int16_kernel) is 1 in a firmware exactly when its program
has an op of that kind with an int16 input or output; the adapter refuses such an op with
EM_NN_ERR_VARIANT_NOT_LINKED where the switch is 0, so an int8 model links no int16 code.

Also used by `python -m compiler inspect` (and its Model Explorer graph) to name each op's path.
"""
from __future__ import annotations

import re
from pathlib import Path

from compiler import macs
from compiler.ir import Graph, Op
from compiler.ops import OP_TABLE
from compiler.ops.int16_path import is_int16
from compiler.scratch import runtime_root

VARIANTS_HEADER = runtime_root() / "kernels" / "include" / "em_nn_variants.h"


def _path_bits(header: Path) -> dict[str, int]:
    """`#define EM_NN_PATH_<NAME> (1u << n)` of the kernels' header: name -> bit."""
    found = re.findall(r"^#define EM_NN_PATH_(\w+) \(1u << (\d+)\)$", header.read_text(), re.MULTILINE)
    return {name: 1 << int(n) for name, n in found}


PATH_BITS: dict[str, int] = _path_bits(VARIANTS_HEADER)

# Every selectable variant (its EM_NN_VARIANT_<NAME> macro), in the records' order.
SELECTABLE_VARIANTS: tuple[str, ...] = tuple(name for spec in OP_TABLE.values() for name in spec.variants)


def int16_switch(kind: str) -> str:
    """The link switch of `kind`'s int16 kernel: EM_NN_VARIANT_<its name>."""
    return f"{kind.upper()}_S16"


# Every int16 kernel's link switch, in the records' order.
INT16_SWITCHES: tuple[str, ...] = tuple(int16_switch(spec.kind) for spec in OP_TABLE.values() if spec.int16_kernel)
# Every EM_NN_VARIANT_<NAME> a program's firmware defines (emit_c.variants_h).
LINK_SWITCHES: tuple[str, ...] = SELECTABLE_VARIANTS + INT16_SWITCHES




def bits_of(names: frozenset[str] | set[str]) -> int:
    return sum(PATH_BITS[name] for name in names)


def names_of(bits: int) -> frozenset[str]:
    return frozenset(name for name, bit in PATH_BITS.items() if bits & bit)


def chosen_variants(graph: Graph, tier: str, optimize: str = "speed") -> list[frozenset[str]]:
    """Per op of `graph`, in order: the variants it runs on `tier`. An op read from a program
    (attrs["paths"]) keeps the ones recorded there; the others take their record's rule on
    Helium, compact where `optimize` (the target's) is "size", and none below it, whose paths
    are not selectable."""
    chosen: list[frozenset[str]] = [names_of(op.attrs["paths"]) if "paths" in op.attrs else frozenset()
                                    for op in graph.ops]
    if tier != "mve":
        return chosen
    total = macs.graph_macs(graph)
    for spec in OP_TABLE.values():
        if spec.choose_variants is None:
            continue
        at = [i for i, op in enumerate(graph.ops)
              if op.kind == spec.kind and "paths" not in op.attrs and not is_int16(graph, op)]
        if at:
            for i, names in zip(at, spec.choose_variants(graph, [graph.ops[i] for i in at], total,
                                                         optimize == "size")):
                chosen[i] = frozenset(names)
    return chosen


def linked_variants(graph: Graph, tier: str, optimize: str = "speed") -> set[str]:
    """The variants a firmware of `graph` on `tier` links: those its ops run, and the int16 kernels
    of the kinds it has int16 ops of."""
    int16 = {int16_switch(op.kind) for op in graph.ops if OP_TABLE[op.kind].int16_kernel and is_int16(graph, op)}
    return set().union(int16, *chosen_variants(graph, tier, optimize))


def kernel_variant(graph: Graph, op: Op, tier: str, chosen: frozenset[str] | None = None) -> str:
    """The path `op` runs on `tier` (`chosen`: its variants, from chosen_variants when None)."""
    if chosen is None:
        at = next((i for i, other in enumerate(graph.ops) if other is op), None)
        # an op of the graph is chosen for with its kind's others; one outside it, alone
        chosen = (chosen_variants(graph, tier)[at] if at is not None
                  else chosen_variants(Graph(graph.tensors, [op], graph.inputs, graph.outputs), tier)[0])
    return OP_TABLE[op.kind].kernel_path(graph, op, tier, chosen)
