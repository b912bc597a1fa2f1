"""fold_product_scales: the number attention scales its scores by (`q @ kᵀ * scale`, `/ math.sqrt(d)`,
or `q * scale` before the product) is moved to the product's output, `mul(bmm(q, kᵀ), number)`,
which the batch_matmul takes into its requantization (compiler/attention.py product_scale).

A multiplication by a positive number commutes with the data movement between it and the product
(the decomposed matmul's reshape to 4-D, a transpose) and with the product itself (a number times
an operand scales the product alike), so the graph computes the same values; it then quantizes
the scaled product once, where it quantized the product and the scaled one (a 256-entry table).
Moved only where every node on the way has no other reader.
"""
from __future__ import annotations

import math

import torch
from torch.fx import GraphModule, Node

from compiler.attention import PRODUCTS, product_scale
from compiler.passes.graph_module import call

aten = torch.ops.aten

MOVEMENT = (aten.reshape.default, aten.view.default, aten._unsafe_view.default, aten.transpose.int,
            aten.permute.default)


def _factor(node: Node) -> float | None:
    """The positive number `node` multiplies its tensor by (mul or div by a number), else None."""
    if node.op != "call_function" or node.target not in (aten.mul.Tensor, aten.div.Tensor) or node.kwargs:
        return None
    if len(node.args) != 2 or not isinstance(node.args[0], Node):
        return None
    number = node.args[1]
    if isinstance(number, bool) or not isinstance(number, (int, float)) or not math.isfinite(number) or number <= 0:
        return None
    return float(number) if node.target == aten.mul.Tensor else 1.0 / float(number)


def _through_movement(node: Node) -> Node:
    """The first node above `node` that is not data movement read by one node only."""
    while node.op == "call_function" and node.target in MOVEMENT and len(node.users) == 1:
        node = node.args[0]
    return node


def _scale_output(gm: GraphModule, product: Node, factor: float) -> None:
    """`product`'s readers read product · factor (merged with a scale it already has)."""
    existing = next(iter(product.users)) if len(product.users) == 1 else None
    if existing is not None and product_scale(existing) is not None:
        existing.args = (product, product_scale(existing) * factor)
        return
    with gm.graph.inserting_after(product):
        scaled = call(gm, aten.mul.Tensor, (product, factor), product, tuple(product.meta["val"].shape), product)
    product.replace_all_uses_with(scaled, delete_user_cb=lambda user: user is not scaled)


def fold_product_scales(gm: GraphModule) -> GraphModule:
    changed = False
    for node in list(gm.graph.nodes):
        factor = _factor(node)
        if factor is None or product_scale(node) is not None:
            continue
        below = _through_movement(node.args[0])  # a scale of the product's output
        if below.op == "call_function" and below.target in PRODUCTS and len(below.users) == 1:
            node.replace_all_uses_with(node.args[0])
            gm.graph.erase_node(node)
            _scale_output(gm, below, factor)
            changed = True
            continue
        if len(node.users) != 1:  # a scale of an operand: the product it alone feeds
            continue
        operand, reader = node, next(iter(node.users))
        while reader.op == "call_function" and reader.target in MOVEMENT and len(reader.users) == 1:
            operand, reader = reader, next(iter(reader.users))
        if reader.op == "call_function" and reader.target in PRODUCTS and list(reader.args[:2]).count(operand) == 1:
            node.replace_all_uses_with(node.args[0])
            gm.graph.erase_node(node)
            _scale_output(gm, reader, factor)
            changed = True
    if changed:
        gm.graph.lint()
        gm.recompile()
    return gm
