"""drop_unused_pool_indices: a max pool that also returns indices (`return_indices=True`, or
PyTorch's own decomposition of max_pool2d) becomes a plain max pool where no op reads the
indices."""
from __future__ import annotations

import operator

import torch
from torch.fx import GraphModule

aten = torch.ops.aten

WITH_INDICES = {aten.max_pool2d_with_indices.default: aten.max_pool2d.default}


def drop_unused_pool_indices(gm: GraphModule) -> GraphModule:
    for node in list(gm.graph.nodes):
        if node.op != "call_function" or node.target not in WITH_INDICES:
            continue
        items = {user.args[1]: user for user in node.users if user.target is operator.getitem}
        if len(items) != len(node.users) or 1 in items or 0 not in items:
            continue
        with gm.graph.inserting_before(node):
            pooled = gm.graph.call_function(WITH_INDICES[node.target], node.args, node.kwargs)
        pooled.meta = {**node.meta, "val": items[0].meta.get("val")}
        items[0].replace_all_uses_with(pooled)
        gm.graph.erase_node(items[0])
        gm.graph.erase_node(node)
    gm.recompile()
    return gm
