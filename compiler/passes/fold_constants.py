"""fold_constants: every value of the float FX graph that does not depend on a program input is
computed ahead of time and becomes a constant of the GraphModule (a get_attr), before
quantization.

That covers tensors made in `forward` (`torch.zeros`, `ones`, `full`, `arange`, an RNN's zero
initial state), values made from parameters (a conv1d weight viewed as a conv2d weight, a PReLU
slope reshaped for broadcasting, a dilated transposed-conv weight), and `*_like` creators, whose
values depend on their input's shape only. So PT2E sees plain weights and constant operands, and
the importer plain constants. Random ops are left alone.
"""
from __future__ import annotations

import torch
from torch.fx import GraphModule, Node
from torch.fx.node import map_aggregate

from compiler.passes.graph_module import add_constant, attr_value

aten = torch.ops.aten

# Creators whose value depends only on their first argument's shape and dtype.
LIKE_CREATORS = (aten.zeros_like.default, aten.ones_like.default, aten.full_like.default, aten.empty_like.default,
                 aten.new_zeros.default, aten.new_ones.default, aten.new_full.default, aten.new_empty.default)


def _deterministic(node: Node) -> bool:
    tags = getattr(node.target, "tags", ())
    return torch.Tag.nondeterministic_seeded not in tags


def _foldable(node: Node, values: dict[Node, object]) -> bool:
    """Every input is a constant (a `*_like` creator's first one need not be)."""
    inputs = node.all_input_nodes
    if node.target in LIKE_CREATORS and node.args and isinstance(node.args[0], Node):
        inputs = [n for n in inputs if n is not node.args[0]]
    return all(n in values for n in inputs)


def _evaluate(node: Node, values: dict[Node, object]) -> object:
    shaped = {}
    if node.target in LIKE_CREATORS and isinstance(node.args[0], Node) and node.args[0] not in values:
        like = node.args[0].meta["val"]  # only its shape and dtype count
        shaped[node.args[0]] = torch.zeros(like.shape, dtype=like.dtype)

    def value(arg: object) -> object:
        return (shaped.get(arg) if arg in shaped else values[arg]) if isinstance(arg, Node) else arg

    args, kwargs = map_aggregate(node.args, value), map_aggregate(node.kwargs, value)
    with torch.no_grad():
        return node.target(*args, **kwargs)


def fold_constants(gm: GraphModule) -> GraphModule:
    values: dict[Node, object] = {}
    for node in gm.graph.nodes:
        if node.op == "get_attr":
            values[node] = attr_value(gm, node.target)
        elif node.op == "call_function" and _deterministic(node) and _foldable(node, values):
            try:
                values[node] = _evaluate(node, values)
            except (RuntimeError, NotImplementedError):  # an op eager mode cannot run so: left in the graph
                pass
    outputs = {n for n in gm.graph.nodes if n.op == "output"}
    for node, value in values.items():
        if node.op != "call_function" or not isinstance(value, torch.Tensor):
            continue
        users = [user for user in node.users if user not in values]
        if users and not any(user in outputs for user in users):
            constant = add_constant(gm, f"_ember_constant_{node.name}", value, node)
            node.replace_all_uses_with(constant)
    gm.graph.eliminate_dead_code()
    gm.graph.lint()
    gm.recompile()
    return gm
