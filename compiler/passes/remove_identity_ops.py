"""remove_identity_ops: ops that return their input's values unchanged in eval mode disappear
from the float FX graph before quantization (their users read the input itself).

Eval-mode dropout (a clone once functionalized), clone, alias, detach, contiguous, a dtype
conversion to the dtype the value already has, and a view / reshape / expand to the shape it
already has; tensor-metadata assertions (no users) are dropped too. Views become reshapes: a
view may have needed the memory layout a removed clone / contiguous made.
"""
from __future__ import annotations

import torch
from torch.fx import GraphModule, Node

aten = torch.ops.aten

IDENTITY_OPS = (
    aten.clone.default, aten.alias.default, aten.detach.default, aten.detach_.default, aten.lift_fresh_copy.default,
    aten.contiguous.default, aten.dropout.default, aten.feature_dropout.default, aten.alpha_dropout.default,
    aten.feature_alpha_dropout.default,
)
# Identities only where the output's shape and dtype equal the input's.
SAME_VALUE_OPS = (
    aten._to_copy.default, aten.to.dtype, aten.to.dtype_layout, aten.to.device, aten.type_as.default,
    aten.view.default, aten.reshape.default, aten._unsafe_view.default, aten.expand.default,
    aten.squeeze.dim, aten.squeeze.dims, aten.squeeze.default, aten.flatten.using_ints,
)
DROPPED_OPS = (aten._assert_tensor_metadata.default,)
VIEWS = (aten.view.default, aten._unsafe_view.default)


def _is_identity(node: Node) -> bool:
    if node.op != "call_function" or not node.args or not isinstance(node.args[0], Node):
        return False
    if node.target in IDENTITY_OPS:
        train = node.args[2] if len(node.args) > 2 else node.kwargs.get("train", False)
        return not (node.target in (aten.dropout.default, aten.feature_dropout.default, aten.alpha_dropout.default,
                                    aten.feature_alpha_dropout.default) and train)
    if node.target in SAME_VALUE_OPS:
        before, after = node.args[0].meta.get("val"), node.meta.get("val")
        return (isinstance(before, torch.Tensor) and isinstance(after, torch.Tensor)
                and before.dtype == after.dtype and tuple(before.shape) == tuple(after.shape))
    return False


def remove_identity_ops(gm: GraphModule) -> GraphModule:
    for node in list(gm.graph.nodes):
        if node.op == "call_function" and node.target in DROPPED_OPS and not node.users:
            gm.graph.erase_node(node)
        elif _is_identity(node):
            node.replace_all_uses_with(node.args[0])
            gm.graph.erase_node(node)
        elif node.op == "call_function" and node.target in VIEWS:
            node.target = aten.reshape.default
    gm.graph.lint()
    gm.recompile()
    return gm
