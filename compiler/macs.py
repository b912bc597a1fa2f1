"""Multiply-accumulates per op of a lowered graph, from its shapes alone.

Only ops built on multiply-accumulate count (the others count 0, as CMSIS-NN's and MLPerf
Tiny's figures do). Weight layouts are the lowered ones (compiler/ops/*: NHWC activations).
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from compiler.ir import Graph, Op


def _elements(graph: Graph, name: str) -> int:
    return int(np.prod(graph.tensors[name].shape))


def _conv(graph: Graph, op: Op) -> int:
    weight = graph.tensors[op.inputs[1]].shape  # [C_OUT, KH, KW, C_IN / groups]
    return _elements(graph, op.outputs[0]) * int(np.prod(weight[1:]))


def _depthwise(graph: Graph, op: Op) -> int:
    weight = graph.tensors[op.inputs[1]].shape  # [KH, KW, C_OUT]
    return _elements(graph, op.outputs[0]) * weight[0] * weight[1]


def _fully_connected(graph: Graph, op: Op) -> int:
    weight = graph.tensors[op.inputs[1]].shape  # [OUT, IN]
    return _elements(graph, op.outputs[0]) * weight[1]


def _transpose_conv(graph: Graph, op: Op) -> int:
    weight = graph.tensors[op.inputs[1]].shape  # [C_OUT, KH, KW, C_IN]: every input pixel scatters
    return _elements(graph, op.inputs[0]) * int(np.prod(weight[:3]))


def _batch_matmul(graph: Graph, op: Op) -> int:
    k = graph.tensors[op.inputs[0]].shape[-1]  # a [B, M, K] × b [B, K, N]
    return _elements(graph, op.outputs[0]) * k


MAC_RULES: dict[str, Callable[[Graph, Op], int]] = {
    "conv2d": _conv,
    "depthwise_conv2d": _depthwise,
    "fully_connected": _fully_connected,
    "transpose_conv2d": _transpose_conv,
    "batch_matmul": _batch_matmul,
}


def op_macs(graph: Graph, op: Op) -> int:
    rule = MAC_RULES.get(op.kind)
    return rule(graph, op) if rule else 0


def graph_macs(graph: Graph) -> int:
    """Multiply-accumulates of one inference."""
    return sum(op_macs(graph, op) for op in graph.ops)
