"""float_fully_connected: float32 rows of x (…, I) · weights [O, I] + bias [O], summed in order
(fallback): a linear over the last axis of [B, I] or [B, T, I]."""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.errors import UnsupportedOpError
from compiler.float_lowering import bias_or_zeros, float_constant, fused_clamp, kept
from compiler.ir import Graph, Op
from compiler.ops.spec import FLOAT_PATH, OpSpec
from compiler.schema import program_generated as fb


def activation(op: Op) -> dict:
    """The output clamp of a float op: activation_min / activation_max (±inf when absent)."""
    return {"activation_min": float(op.attrs.get("activation_min", -np.inf)),
            "activation_max": float(op.attrs.get("activation_max", np.inf))}


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x, weights, bias = inputs
    return [reference.float_fully_connected_f32(x.reshape(-1, weights.shape[1]), weights, bias, **activation(op))]


def _write(builder, op: Op) -> int:
    act = activation(op)
    fb.FloatFullyConnectedOptionsStart(builder)
    fb.FloatFullyConnectedOptionsAddActivationMin(builder, act["activation_min"])
    fb.FloatFullyConnectedOptionsAddActivationMax(builder, act["activation_max"])
    return fb.FloatFullyConnectedOptionsEnd(builder)


def _read(table) -> dict:
    o = fb.FloatFullyConnectedOptions()
    o.Init(table.Bytes, table.Pos)
    return {"activation_min": o.ActivationMin(), "activation_max": o.ActivationMax()}


def _lower_float_linear(graph: Graph, op: Op) -> Op:
    x, w = op.inputs[:2]
    weights = float_constant(graph, w, op, "weights")
    rank = len(graph.tensors[x].shape)
    if rank not in (2, 3):  # a 4-D map is NHWC here: its last axis is no longer PyTorch's
        raise UnsupportedOpError(f"float linear on a rank-{rank} input", op.origin,
                                 "Give it [batch, features] or [batch, tokens, features], or quantize the layer.")
    return kept(op, "float_fully_connected", [x, w, bias_or_zeros(graph, op, weights.shape[0])], fused_clamp(op))


FLOAT_FULLY_CONNECTED = OpSpec(
    kind="float_fully_connected",
    opcode=fb.OpCode.FLOAT_FULLY_CONNECTED,
    options_type=fb.OpOptions.FloatFullyConnectedOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_float_fully_connected",
    float_lowerings={"aten.linear": _lower_float_linear},
    path=FLOAT_PATH,
    weighted=True,
)
