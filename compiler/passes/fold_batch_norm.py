"""fold_batch_norm: merge inference-mode batch norm into the preceding linear or conv2d (a
conv1d's too: its conv2d's squeeze keeps the channels at dim 1).

Runs on the float FX graph from `torch.export` before quantization, so the folded weights are
what gets observed and quantized (per channel). A batch norm whose input is not a weighted op
with a single user is its own op (passes/decompose_batch_norm.py).
"""
from __future__ import annotations

import torch
from torch.fx import GraphModule, Node

from compiler.passes.graph_module import attr_value, set_attr

aten = torch.ops.aten

BATCH_NORMS = (aten.batch_norm.default, aten._native_batch_norm_legit_no_training.default)
WEIGHTED = (aten.linear.default, aten.conv2d.default)


def batch_norm_constants(gm: GraphModule, bn: Node) -> tuple[torch.Tensor, torch.Tensor]:
    """(factor, shift) per channel: batch_norm(x) = x · factor + shift."""
    gamma, beta, mean, var = (attr_value(gm, n.target) if n is not None else None for n in bn.args[1:5])
    eps = bn.args[7] if bn.target == aten.batch_norm.default else bn.args[6]
    gamma = gamma if gamma is not None else torch.ones_like(mean)
    beta = beta if beta is not None else torch.zeros_like(mean)
    factor = gamma / torch.sqrt(var + eps)
    return factor, beta - mean * factor


def replace_batch_norm(gm: GraphModule, bn: Node, value: Node) -> None:
    """Every use of `bn`'s result reads `value`; `bn` (and its getitem) is erased."""
    # _native_batch_norm_legit_no_training returns a tuple; its users take item 0.
    if bn.target == aten.batch_norm.default:
        bn.replace_all_uses_with(value)
    else:
        for user in list(bn.users):
            user.replace_all_uses_with(value)
            gm.graph.erase_node(user)
    gm.graph.erase_node(bn)


def _weighted_producer(bn: Node) -> tuple[Node, Node] | None:
    """(the weighted op, the node bn reads) when bn's input is a linear / conv2d with no other
    user, directly or through a conv1d's squeeze of dim 2."""
    source = bn.args[0]
    producer = source
    if (isinstance(source, Node) and source.target == aten.squeeze.dim and len(source.users) == 1
            and source.args[1] in (2, -2) and isinstance(source.args[0], Node)):
        producer = source.args[0]
    if not (isinstance(producer, Node) and producer.target in WEIGHTED and len(producer.users) == 1):
        return None
    return producer, source


def fold_batch_norm(gm: GraphModule) -> GraphModule:
    """Returns `gm` with every foldable batch norm removed and its producer's weights scaled."""
    for bn in list(gm.graph.nodes):
        if bn.op != "call_function" or bn.target not in BATCH_NORMS:
            continue
        found = _weighted_producer(bn)
        if found is None:
            continue
        producer, source = found
        # Batch norm scales dim 1; that is the linear's output-feature dim only for [N, C] outputs.
        if producer.target == aten.linear.default and producer.meta["val"].dim() != 2:
            continue
        factor, shift = batch_norm_constants(gm, bn)
        weight_node = producer.args[1]
        bias_node = producer.args[2] if len(producer.args) > 2 else None
        weight = attr_value(gm, weight_node.target)
        bias = attr_value(gm, bias_node.target) if bias_node is not None else torch.zeros_like(shift)
        shape = (-1,) + (1,) * (weight.dim() - 1)
        set_attr(gm, weight_node.target, (weight * factor.reshape(shape)).detach())
        folded_bias = (bias * factor + shift).detach()
        if bias_node is None:
            bias_target = f"{weight_node.target}_folded_bias"
            set_attr(gm, bias_target, folded_bias)
            with gm.graph.inserting_before(producer):
                bias_node = gm.graph.get_attr(bias_target)
            args = list(producer.args) + [None] * (3 - len(producer.args))
            args[2] = bias_node
            producer.args = tuple(args)
        else:
            set_attr(gm, bias_node.target, folded_bias)
        replace_batch_norm(gm, bn, source)
    gm.graph.eliminate_dead_code()
    gm.recompile()
    return gm
