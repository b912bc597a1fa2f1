"""reshape: the same elements in the same order under a new shape (view, flatten, squeeze,
unsqueeze). The planner gives the output the input's bytes where it can (compiler/planner.py),
and then the kernel has nothing to do.

Lowering: dequantize → reshape / view / flatten / squeeze / unsqueeze →
quantize (shared quantization) becomes an int8 `reshape` that keeps PyTorch's element order:
a 4-D map is NHWC here, so a reshape that changes its rank (or a 4-D result) goes through a
transpose to or from NCHW where the two orders differ (layout.reshaped). A flatten feeding a
linear then folds into it (ops/fully_connected.py); the planner makes a reshape an alias of its
input, so the reshape itself moves no bytes.
"""
from __future__ import annotations

import numpy as np
import torch
from torch.fx import Node

from compiler import streaming
from compiler.ir import Graph, Op, Quant
from compiler.layout import moved, only_reader, reshaped
from compiler.ops.spec import Import, Lowering, OpSpec
from compiler.schema import program_generated as fb

aten = torch.ops.aten


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [np.array(inputs[0]).reshape(-1)]  # reference.run gives it the output's shape


def _write(builder, op: Op) -> int:
    fb.ReshapeOptionsStart(builder)
    return fb.ReshapeOptionsEnd(builder)


def _path(graph: Graph, op: Op, tier: str, chosen: frozenset[str]) -> str:
    """em_reshape.c: nothing to do when the planner gave the output the input's bytes."""
    src, dst = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
    same = (not src.is_constant and src.offset is not None and src.offset == dst.offset and src.arena == dst.arena)
    return "alias: no copy" if same else "one memmove"


def _lower(graph: Graph, reshape: Op) -> None:
    def build(source: str, output: str, quant: Quant, op: Op = reshape) -> list[Op]:
        return reshaped(graph, source, output, op.origin)
    moved(graph, reshape, "reshape", build)


def _import_reshape(node: Node, args: list) -> tuple[str, dict]:
    return "aten.reshape", {}


def _lower_float_reshape(graph: Graph, op: Op) -> list[Op]:
    """A reshape between float ops (the data-movement kernels take any dtype)."""
    return [Op(o.kind, o.inputs, o.outputs, o.attrs | {"float_reason": op.attrs["float_reason"]}, o.origin)
            for o in reshaped(graph, op.inputs[0], op.outputs[0], op.origin)]


def _fold(graph: Graph) -> bool:
    """A reshape of a reshape (the first read by nothing else) is one reshape, and a reshape to
    its input's own shape vanishes; so a conv1d's NHWC → NCHW transpose, squeeze, unsqueeze and
    NCHW → NHWC transpose before the next conv1d fold to nothing."""
    changed = False
    for op in [op for op in graph.ops if op.kind == "reshape"]:
        producer = graph.producer(op.inputs[0])
        if producer is not None and producer.kind == "reshape" and only_reader(graph, op.inputs[0]) is op:
            op.inputs = list(producer.inputs)
            graph.ops.remove(producer)
            changed = True
    for op in [op for op in graph.ops if op.kind == "reshape"]:
        (source,), (target,) = op.inputs, op.outputs
        same = graph.tensors[source].shape == graph.tensors[target].shape
        if same and target not in graph.outputs and graph.tensors[source].dtype == graph.tensors[target].dtype:
            graph.replace_uses(target, source)
            graph.ops.remove(op)
            changed = True
    return changed


RESHAPE = OpSpec(
    kind="reshape",
    opcode=fb.OpCode.RESHAPE,
    options_type=fb.OpOptions.ReshapeOptions,
    reference=_reference,
    write_options=_write,
    read_options=lambda table: {},
    registration="em_op_reshape",
    fold=_fold,
    float_lowerings={"aten.reshape": _lower_float_reshape},
    imports=(Import((aten.flatten.using_ints, aten.view.default, aten.reshape.default, aten.squeeze.dim,
                     aten.squeeze.dims, aten.squeeze.default, aten.unsqueeze.default), _import_reshape, "shared",
                    int16=True),),
    lowerings=(Lowering(("aten.reshape",), _lower),),
    output_aliases_input=True,
    path=_path,
    stream=streaming.reshape_axis,
)
