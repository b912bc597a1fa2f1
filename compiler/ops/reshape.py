"""reshape: the same elements in the same order under a new shape (view, flatten, squeeze,
unsqueeze). The planner gives the output the input's bytes where it can (compiler/planner.py),
and then the kernel has nothing to do."""
from __future__ import annotations

import numpy as np

from compiler.ir import Graph, Op
from compiler.ops.spec import OpSpec
from compiler.schema import program_generated as fb


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [np.array(inputs[0]).reshape(-1)]  # reference.run gives it the output's shape


def _write(builder, op: Op) -> int:
    fb.ReshapeOptionsStart(builder)
    return fb.ReshapeOptionsEnd(builder)


def _path(graph: Graph, op: Op, tier: str, linked: frozenset[str]) -> str:
    """em_reshape.c: nothing to do when the planner gave the output the input's bytes."""
    src, dst = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
    same = (not src.is_constant and src.offset is not None and src.offset == dst.offset and src.arena == dst.arena)
    return "alias: no copy" if same else "one memmove"


RESHAPE = OpSpec(
    kind="reshape",
    opcode=fb.OpCode.RESHAPE,
    options_type=fb.OpOptions.ReshapeOptions,
    reference=_reference,
    write_options=_write,
    read_options=lambda table: {},
    registration="em_op_reshape",
    output_aliases_input=True,
    path=_path,
)
