"""Reading and writing the tensors a float FX GraphModule holds (its get_attr targets), for the
passes that rewrite it before quantization."""
from __future__ import annotations

import contextlib
from collections.abc import Callable

import torch
from torch.fx import GraphModule, Node


def attr_value(gm: GraphModule, target: str) -> torch.Tensor:
    owner, _, name = target.rpartition(".")
    return getattr(gm.get_submodule(owner) if owner else gm, name)


def set_attr(gm: GraphModule, target: str, value: torch.Tensor) -> None:
    owner, _, name = target.rpartition(".")
    module = gm.get_submodule(owner) if owner else gm
    if isinstance(getattr(module, name, None), torch.nn.Parameter):
        setattr(module, name, torch.nn.Parameter(value, requires_grad=False))
    else:
        module.register_buffer(name, value)


def add_constant(gm: GraphModule, stem: str, value: torch.Tensor, before: Node) -> Node:
    """A new buffer of `gm` holding `value`, read by a get_attr node inserted before `before`."""
    target, n = stem, 1
    while hasattr(gm, target):
        target, n = f"{stem}_{n}", n + 1
    gm.register_buffer(target, value.detach().clone())
    with gm.graph.inserting_before(before):
        node = gm.graph.get_attr(target)
    node.meta["val"] = getattr(gm, target)
    return node


def call(gm: GraphModule, target: object, args: tuple, like: Node, shape: tuple[int, ...], origin: Node) -> Node:
    """A call_function node of `target` at the graph's insertion point standing for (part of)
    `origin` (whose place in the model it keeps), its value a float32 fake tensor of `shape` in
    the fake mode of `like`'s value (the meta PT2E's prepare and the passes read)."""
    node = gm.graph.call_function(target, args)
    node.meta["val"] = like.meta["val"].fake_mode.from_tensor(torch.empty(shape))
    for key in ("stack_trace", "nn_module_stack"):
        if key in origin.meta:
            node.meta[key] = origin.meta[key]
    return node


@contextlib.contextmanager
def targets_wrapped(gm: GraphModule, nodes: list[Node], wrap: Callable[[Node, object], Callable]):
    """While inside, each of `nodes` calls wrap(node, its target) instead of its target (which
    the wrapper calls itself), so that running `gm` records what they see; restored on exit."""
    for node in nodes:
        node.meta["ember_target"], node.target = node.target, wrap(node, node.target)
    if nodes:
        gm.recompile()
    try:
        yield
    finally:
        for node in nodes:
            node.target = node.meta.pop("ember_target")
        if nodes:
            gm.recompile()
