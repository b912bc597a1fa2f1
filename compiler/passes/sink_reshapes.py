"""sink_reshapes: a reshape feeding an elementwise op moves below it, in the float FX graph.

A conv1d is a conv2d over a height of 1 between an unsqueeze and a squeeze
(compiler/decompositions.py), so the activation a model writes after it (`relu(conv1d(x))`, a
BatchNorm1d's folded ReLU, a residual add of two conv1d outputs) reads a squeeze: the ReLU cannot
fuse into the convolution's clamp, and the int8 graph keeps a table and two layout transposes per
layer between the convolutions (a DS-CNN over time spent more instructions on them than on its
convolutions). An elementwise op commutes with any reshape of all its tensor operands, so
`relu(squeeze(y))` becomes `squeeze(relu(y))`; repeated, the squeeze meets the next conv1d's
unsqueeze, and the two cancel in the int8 graph (ops/reshape.py's fold).

Only where every tensor operand is a reshape of a tensor of one and the same shape, the result
has the operands' shape (no broadcasting), and the other operands are scalars; and only where
every elementwise reader of each of those reshapes moves too (`_movable`). A region of one tensor
(PReLU's `where(x > 0, x, a * x)`, whose `a * x` broadcasts a per-channel slope and stays) must
not end up reading both sides of a reshape: it then has two inputs and is no longer one table.
"""
from __future__ import annotations

import torch
from torch.fx import GraphModule, Node

from compiler.passes.graph_module import call
from compiler.pointwise import is_pointwise

aten = torch.ops.aten

RESHAPES = (aten.reshape.default, aten.view.default, aten.squeeze.dim, aten.squeeze.dims, aten.squeeze.default,
            aten.unsqueeze.default, aten.flatten.using_ints, aten._unsafe_view.default)


def _shape(node: object) -> tuple[int, ...] | None:
    value = node.meta.get("val") if isinstance(node, Node) else None
    if not isinstance(value, torch.Tensor):
        return None
    try:  # a fake tensor's sizes may be symbolic (with a hint): the pass needs their values
        return tuple(int(d) for d in value.shape)
    except (TypeError, RuntimeError):
        return None


def _is_scalar(arg: object) -> bool:
    if isinstance(arg, (int, float, bool)):
        return True
    shape = _shape(arg)
    return shape is not None and len(shape) == 0 and isinstance(arg, Node) and arg.op == "get_attr"


def _sources(node: Node) -> list[Node] | None:
    """The reshape operands of `node` whose sources share one shape, when it can move below."""
    shape = _shape(node)
    reshapes = [a for a in node.args if isinstance(a, Node) and not _is_scalar(a)]
    if (shape is None or not reshapes or node.kwargs
            or any(not (isinstance(a, Node) or _is_scalar(a)) for a in node.args)):
        return None
    if not all(r.op == "call_function" and r.target in RESHAPES and _shape(r) == shape for r in reshapes):
        return None
    sources = {_shape(r.args[0]) for r in reshapes}
    return reshapes if len(sources) == 1 and None not in sources and sources != {shape} else None


def _movable(gm: GraphModule) -> list[Node]:
    """The elementwise nodes that move below their reshapes together, in graph order: those that
    read only reshapes (of one source shape) and each other, less any whose reshape has an
    elementwise reader that stays."""
    def closure(allowed: set[Node]) -> list[Node]:
        moving: dict[Node, tuple] = {}  # node -> the shape its value takes once moved
        for node in gm.graph.nodes:
            if node not in allowed or not is_pointwise(node) or (shape := _shape(node)) is None or node.kwargs:
                continue
            tensors = [a for a in node.args if isinstance(a, Node) and not _is_scalar(a)]
            if not tensors or any(not (isinstance(a, Node) or _is_scalar(a)) for a in node.args):
                continue
            sources = set()
            for a in tensors:
                if a in moving:
                    sources.add(moving[a])
                elif a.op == "call_function" and a.target in RESHAPES and _shape(a) == shape:
                    sources.add(_shape(a.args[0]))
                else:
                    sources.add(None)
            if len(sources) == 1 and None not in sources and sources != {shape}:
                moving[node] = sources.pop()
        return list(moving)

    allowed = set(gm.graph.nodes)
    while True:
        moving = closure(allowed)
        members = set(moving)
        stuck = {u for n in moving for r in n.args if isinstance(r, Node) and not _is_scalar(r) and r not in members
                 and any(is_pointwise(v) and v not in members for v in r.users) for u in r.users}
        if not stuck & members:
            return moving
        allowed -= stuck


def sink_reshapes(gm: GraphModule) -> GraphModule:
    changed = True
    while changed:
        changed = False
        for node in _movable(gm):
            reshapes = _sources(node)
            assert reshapes is not None, node  # its operands moved before it, in graph order
            shape, source_shape = _shape(node), _shape(reshapes[0].args[0])
            args = tuple(a.args[0] if a in reshapes else a for a in node.args)
            with gm.graph.inserting_before(node):
                moved = call(gm, node.target, args, reshapes[0].args[0], source_shape, node)
                back = call(gm, aten.reshape.default, (moved, list(shape)), node, shape, node)
            node.replace_all_uses_with(back)
            gm.graph.erase_node(node)
            for r in dict.fromkeys(reshapes):
                if not r.users:
                    gm.graph.erase_node(r)
            changed = True
    gm.graph.lint()
    gm.recompile()
    return gm
