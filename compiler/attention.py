"""The two forms attention takes in the float graph that Ember runs as parts of other ops, so that
the quantizer, the importer and the float-graph passes recognise them alike:

- a product's scale: `mul(bmm(q, kᵀ), number)` where the product has no other reader. It folds
  into the batch_matmul's requantization (scale_q · scale_k · number / scale_out): the quantizer
  quantizes the scaled product only (PyTorch's quantized model computes q kᵀ · number in float,
  then rounds once), so no table of the product runs.
- a softmax's mask: `where(mask, -inf, scores)` read only by a softmax over the last axis, `mask` a
  constant boolean tensor broadcastable to the scores (passes/fold_softmax_masks.py makes every
  written form this one). -inf has no int8 code: the scores are quantized before the mask, and
  Ember's softmax applies the mask to its input (masked positions give exactly 0, code -128).
"""
from __future__ import annotations

import math

import torch
from torch._subclasses.fake_tensor import FakeTensor
from torch.fx import Node

aten = torch.ops.aten

PRODUCTS = (aten.bmm.default, aten.matmul.default)  # the ATen ops batch_matmul imports
SOFTMAXES = (aten._softmax.default, aten.softmax.int)


def product_scale(node: Node) -> float | None:
    """The number `node` multiplies a product of two tensors by, when `node` is mul(product,
    number) and the product's only reader; else None."""
    if not (isinstance(node, Node) and node.op == "call_function" and node.target == aten.mul.Tensor
            and len(node.args) == 2 and not node.kwargs):
        return None
    product, number = node.args
    if not (isinstance(product, Node) and product.op == "call_function" and product.target in PRODUCTS
            and isinstance(number, (int, float)) and not isinstance(number, bool) and math.isfinite(number)
            and number > 0 and len(product.users) == 1):
        return None
    return float(number)


def _constant(node: object) -> torch.Tensor | None:
    """A get_attr node's value where its meta holds it (not a fake tensor of its shape only)."""
    value = node.meta.get("val") if isinstance(node, Node) and node.op == "get_attr" else None
    return value if isinstance(value, torch.Tensor) and not isinstance(value, FakeTensor) else None


def softmax_mask(node: Node) -> Node | None:
    """The constant boolean mask node (True: masked) when `node` is where(mask, -inf, scores)
    whose only reader is a softmax over the scores' last axis; else None."""
    if not (isinstance(node, Node) and node.op == "call_function" and node.target == aten.where.self
            and len(node.args) == 3 and len(node.users) == 1):
        return None
    mask, fill, scores = node.args
    masked, filled = _constant(mask), _constant(fill)
    (reader,) = node.users
    rank = node.meta["val"].dim()
    if (masked is None or masked.dtype != torch.bool or filled is None or filled.numel() != 1
            or not bool(torch.isneginf(filled).all()) or not isinstance(scores, Node) or _constant(scores) is not None
            or reader.target not in SOFTMAXES or int(reader.args[1]) % rank != rank - 1 or rank not in (2, 3)):
        return None
    return mask
