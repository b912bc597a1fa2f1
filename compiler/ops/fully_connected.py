"""fully_connected: int8 × int8 weights [O, I] + int32 bias → int8, per-channel requantized."""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.ir import Graph, Op
from compiler.ops.spec import OpSpec
from compiler.schema import program_generated as fb


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x, weights, bias = inputs
    a = op.attrs
    # [B, I], or a flattened [B, H, W, C] map (H·W·C = I): one row per batch either way
    flat = x.reshape(x.shape[0], weights.shape[1])
    return [reference.fully_connected_s8(flat, weights, bias, a["multiplier"], a["shift"],
                                         a["output_offset"], a["activation_min"], a["activation_max"])]


def _int_vector(builder, values: np.ndarray) -> int:
    return builder.CreateNumpyVector(np.ascontiguousarray(values, dtype=np.int32))


def _write(builder, op: Op) -> int:
    a = op.attrs
    multiplier = _int_vector(builder, a["multiplier"])
    shift = _int_vector(builder, a["shift"])
    fb.FullyConnectedOptionsStart(builder)
    fb.FullyConnectedOptionsAddOutputOffset(builder, a["output_offset"])
    fb.FullyConnectedOptionsAddActivationMin(builder, a["activation_min"])
    fb.FullyConnectedOptionsAddActivationMax(builder, a["activation_max"])
    fb.FullyConnectedOptionsAddOutputMultiplier(builder, multiplier)
    fb.FullyConnectedOptionsAddOutputShift(builder, shift)
    return fb.FullyConnectedOptionsEnd(builder)


def _read(table) -> dict:
    options = fb.FullyConnectedOptions()
    options.Init(table.Bytes, table.Pos)
    return {
        "multiplier": options.OutputMultiplierAsNumpy().astype(np.int32),
        "shift": options.OutputShiftAsNumpy().astype(np.int32),
        "output_offset": options.OutputOffset(),
        "activation_min": options.ActivationMin(),
        "activation_max": options.ActivationMax(),
    }


def _macs(graph: Graph, op: Op) -> int:
    weight = graph.tensors[op.inputs[1]].shape  # [OUT, IN]
    return int(np.prod(graph.tensors[op.outputs[0]].shape)) * weight[1]


# A variant that only saves instructions (its kernel has a compact path for every shape) is
# linked only where its ops do at least this share of the program's MACs. The four-row pass saves
# about 0.15 instructions per MAC and costs about 450 bytes at -Os: below 1 % of the MACs it saves
# under 0.4 % of an inference (the MLPerf models' classifiers are 0.01..0.03 %). Helium only: the
# DSP and scalar tiers' four-row loops are the convolutions' too.
ROWS4_MIN_MAC_SHARE = 0.01


def _takes_variants(graph: Graph, ops: list[Op], total_macs: int) -> set[str]:
    """FC_MVE_ROWS4 where the fully connected layers do ROWS4_MIN_MAC_SHARE of the MACs."""
    macs = sum(_macs(graph, op) for op in ops)
    return {"FC_MVE_ROWS4"} if macs > 0 and macs >= ROWS4_MIN_MAC_SHARE * total_macs else set()


def _path(graph: Graph, op: Op, tier: str, linked: frozenset[str]) -> str:
    """em_fully_connected_s8.c: four rows per input load where FC_MVE_ROWS4 is linked, else (MVE)
    one row at a time; DSP four rows (SMLAD), scalar six then four."""
    if tier == "mve":
        return "MVE 4 rows x 16 lanes" if "FC_MVE_ROWS4" in linked else "MVE 1 row x 16 lanes (compact: FC is a sliver of the MACs)"
    return {"dsp": "DSP 4 rows (SMLAD)"}.get(tier, "scalar 6/4 rows")


FULLY_CONNECTED = OpSpec(
    kind="fully_connected",
    opcode=fb.OpCode.FULLY_CONNECTED,
    options_type=fb.OpOptions.FullyConnectedOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_fully_connected",
    macs=_macs,
    path=_path,
    variants=("FC_MVE_ROWS4",),
    takes_variants=_takes_variants,
    weighted=True,
)
