"""batch_matmul: a [B, M, K] × b [B, K, N] of two int8 activations → int8 [B, M, N]."""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.ir import Op
from compiler.ir import Graph
from compiler.ops.spec import OpSpec, tier_paths
from compiler.schema import program_generated as fb

# attrs, with their schema BatchMatmulOptions field names
FIELDS = (("a_offset", "Input1Offset"), ("b_offset", "Input2Offset"), ("output_offset", "OutputOffset"),
          ("output_multiplier", "OutputMultiplier"), ("output_shift", "OutputShift"),
          ("activation_min", "ActivationMin"), ("activation_max", "ActivationMax"))


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [reference.batch_matmul_s8(inputs[0], inputs[1], **{attr: op.attrs[attr] for attr, _ in FIELDS})]


def _write(builder, op: Op) -> int:
    fb.BatchMatmulOptionsStart(builder)
    for attr, schema in FIELDS:
        getattr(fb, f"BatchMatmulOptionsAdd{schema}")(builder, int(op.attrs[attr]))
    return fb.BatchMatmulOptionsEnd(builder)


def _read(table) -> dict:
    options = fb.BatchMatmulOptions()
    options.Init(table.Bytes, table.Pos)
    return {attr: getattr(options, schema)() for attr, schema in FIELDS}


def _macs(graph: Graph, op: Op) -> int:
    k = graph.tensors[op.inputs[0]].shape[-1]  # a [B, M, K] × b [B, K, N]
    return int(np.prod(graph.tensors[op.outputs[0]].shape)) * k


BATCH_MATMUL = OpSpec(
    kind="batch_matmul",
    opcode=fb.OpCode.BATCH_MATMUL,
    options_type=fb.OpOptions.BatchMatmulOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_batch_matmul",
    macs=_macs,
    path=tier_paths("MVE 16 columns"),
)
