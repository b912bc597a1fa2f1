"""float_layer_norm: layer norm or RMS norm (attrs["rms"]) over the last axis, float32, inputs x,
weight [D], bias [D] (fallback: ops/norm.py imports both and lowers them to int8 where quantized)."""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.errors import UnsupportedOpError
from compiler.float_lowering import kept
from compiler.ir import Graph, Op
from compiler.ops.spec import FLOAT_PATH, OpSpec
from compiler.quantized_pattern import add_constant
from compiler.schema import program_generated as fb


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x, weight, bias = inputs
    return [reference.float_layer_norm_f32(x, weight, bias, epsilon=op.attrs["epsilon"],
                                           rms=op.attrs.get("rms", False))]


def _write(builder, op: Op) -> int:
    fb.FloatLayerNormOptionsStart(builder)
    fb.FloatLayerNormOptionsAddEpsilon(builder, float(op.attrs["epsilon"]))
    fb.FloatLayerNormOptionsAddRms(builder, int(op.attrs.get("rms", False)))
    return fb.FloatLayerNormOptionsEnd(builder)


def _read(table) -> dict:
    o = fb.FloatLayerNormOptions()
    o.Init(table.Bytes, table.Pos)
    return {"epsilon": np.float32(o.Epsilon()), "rms": bool(o.Rms())}


def _lower_float_layer_norm(graph: Graph, op: Op) -> Op:
    x = graph.tensors[op.inputs[0]]
    (depth,) = op.attrs["normalized_shape"] if len(op.attrs["normalized_shape"]) == 1 else (None,)
    if depth is None or len(x.shape) > 3 or x.shape[-1] != depth:
        what = op.kind.removeprefix("aten.")
        raise UnsupportedOpError(f"float {what} over {op.attrs['normalized_shape']} of a {list(x.shape)} tensor",
                                 op.origin, "Layer norm and RMS norm run over the last axis of a tensor of rank <= 3.")
    given = iter(op.inputs[1:])
    weight, bias = (next(given) if present else None for present in op.attrs["affine"])
    stem = op.outputs[0]
    weight = weight or add_constant(graph, f"{stem}_weight", "float32", np.ones(depth, np.float32))
    bias = bias or add_constant(graph, f"{stem}_bias", "float32", np.zeros(depth, np.float32))
    return kept(op, "float_layer_norm", [x.name, weight, bias],
                {"epsilon": np.float32(op.attrs["eps"]), "rms": op.kind == "aten.rms_norm"})


FLOAT_LAYER_NORM = OpSpec(
    kind="float_layer_norm",
    opcode=fb.OpCode.FLOAT_LAYER_NORM,
    options_type=fb.OpOptions.FloatLayerNormOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_float_layer_norm",
    float_lowerings={"aten.layer_norm": _lower_float_layer_norm, "aten.rms_norm": _lower_float_layer_norm},
    path=FLOAT_PATH,
)
