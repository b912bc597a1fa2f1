"""decompose_bilinear_resize: bilinear upsampling / resizing (`F.interpolate(mode="bilinear")`,
any size or scale, align_corners either way) becomes two products with constant interpolation
matrices, along W and then along H: int8 fully connected layers whose weights are the
interpolation weights (compiler/decompositions.py interpolation_matrix), quantized per output
column as PT2E quantizes any constant matrix."""
from __future__ import annotations

import math

import torch
from torch.fx import GraphModule, Node

from compiler.decompositions import interpolation_matrix
from compiler.passes.graph_module import add_constant, call

aten = torch.ops.aten
BILINEAR = (aten.upsample_bilinear2d.vec, aten.upsample_bilinear2d.default)


def _sizes(node: Node) -> tuple[int, int, tuple[float | None, float | None], bool]:
    """(output H, output W, (scale H, scale W) PyTorch computes coordinates with, align_corners)."""
    oh, ow = node.meta["val"].shape[-2:]
    if node.target == aten.upsample_bilinear2d.vec:
        _, size, align_corners, factors = (list(node.args) + [None] * 4)[:4]
        scales = tuple(float(f) for f in factors) if factors and not size else (None, None)
    else:
        _, size, align_corners, sh, sw = (list(node.args) + [None] * 5)[:5]
        scales = (sh, sw)
    return int(oh), int(ow), scales, bool(align_corners)


def _along_last(gm: GraphModule, x: Node, matrix: torch.Tensor, shape: tuple[int, ...], like: Node) -> tuple[Node, tuple]:
    """x [..., K] @ matrix [K, M] as a 2-D product: [rows, K] · [K, M], reshaped back."""
    k, m = matrix.shape
    rows = math.prod(shape[:-1])
    weights = add_constant(gm, f"{like.name}_interpolation", matrix, like)
    with gm.graph.inserting_before(like):
        flat = call(gm, aten.reshape.default, (x, [rows, k]), like, (rows, k), like)
        product = call(gm, aten.matmul.default, (flat, weights), like, (rows, m), like)
        out_shape = shape[:-1] + (m,)
        return call(gm, aten.reshape.default, (product, list(out_shape)), like, out_shape, like), out_shape


def _transposed(gm: GraphModule, x: Node, shape: tuple, like: Node) -> tuple[Node, tuple]:
    out_shape = shape[:-2] + (shape[-1], shape[-2])
    with gm.graph.inserting_before(like):
        return call(gm, aten.transpose.int, (x, -1, -2), like, out_shape, like), out_shape


def decompose_bilinear_resize(gm: GraphModule) -> GraphModule:
    for node in [n for n in gm.graph.nodes if n.op == "call_function" and n.target in BILINEAR]:
        x: Node = node.args[0]
        shape = tuple(x.meta["val"].shape)
        h, w = shape[-2:]
        oh, ow, (sh, sw), align_corners = _sizes(node)
        along_w = torch.tensor(interpolation_matrix(w, ow, align_corners, sw))
        along_h = torch.tensor(interpolation_matrix(h, oh, align_corners, sh))
        y, y_shape = _along_last(gm, x, along_w, shape, node)
        y, y_shape = _transposed(gm, y, y_shape, node)
        y, y_shape = _along_last(gm, y, along_h, y_shape, node)
        y, _ = _transposed(gm, y, y_shape, node)
        node.replace_all_uses_with(y)
        gm.graph.erase_node(node)
    gm.graph.lint()
    gm.recompile()
    return gm
