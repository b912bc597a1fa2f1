"""decompose_batch_norm: an inference-mode batch norm that could not fold into a weighted op
(after an add, a concatenation, at the model's input, after a pool) becomes a depthwise 1×1
convolution with its per-channel factor as weights and its shift as bias: one int8 op with one
rounding, as PyTorch's quantized model rounds the batch norm once. Inputs of rank 2 ([N, C]) and
3 ([N, C, L]) are viewed as [N, C, 1, 1] / [N, C, 1, L] around it.
"""
from __future__ import annotations

import torch
from torch.fx import GraphModule, Node

from compiler.passes.fold_batch_norm import BATCH_NORMS, batch_norm_constants, replace_batch_norm
from compiler.passes.graph_module import add_constant, call

aten = torch.ops.aten


def decompose_batch_norm(gm: GraphModule) -> GraphModule:
    for bn in [n for n in gm.graph.nodes if n.op == "call_function" and n.target in BATCH_NORMS]:
        x: Node = bn.args[0]
        shape = tuple(x.meta["val"].shape)
        if len(shape) not in (2, 3, 4):
            continue
        factor, shift = batch_norm_constants(gm, bn)
        channels = shape[1]
        weight = add_constant(gm, f"{bn.name}_weight", factor.reshape(channels, 1, 1, 1), bn)
        bias = add_constant(gm, f"{bn.name}_bias", shift, bn)
        map_shape = shape + (1,) * (4 - len(shape)) if len(shape) == 2 else shape[:2] + (1,) * (4 - len(shape)) + shape[2:]
        with gm.graph.inserting_before(bn):
            source = x if len(shape) == 4 else call(gm, aten.reshape.default, (x, list(map_shape)), x, map_shape, bn)
            conv = call(gm, aten.conv2d.default, (source, weight, bias, [1, 1], [0, 0], [1, 1], channels), x, map_shape, bn)
            result = conv if len(shape) == 4 else call(gm, aten.reshape.default, (conv, list(shape)), x, shape, bn)
        replace_batch_norm(gm, bn, result)
    gm.graph.lint()
    gm.recompile()
    return gm
