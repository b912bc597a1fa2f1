"""materialize_expands: `expand` (`x.expand_as(y)`, and the batch broadcast of a decomposed
matmul) disappears where every op reading it is elementwise (broadcasting gives those the same
values), and is otherwise a concatenation of copies along each expanded dim (a pure copy of
the int8 codes)."""
from __future__ import annotations

import torch
from torch.fx import GraphModule, Node

from compiler.passes.graph_module import call
from compiler.pointwise import is_pointwise

aten = torch.ops.aten


def _broadcast_by_users(node: Node) -> bool:
    """Every user is elementwise and its result has the expanded shape anyway."""
    shape = tuple(node.meta["val"].shape)
    return all(is_pointwise(user) and tuple(user.meta["val"].shape) == shape for user in node.users)


def materialize_expands(gm: GraphModule) -> GraphModule:
    for node in [n for n in gm.graph.nodes if n.op == "call_function" and n.target == aten.expand.default]:
        source: Node = node.args[0]
        if _broadcast_by_users(node):
            node.replace_all_uses_with(source)
            gm.graph.erase_node(node)
            continue
        target = tuple(node.meta["val"].shape)
        shape = (1,) * (len(target) - source.meta["val"].dim()) + tuple(source.meta["val"].shape)
        with gm.graph.inserting_before(node):
            value = source if tuple(source.meta["val"].shape) == shape else call(
                gm, aten.reshape.default, (source, list(shape)), source, shape, node)
            for dim, (have, want) in enumerate(zip(shape, target)):
                if have == 1 and want != 1:
                    shape = shape[:dim] + (want,) + shape[dim + 1:]
                    value = call(gm, aten.cat.default, ([value] * want, dim), source, shape, node)
        node.replace_all_uses_with(value)
        gm.graph.erase_node(node)
    gm.graph.lint()
    gm.recompile()
    return gm
