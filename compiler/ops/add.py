"""add: elementwise sum of two int8 tensors with their own scales (NumPy broadcasting)."""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.ir import Graph, Op
from compiler.ops import broadcast, overlap
from compiler.ops.spec import OpSpec
from compiler.schema import program_generated as fb

# attrs, in the order of the schema's AddOptions fields and the reference's keywords
FIELDS = ("a_offset", "a_multiplier", "a_shift", "b_offset", "b_multiplier", "b_shift",
          "output_offset", "output_multiplier", "output_shift", "activation_min", "activation_max")
SCHEMA_NAMES = ("Input1Offset", "Input1Multiplier", "Input1Shift", "Input2Offset", "Input2Multiplier",
                "Input2Shift", "OutputOffset", "OutputMultiplier", "OutputShift", "ActivationMin", "ActivationMax")
ADD_TABLE_MIN = 1024  # em_add_s8.c: EM_NN_ADD_TABLE_MIN


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [reference.add_s8(inputs[0], inputs[1], **{k: op.attrs[k] for k in FIELDS})]


def _write(builder, op: Op) -> int:
    fb.AddOptionsStart(builder)
    for attr, schema in zip(FIELDS, SCHEMA_NAMES):
        getattr(fb, f"AddOptionsAdd{schema}")(builder, int(op.attrs[attr]))
    return fb.AddOptionsEnd(builder)


def _read(table) -> dict:
    o = fb.AddOptions()
    o.Init(table.Bytes, table.Pos)
    return {attr: getattr(o, schema)() for attr, schema in zip(FIELDS, SCHEMA_NAMES)}


def _path(graph: Graph, op: Op, tier: str, linked: frozenset[str]) -> str:
    """em_add_s8.c: MVE 4 lanes; scalar and DSP tabulate each input's rescaling when neither
    operand is broadcast (one run of two arrays) and the output has >= EM_NN_ADD_TABLE_MIN
    elements."""
    shape = broadcast.walk(graph, op)
    if tier == "mve":
        return f"{shape}; MVE 4 lanes"
    if shape == "same shapes" and int(np.prod(graph.tensors[op.outputs[0]].shape)) >= ADD_TABLE_MIN:
        return f"{shape}; rescaling tables (256 codes per input), scalar"
    return f"{shape}; scalar per element"


ADD = OpSpec(
    kind="add",
    opcode=fb.OpCode.ADD,
    options_type=fb.OpOptions.AddOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_add",
    in_place=overlap.elementwise,
    path=_path,
)
