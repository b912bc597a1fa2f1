"""fold_written_norms: a layer norm or RMS norm written out in ops becomes aten.layer_norm or
aten.rms_norm, in the float FX graph, so that it lowers to Ember's one int8 norm (ops/norm.py)
instead of six int8 ops that each round (the variance of an int8 difference, squared into int8
again, keeps few of its bits).

The forms, over the last axis with keepdim (models write them so: LLaMA-style RMSNorm modules,
hand-made LayerNorms of older code, `torch.var(unbiased=False)`, which decomposes to the second):
    d = x - x.mean(-1, keepdim=True)     (layer norm)     or     d = x     (RMS norm)
    v = (d ** 2).mean(-1, keepdim=True)  or  (d * d).mean(-1, keepdim=True)
    y = d * torch.rsqrt(v + eps)  or  d / torch.sqrt(v + eps)
then `y * weight` and (layer norm) `y + bias`, with constant weight and bias varying along the
last axis only; the product's factors in any order (`weight * d * torch.rsqrt(v + eps)`), and `d`
may be another `x - x.mean(...)` node equal to the first. Anything else is left as written.
"""
from __future__ import annotations

import math

import torch
from torch.fx import GraphModule, Node

from compiler.passes.graph_module import add_constant, attr_value, call

aten = torch.ops.aten


def _is_last_mean(node: object, of: Node | None = None) -> bool:
    """node = mean(of, [last axis], keepdim=True)."""
    if not (isinstance(node, Node) and node.target == aten.mean.dim and (of is None or node.args[0] is of)):
        return False
    dims, keepdim = node.args[1], (node.args[2] if len(node.args) > 2 else node.kwargs.get("keepdim", False))
    rank = node.args[0].meta["val"].dim()
    return keepdim and len(dims) == 1 and dims[0] in (-1, rank - 1)


def _scalar(gm: GraphModule, arg: object) -> float | None:
    if isinstance(arg, (int, float)) and not isinstance(arg, bool):
        return float(arg)
    if isinstance(arg, Node) and arg.op == "get_attr" and attr_value(gm, arg.target).dim() == 0:
        return float(attr_value(gm, arg.target))
    return None


def _square_of(node: Node) -> Node | None:
    if node.target == aten.pow.Tensor_Scalar and node.args[1] == 2:
        return node.args[0]
    if node.target == aten.mul.Tensor and node.args[0] is node.args[1]:
        return node.args[0]
    return None


def _statistics(gm: GraphModule, root: Node) -> tuple[Node, Node, float, bool] | None:
    """(x, d, eps, centred) of rsqrt(v + eps) / sqrt(v + eps) `root`, or None."""
    inner, eps = root.args[0], 0.0
    if isinstance(inner, Node) and inner.target == aten.add.Tensor:
        for v, e in ((inner.args[0], inner.args[1]), (inner.args[1], inner.args[0])):
            if isinstance(v, Node) and (value := _scalar(gm, e)) is not None:
                inner, eps = v, value
                break
        else:
            return None
    if not _is_last_mean(inner) or (d := _square_of(inner.args[0])) is None:
        return None
    if d.target == aten.sub.Tensor and _is_last_mean(d.args[1], d.args[0]):
        return d.args[0], d, eps, True
    return d, d, eps, False


def _is_d(node: object, x: Node, d: Node, centred: bool) -> bool:
    """`node` is d: itself, or (layer norm) another x - mean(x) node."""
    return node is d or (centred and isinstance(node, Node) and node.target == aten.sub.Tensor
                         and node.args[0] is x and _is_last_mean(node.args[1], x))


def _last_axis_vector(gm: GraphModule, node: object, x: Node) -> torch.Tensor | None:
    """The [D] values of a constant that varies along x's last axis only, or None."""
    if not (isinstance(node, Node) and node.op == "get_attr"):
        return None
    value, shape = attr_value(gm, node.target), tuple(x.meta["val"].shape)
    if value.dim() == 0 or value.dim() > len(shape) or value.shape[-1] != shape[-1] or value.numel() != shape[-1]:
        return None
    return value.reshape(-1)


def _factors(arg: object) -> list[object]:
    """The leaves of the product tree at `arg` (mul nodes each read only by the one above)."""
    if isinstance(arg, Node) and arg.target == aten.mul.Tensor and len(arg.users) == 1:
        return [leaf for a in arg.args for leaf in _factors(a)]
    return [arg]


def _product(gm: GraphModule, root: Node, x: Node, d: Node, centred: bool) -> tuple[Node, torch.Tensor | None] | None:
    """(the node computing d / sqrt(v + eps) [· weight], its weight) above `root`, or None."""
    if root.target == aten.sqrt.default:
        if len(root.users) != 1 or (top := next(iter(root.users))).target != aten.div.Tensor or top.args[1] is not root:
            return None
        leaves = _factors(top.args[0])
    else:
        top, leaves = root, []
    while len(top.users) == 1 and (user := next(iter(top.users))).target == aten.mul.Tensor:  # the products on it
        other = user.args[1] if user.args[0] is top else user.args[0]
        leaves += _factors(other)
        top = user
    weights = [w for leaf in leaves if not _is_d(leaf, x, d, centred)
               if (w := _last_axis_vector(gm, leaf, x)) is not None]
    d_count = sum(_is_d(leaf, x, d, centred) for leaf in leaves)
    if d_count != 1 or len(weights) + d_count != len(leaves) or len(weights) > 1 or top is root:
        return None
    return top, (weights[0] if weights else None)


def _norm(gm: GraphModule, root: Node) -> None:
    if (stats := _statistics(gm, root)) is None:
        return
    x, d, eps, centred = stats
    if (found := _product(gm, root, x, d, centred)) is None:
        return
    top, weight = found
    bias = None
    if centred and len(top.users) == 1 and (add := next(iter(top.users))).target == aten.add.Tensor:
        other = add.args[1] if add.args[0] is top else add.args[0]
        if (bias := _last_axis_vector(gm, other, x)) is not None:
            top = add
    shape = tuple(int(s) for s in x.meta["val"].shape)
    depth = shape[-1]
    w = add_constant(gm, "written_norm_weight", weight, top) if weight is not None else None
    b = add_constant(gm, "written_norm_bias", bias, top) if bias is not None else None
    with gm.graph.inserting_before(top):  # the norm's importer takes rank <= 3: wider as rows
        rows_shape = shape if len(shape) <= 3 else (math.prod(shape[:-1]), depth)
        rows = x if len(shape) <= 3 else call(gm, aten.reshape.default, (x, list(rows_shape)), x, rows_shape, top)
        args = (rows, [depth], w, b, eps) if centred else (rows, [depth], w, eps)
        y = call(gm, aten.layer_norm.default if centred else aten.rms_norm.default, args, x, rows_shape, top)
        if rows is not x:
            y = call(gm, aten.reshape.default, (y, list(shape)), x, shape, top)
    top.replace_all_uses_with(y)


def fold_written_norms(gm: GraphModule) -> GraphModule:
    for node in list(gm.graph.nodes):
        if node.op == "call_function" and node.target in (aten.rsqrt.default, aten.sqrt.default) and node.users:
            _norm(gm, node)
    gm.graph.eliminate_dead_code()
    gm.graph.lint()
    gm.recompile()
    return gm
