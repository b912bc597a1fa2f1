"""fully_connected: int8 × int8 weights [O, I] + int32 bias → int8, per-channel requantized.

Lowering: dequantize → linear (+ activation) → quantize becomes one integer
`fully_connected` op.

Ahead of time it computes, per output channel: the requantization multiplier and shift of
input_scale × weight_scale / output_scale, the bias with the input zero point folded in
(bias − zp_in · Σ_i w[o, i]), and the output clamp from the folded activation. A linear whose
input is an NHWC feature map flattened (an int8 `reshape`, see ops/reshape.py) reads the
map directly: its weight columns are reordered from PyTorch's (C, H, W) order to (H, W, C).
"""
from __future__ import annotations

import numpy as np
import torch
from torch.fx import Node

from compiler import reference
from compiler.errors import UnsupportedOpError
from compiler.ir import Graph, Op
from compiler.layout import TO_NCHW
from compiler.ops import conv_options
from compiler.ops.int16_path import is_int16
from compiler.ops.spec import Import, Lowering, OpSpec
from compiler.quantized_pattern import (ACTIVATION, activation_dtype, add_constant, clamp_range, match, replace,
                                       weighted_constants)
from compiler.schema import program_generated as fb

aten = torch.ops.aten


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x, weights, bias = inputs
    a = op.attrs
    # [B, I], or a flattened [B, H, W, C] map (H·W·C = I): one row per batch either way
    flat = x.reshape(x.shape[0], weights.shape[1])
    if x.dtype == np.int16:  # A16W8: no output offset
        return [reference.fully_connected_s16(flat, weights, bias, a["multiplier"], a["shift"],
                                              a["activation_min"], a["activation_max"])]
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
    fb.FullyConnectedOptionsAddPaths(builder, a.get("paths", 0))
    return fb.FullyConnectedOptionsEnd(builder)


def _read(table) -> dict:
    options = fb.FullyConnectedOptions()
    options.Init(table.Bytes, table.Pos)
    return {
        "multiplier": options.OutputMultiplierAsNumpy().astype(np.int32),
        "shift": options.OutputShiftAsNumpy().astype(np.int32),
        "paths": options.Paths(),
        "output_offset": options.OutputOffset(),
        "activation_min": options.ActivationMin(),
        "activation_max": options.ActivationMax(),
    }


def _macs(graph: Graph, op: Op) -> int:
    weight = graph.tensors[op.inputs[1]].shape  # [OUT, IN]
    return int(np.prod(graph.tensors[op.outputs[0]].shape)) * weight[1]


# A variant that only saves instructions (its kernel has a compact path for every shape) is
# chosen only where its ops do at least this share of the program's MACs. The four-row pass saves
# about 0.15 instructions per MAC and costs about 450 bytes at -Os: below 1 % of the MACs it saves
# under 0.4 % of an inference (the MLPerf models' classifiers are 0.01..0.03 %). Helium only: the
# DSP and scalar tiers' four-row loops are the convolutions' too.
ROWS4_MIN_MAC_SHARE = 0.01


def _choose_variants(graph: Graph, ops: list[Op], total_macs: int, compact: bool) -> list[set[str]]:
    """FC_MVE_ROWS4 for every fully connected layer where they do ROWS4_MIN_MAC_SHARE of the
    MACs, else the one-row loop alone (a firmware then links no four-row pass). The same when
    compact: where FC does that share, the four-row pass is most of the model's speed (the
    autoencoder's instructions +76 % without it, for 384 B)."""
    macs = sum(_macs(graph, op) for op in ops)
    rows4 = macs > 0 and macs >= ROWS4_MIN_MAC_SHARE * total_macs
    return [{"FC_MVE_ROWS4"} if rows4 else set() for _ in ops]


def _path(graph: Graph, op: Op, tier: str, chosen: frozenset[str]) -> str:
    """em_fully_connected_s8.c: four rows per input load where FC_MVE_ROWS4 is chosen, else (MVE)
    one row at a time; DSP four rows (SMLAD), scalar six then four."""
    if is_int16(graph, op):  # A16W8: em_fully_connected_s16.c
        return conv_options.rows_s16_loop(tier, conv_options.s16_sum32(graph, op, graph.tensors[op.inputs[1]].shape[1]))
    if tier == "mve":
        return "MVE 4 rows x 16 lanes" if "FC_MVE_ROWS4" in chosen else "MVE 1 row x 16 lanes (compact)"
    return {"dsp": "DSP 4 rows (SMLAD)"}.get(tier, "scalar 6/4 rows")


# int4 weights unpack a block of rows at a time (em_op_fully_connected.c): at least four, for the
# kernels' four-row passes, and at least this many bytes, so that short rows go in few blocks.
INT4_BLOCK_ROWS, INT4_BLOCK_BYTES = 4, 2048


def _int4_rows(graph: Graph, op: Op) -> int:
    n_in = graph.tensors[op.inputs[1]].shape[1]
    return max(INT4_BLOCK_ROWS, -(-INT4_BLOCK_BYTES // n_in))


def _flattened_map(graph: Graph, tensor: str) -> tuple[str, tuple[int, int, int] | None] | None:
    """If `tensor` is an int8 reshape of a 4-D map into [N, C·H·W]: (the NHWC map, and its
    (C, H, W) when the weights must be reordered, None when the map's bytes are already in
    PyTorch's order — reshape's lowering put no transpose before the reshape, or the model's
    own permute to NHWC cancelled it)."""
    op = graph.producer(tensor)
    if op is None or op.kind != "reshape":
        return None
    source, flat = graph.tensors[op.inputs[0]], graph.tensors[tensor]
    if len(flat.shape) != 2 or len(source.shape) != 4 or flat.shape[0] != source.shape[0]:
        return None
    to_nchw = graph.producer(source.name)
    if to_nchw is not None and to_nchw.kind == "transpose" and to_nchw.attrs["perm"] == list(TO_NCHW):
        n, h, w, c = graph.tensors[to_nchw.inputs[0]].shape
        return to_nchw.inputs[0], (c, h, w)
    return source.name, None


def _lower(graph: Graph, linear: Op) -> Op:
    matched = match(graph, linear, (ACTIVATION, "int8", "int32"), "linear")
    dtype = activation_dtype(graph, matched, "linear")
    x, _ = matched.sources[0]
    constants = weighted_constants(matched, "linear")
    weights = constants.weights
    x_name = x.name
    flattened = _flattened_map(graph, x.name)
    if flattened is not None:
        x_name, chw = flattened
        if chw is not None:
            c, h, w = chw
            weights = weights.reshape(-1, c, h, w).transpose(0, 2, 3, 1).reshape(weights.shape[0], -1)
    elif len(x.shape) != 2:
        raise UnsupportedOpError(f"linear on a rank-{len(x.shape)} input {list(x.shape)}", linear.origin,
                                 "Flatten the input to [batch, features] first.")
    stem = linear.outputs[0]
    weight_name = add_constant(graph, f"{stem}_weights", constants.weight_dtype, weights, constants.weight_quant)
    bias_name = add_constant(graph, f"{stem}_bias", "int32", constants.folded_bias.astype(np.int32))
    act_min, act_max = clamp_range(linear.attrs.get("activation"), matched.out_quant, dtype)
    lowered = Op("fully_connected", [x_name, weight_name, bias_name], [matched.output], {
        "multiplier": constants.multiplier,
        "shift": constants.shift,
        "output_offset": int(matched.out_quant.zero_point[0]),
        "activation_min": act_min,
        "activation_max": act_max,
    }, linear.origin)
    replace(graph, matched, lowered)
    return lowered


def _import_linear(node: Node, args: list) -> tuple[str, dict]:
    return "aten.linear", {}


FULLY_CONNECTED = OpSpec(
    kind="fully_connected",
    opcode=fb.OpCode.FULLY_CONNECTED,
    options_type=fb.OpOptions.FullyConnectedOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_fully_connected",
    imports=(Import((aten.linear.default,), _import_linear, "weighted", weight_axis=0, int16=True),),
    lowerings=(Lowering(("aten.linear",), _lower, after_folds=True, fuses_activation=True),),
    macs=_macs,
    path=_path,
    variants=("FC_MVE_ROWS4",),
    choose_variants=_choose_variants,
    weighted=True,
    int4_rows=_int4_rows,
    int16_kernel=True,
)
