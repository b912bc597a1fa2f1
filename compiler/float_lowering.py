"""What the ops' float32 lowerings share (OpSpec.float_lowerings, run by passes/lower_float_ops.py):
the fused output clamp, constant weights, the kept float reason, a zero bias."""
from __future__ import annotations

import numpy as np

from compiler.errors import UnsupportedOpError
from compiler.ir import Graph, Op
from compiler.quantized_pattern import add_constant


def fused_clamp(op: Op) -> dict:
    low, high = op.attrs.get("activation", (-np.inf, np.inf))
    return {"activation_min": float(low), "activation_max": float(high)}


def float_constant(graph: Graph, name: str, op: Op, what: str) -> np.ndarray:
    tensor = graph.tensors[name]
    if not tensor.is_constant or tensor.dtype != "float32":
        raise UnsupportedOpError(f"float {op.kind.removeprefix('aten.')} with non-constant {what}", op.origin,
                                 "Its weights must be constant float32 parameters.")
    return tensor.data


def kept(op: Op, kind: str, inputs: list[str], attrs: dict) -> Op:
    return Op(kind, inputs, list(op.outputs), attrs | {"float_reason": op.attrs["float_reason"]}, op.origin)


def bias_or_zeros(graph: Graph, op: Op, channels: int) -> str:
    if len(op.inputs) > 2:
        float_constant(graph, op.inputs[2], op, "bias")
        return op.inputs[2]
    return add_constant(graph, f"{op.outputs[0]}_bias", "float32", np.zeros(channels, np.float32))
