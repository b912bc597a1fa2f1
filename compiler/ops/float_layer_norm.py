"""float_layer_norm: layer norm over the last axis, float32, inputs x, weight [D], bias [D] (fallback)."""
from __future__ import annotations

import numpy as np
import torch
from torch.fx import Node

from compiler import reference
from compiler.errors import UnsupportedOpError
from compiler.float_lowering import kept
from compiler.ir import Graph, Op
from compiler.ops.spec import FLOAT_PATH, Import, OpSpec
from compiler.quantized_pattern import add_constant
from compiler.schema import program_generated as fb

aten = torch.ops.aten


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x, weight, bias = inputs
    return [reference.float_layer_norm_f32(x, weight, bias, epsilon=op.attrs["epsilon"])]


def _write(builder, op: Op) -> int:
    fb.FloatLayerNormOptionsStart(builder)
    fb.FloatLayerNormOptionsAddEpsilon(builder, float(op.attrs["epsilon"]))
    return fb.FloatLayerNormOptionsEnd(builder)


def _read(table) -> dict:
    o = fb.FloatLayerNormOptions()
    o.Init(table.Bytes, table.Pos)
    return {"epsilon": np.float32(o.Epsilon())}


def _import_layer_norm(node: Node, args: list) -> tuple[str, dict]:
    normalized_shape = [int(d) for d in node.args[1]]
    eps = node.args[4] if len(node.args) > 4 else node.kwargs.get("eps", 1e-5)
    return "aten.layer_norm", {"normalized_shape": normalized_shape, "eps": float(eps),
                               "affine": [len(node.args) > i and node.args[i] is not None for i in (2, 3)]}


def _lower_float_layer_norm(graph: Graph, op: Op) -> Op:
    x = graph.tensors[op.inputs[0]]
    (depth,) = op.attrs["normalized_shape"] if len(op.attrs["normalized_shape"]) == 1 else (None,)
    if depth is None or len(x.shape) > 3 or x.shape[-1] != depth:
        raise UnsupportedOpError(f"float layer_norm over {op.attrs['normalized_shape']} of a {list(x.shape)} tensor",
                                 op.origin, "Layer norm runs over the last axis of a tensor of rank <= 3.")
    given = iter(op.inputs[1:])
    weight, bias = (next(given) if present else None for present in op.attrs["affine"])
    stem = op.outputs[0]
    weight = weight or add_constant(graph, f"{stem}_weight", "float32", np.ones(depth, np.float32))
    bias = bias or add_constant(graph, f"{stem}_bias", "float32", np.zeros(depth, np.float32))
    return kept(op, "float_layer_norm", [x.name, weight, bias], {"epsilon": np.float32(op.attrs["eps"])})


FLOAT_LAYER_NORM = OpSpec(
    kind="float_layer_norm",
    opcode=fb.OpCode.FLOAT_LAYER_NORM,
    options_type=fb.OpOptions.FloatLayerNormOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_float_layer_norm",
    float_lowerings={"aten.layer_norm": _lower_float_layer_norm},
    imports=(Import((aten.layer_norm.default,), _import_layer_norm, float_only=True),),
    path=FLOAT_PATH,
)
