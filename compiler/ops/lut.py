"""lut: int8 → int8 through a 256-entry table (activations such as sigmoid, tanh, hardswish), one
for every element ([256]) or one per channel ([C, 256], row c for index c along attr `axis`;
absent: the last axis; PReLU with per-channel slopes, a per-channel scale then an activation)."""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.ir import Graph, Op
from compiler.ops import overlap
from compiler.ops.spec import OpSpec
from compiler.schema import program_generated as fb

LAST_AXIS = -1  # LutOptions.axis's default: NumPy's convention, negative counted from the end
# em_lut_channels_s8.c: the shortest run of one channel that MVE maps with em_lut_s8's gather.
LUT_MVE_RUN_MIN = 16


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [reference.lut_s8(inputs[0], inputs[1], axis=op.attrs.get("axis", LAST_AXIS))]


def _write(builder, op: Op) -> int:
    fb.LutOptionsStart(builder)
    fb.LutOptionsAddAxis(builder, op.attrs.get("axis", LAST_AXIS))  # the default is not stored
    return fb.LutOptionsEnd(builder)


def _read(table) -> dict:
    options = fb.LutOptions()
    options.Init(table.Bytes, table.Pos)
    axis = options.Axis()
    return {} if axis == LAST_AXIS else {"axis": axis}


def _path(graph: Graph, op: Op, tier: str, linked: frozenset[str]) -> str:
    """em_op_lut.c: a [256] table runs em_lut_s8 (MVE 16-lane byte gather, else scalar); a
    [C, 256] one em_lut_channels_s8 over [outer, C, inner] around `axis` (absent: the last):
    on MVE 8 channels a gather when inner == 1, em_lut_s8 per run when inner >= LUT_MVE_RUN_MIN,
    else (and on the other tiers) scalar."""
    x, table = graph.tensors[op.inputs[0]], graph.tensors[op.inputs[1]]
    if len(table.shape) == 1:
        return "MVE 16-lane byte gather" if tier == "mve" else "scalar"
    axis = op.attrs.get("axis", LAST_AXIS) % len(x.shape)
    inner = int(np.prod(x.shape[axis + 1:], dtype=np.int64))
    if tier == "mve" and inner == 1:
        return "per-channel tables, the channel last; MVE 8 lanes per gather, each from its channel's row"
    if tier == "mve" and inner >= LUT_MVE_RUN_MIN:
        return f"per-channel tables, runs of {inner}; MVE 16-lane byte gather per run"
    return f"per-channel tables, runs of {inner}; scalar"


LUT = OpSpec(
    kind="lut",
    opcode=fb.OpCode.LUT,
    options_type=fb.OpOptions.LutOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_lut",
    in_place=overlap.elementwise,
    path=_path,
)
