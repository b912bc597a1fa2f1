"""fold_softmax_masks: a constant attention mask before a softmax over the last axis, in any of the
forms users write it, becomes the one form Ember's softmax takes (compiler/attention.py
softmax_mask): `where(mask, -inf, scores)` right before the softmax, `mask` a constant boolean
tensor (True: masked) of the softmax input's shape or, when every [Tq, Tk] block of a 3-D input
is the same (a causal mask broadcast over the batch and heads), of that block's.

The forms: `scores.masked_fill(mask, -inf)` and `torch.where(keep, scores, -inf)` (both `where` in
ATen), and `scores + mask` with a float constant of 0 and -inf (or values <= MASKED_BELOW, such
as -1e9 or torch.finfo(torch.float32).min, whose exponential float32 rounds to 0 as it does -inf's),
each possibly followed by reshapes that keep the last axis (the decomposed 4-D softmax). A float
mask that mixes masked positions with other non-zero values (a bias) is refused by name: its -inf
has no int8 code, and an int8 add would silently drop the mask. A float constant with no masked
position is an ordinary bias (an int8 add).
"""
from __future__ import annotations

import torch
from torch.fx import GraphModule, Node

from compiler.aten_node import origin_of
from compiler.attention import SOFTMAXES
from compiler.errors import UnsupportedOpError
from compiler.passes.graph_module import add_constant, attr_value, call

aten = torch.ops.aten

RESHAPES = (aten.reshape.default, aten.view.default, aten._unsafe_view.default)
MASKED_BELOW = -1e4  # an additive mask value at or below this masks its position


def _masked_scores(gm: GraphModule, node: Node) -> tuple[Node, torch.Tensor] | None:
    """(scores, boolean mask broadcast to `node`'s shape) when `node` masks a tensor with a
    constant, else None."""
    def _constant(arg: object) -> torch.Tensor | None:
        return attr_value(gm, arg.target) if isinstance(arg, Node) and arg.op == "get_attr" else None

    shape = node.meta["val"].shape
    if node.target == aten.where.self and len(node.args) == 3:
        condition, a, b = (_constant(arg) for arg in node.args)
        if condition is None or condition.dtype != torch.bool:
            return None
        for fill, scores, masked in ((a, node.args[2], condition), (b, node.args[1], ~condition)):
            if fill is not None and bool(torch.isneginf(fill).all()) and _constant(scores) is None:
                return scores, masked.expand(shape)
        return None
    if node.target == aten.add.Tensor and len(node.args) == 2 and not node.kwargs:
        for c, scores in ((_constant(node.args[1]), node.args[0]), (_constant(node.args[0]), node.args[1])):
            if c is None or not c.is_floating_point() or _constant(scores) is not None:
                continue
            masked = c <= MASKED_BELOW
            if not bool(masked.any()):
                return None  # a bias
            if bool((c[~masked] != 0).any()):
                raise UnsupportedOpError(
                    "an additive attention mask that mixes masked positions (-inf) with a bias", origin_of(node),
                    "Add the bias and mask apart: scores + bias, then masked_fill(mask, float('-inf')) (a "
                    "constant boolean mask, which Ember's int8 softmax applies).")
            return scores, masked.expand(shape)
    return None


def _smallest_mask(mask: torch.Tensor) -> torch.Tensor:
    """A 3-D mask whose [Tq, Tk] blocks are all alike as that one block."""
    if mask.dim() == 3 and bool((mask == mask[:1]).all()):
        return mask[0]
    return mask


def fold_softmax_masks(gm: GraphModule) -> GraphModule:
    changed = False
    for softmax in [n for n in gm.graph.nodes if n.op == "call_function" and n.target in SOFTMAXES]:
        source = softmax.args[0]
        rank = source.meta["val"].dim()
        if rank not in (2, 3) or int(softmax.args[1]) % rank != rank - 1:
            continue
        chain, node = [], source  # reshapes between the mask and the softmax, keeping the last axis
        while (node.op == "call_function" and node.target in RESHAPES and len(node.users) == 1
               and node.args[0].meta["val"].shape[-1] == node.meta["val"].shape[-1]):
            chain.append(node)
            node = node.args[0]
        if node.op != "call_function" or len(node.users) != 1:
            continue
        found = _masked_scores(gm, node)
        if found is None:
            continue
        scores, mask = found
        mask = _smallest_mask(mask.reshape(source.meta["val"].shape).contiguous())
        node.replace_all_uses_with(scores)
        gm.graph.erase_node(node)
        before = softmax
        masked = add_constant(gm, "_ember_softmax_mask", mask, before)
        fill = add_constant(gm, "_ember_softmax_fill", torch.tensor(float("-inf")), before)
        with gm.graph.inserting_before(softmax):
            where = call(gm, aten.where.self, (masked, fill, softmax.args[0]), softmax.args[0],
                         tuple(source.meta["val"].shape), softmax)
        softmax.args = (where, *softmax.args[1:])
        changed = True
    if changed:
        gm.graph.eliminate_dead_code()
        gm.graph.lint()
        gm.recompile()
    return gm
