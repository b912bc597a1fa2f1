"""arg_max: the index of the largest int8 value along one axis, the first on ties as torch.argmax
gives it; int32 indices out. A classifier's answer, or a segmentation map's class per pixel.

The int8 codes order as their real values do (scale > 0), so the index is exact: the same as
PyTorch's quantized model computes on the dequantized values, ties included. CortexMQuantizer
annotates nothing here: the producer's int8 output is its input.
"""
from __future__ import annotations

import numpy as np
import torch
from torch.fx import Node

from compiler.aten_node import given_args, input_rank, origin_of
from compiler.errors import UnsupportedOpError
from compiler.ir import Graph, Op, Tensor
from compiler.layout import ember_axis, reshaped
from compiler.ops.spec import Import, Lowering, OpSpec, int_options
from compiler.quantized_pattern import dequantized_source
from compiler.schema import program_generated as fb

aten = torch.ops.aten


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [np.argmax(inputs[0], axis=op.attrs["axis"]).astype(np.int32)]  # np.argmax: the first of ties


_write, _read = int_options("ArgMaxOptions", (("axis", "Axis"),))


def _import_argmax(node: Node, args: list) -> tuple[str, dict]:
    """argmax(x, dim=None, keepdim=False): over one dim, or over all (the flattened tensor). A
    4-D map is NHWC on the device, so of its dims only the channels keep PyTorch's order of the
    rest; over all of them, the flat index would count in NHWC order."""
    rank = input_rank(node)
    dim, _ = given_args(node, (node.kwargs.get("dim"), node.kwargs.get("keepdim", False)))
    if dim is not None:
        dim = int(dim) % max(rank, 1)
    if rank == 4 and dim != 1:
        over = "every dim" if dim is None else f"dim {dim}"
        raise UnsupportedOpError(f"argmax over {over} of a 4-D map", origin_of(node),
                                 "Take it over the channels (dim=1), or flatten first (x.flatten(1).argmax(1)).")
    return "aten.argmax", {"dim": dim}


def _lower(graph: Graph, op: Op) -> None:
    source = dequantized_source(graph, op.inputs[0], "int8")
    if source is None:
        raise UnsupportedOpError("argmax of a float tensor", op.origin,
                                 "Quantize what it reads (the op before it, with CortexMQuantizer).")
    x, quant = source
    x.quant = quant
    dim = op.attrs["dim"]
    if dim is None:  # over everything: the flat tensor's one axis
        flat = graph.add_tensor(Tensor(graph.unique_name(f"{x.name}_flat"), "int8", (int(np.prod(x.shape)),), quant))
        before = reshaped(graph, x.name, flat.name, op.origin)
        graph.ops[graph.ops.index(op):graph.ops.index(op)] = before
        x, axis = flat, 0
    else:
        axis = ember_axis(dim, len(x.shape))
    op.kind, op.inputs, op.attrs = "arg_max", [x.name], {"axis": axis}


ARG_MAX = OpSpec(
    kind="arg_max",
    opcode=fb.OpCode.ARG_MAX,
    options_type=fb.OpOptions.ArgMaxOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_arg_max",
    path={"*": "scalar"},
    lowerings=(Lowering(("aten.argmax",), _lower),),
    imports=(Import((aten.argmax.default,), _import_argmax),),
)
