"""Pointwise regions: connected pointwise ATen ops that compute a function of ONE tensor (and
constants), which Ember runs as one 256-entry table of that tensor's int8 codes (`lut`).

Whatever a model writes elementwise on one activation — an activation function, `x * 0.5 + 1`,
`x * torch.sigmoid(x)`, PReLU's `where(x > 0, x, a * x)`, Mish's `x * tanh(softplus(x))`, a
log after a softmax — is, once x is int8, a function of 256 codes: PyTorch's own float
computation on each code, quantized, is the table, so the device agrees with PyTorch's quantized
model exactly. A constant operand that varies along one dim (a per-channel PReLU slope) makes one
table per position along it.

Two sides use this: the quantizer (`regions`, on the float graph: it quantizes a region's input
and outputs and nothing inside it) and the importer (`collapse`, on the quantized graph: every
quantize whose input is a pointwise function of one dequantize becomes one op that carries the
function).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch.fx import Node
from torch.fx.node import map_aggregate
from torchao.quantization.pt2e import quantize_pt2e  # noqa: F401  (registers the quantized_decomposed ops)

aten = torch.ops.aten
DEQUANTIZE = torch.ops.quantized_decomposed.dequantize_per_tensor.default

# Elementwise ops PyTorch does not tag pointwise.
EXTRA_POINTWISE = (aten.hardswish.default,)


def is_pointwise(node: Node) -> bool:
    target = node.target
    return node.op == "call_function" and isinstance(target, torch._ops.OpOverload) and (
        torch.Tag.pointwise in target.tags or target in EXTRA_POINTWISE)


def varying_dims(values: torch.Tensor, rank: int) -> list[int] | None:
    """The dims along which a constant operand, broadcast against a rank-`rank` activation,
    takes different values (none for a zero initial state, however large); None when it has
    more dims than the activation."""
    if values.dim() > rank:
        return None
    aligned = values.reshape((1,) * (rank - values.dim()) + tuple(values.shape))
    return [dim for dim in range(rank) if not torch.equal(aligned, aligned.narrow(dim, 0, 1).expand_as(aligned))]


def _value(node: Node) -> object:
    return node.meta.get("val")


def _is_tensor(node: Node) -> bool:
    return isinstance(_value(node), torch.Tensor)


def regions(nodes: list[Node], constant: Callable[[Node], torch.Tensor | None],
            eligible: Callable[[Node, dict[Node, Node]], bool]) -> dict[Node, Node]:
    """Each pointwise node of `nodes` (topological order) that computes a function of one
    non-constant tensor, mapped to that tensor's node (the region's root). `constant(node)` is
    the value of a constant node, else None. A node joins the region of its inputs' common root
    when `eligible(node, regions so far)` and its constant operands vary along one dim at most
    (the same one for the whole region: one table per position along it); masks (`x > 0`) may
    be inside a region, only float values leave it.

    A table per position costs 256 bytes a row, so a region whose constants vary keeps them
    only where the function is a joint one of the tensor (a member reads two of its values:
    PReLU's where(x > 0, x, a·x), x·sigmoid(a·x)); in a chain of single-input steps the steps
    with varying constants stay ops of their own (an int8 add, mul, minimum … with a constant)."""
    excluded: set[Node] = set()
    while True:
        root_of, varying = _grow(nodes, constant, eligible, excluded)
        dropped = set()
        for root, dims in varying.items():
            members = [n for n, r in root_of.items() if r is root]
            if dims and not any(len(_region_inputs(n, constant)) > 1 for n in members):
                dropped.update(n for n in members if _varying_operands(n, constant))
        if not dropped:
            return root_of
        excluded |= dropped


def _region_inputs(node: Node, constant: Callable[[Node], torch.Tensor | None]) -> set[Node]:
    return {arg for arg in node.all_input_nodes if constant(arg) is None}


def _varying_operands(node: Node, constant: Callable[[Node], torch.Tensor | None]) -> bool:
    rank = _value(node).dim()
    return any(varying_dims(value, rank) != [] for value in map(constant, node.all_input_nodes) if value is not None)


def _grow(nodes: list[Node], constant: Callable[[Node], torch.Tensor | None],
          eligible: Callable[[Node, dict[Node, Node]], bool], excluded: set[Node]) -> tuple[dict, dict]:
    """(root of each region member, dims each region's constants vary along)."""
    root_of: dict[Node, Node] = {}
    varying: dict[Node, set[int]] = {}
    for node in nodes:
        if node in excluded or not is_pointwise(node) or not _is_tensor(node) or not eligible(node, root_of):
            continue
        roots, dims = set(), set()
        rank = _value(node).dim()
        for arg in node.all_input_nodes:
            value = constant(arg)
            if value is not None:
                along = varying_dims(value, rank)
                dims.update(range(rank + 1) if along is None else along)
            else:
                roots.add(root_of.get(arg, arg))
        if len(roots) != 1:
            continue
        (root,) = roots
        if not (_is_tensor(root) and _value(root).is_floating_point()):
            continue  # a mask or an index: not a quantized tensor's function
        if len(dims | varying.get(root, set())) <= 1:
            root_of[node] = root
            varying[root] = dims | varying.get(root, set())
    return root_of, varying


@dataclass
class Collapsed:
    """A pointwise function of one dequantized tensor, ending where a quantize reads it."""

    output: Node  # the last pointwise node (the quantize's input)
    source: Node  # the dequantize whose output the function takes (any of them, if several)
    members: list[Node]  # the pointwise nodes, in graph order

    def function(self, constants: dict[str, torch.Tensor]) -> Callable[[torch.Tensor], torch.Tensor]:
        """The function of the dequantized values, computed by the ATen ops themselves."""
        members = self.members
        sources = {self.source} | {n for m in members for n in m.all_input_nodes if _is_dequantize(n)}

        def run(x: torch.Tensor) -> torch.Tensor:
            values: dict[Node, object] = {}

            def value(arg: object) -> object:
                if not isinstance(arg, Node):
                    return arg
                if arg in sources:
                    return x
                return values[arg] if arg in values else constants[arg.name]

            for node in members:
                values[node] = node.target(*map_aggregate(node.args, value), **map_aggregate(node.kwargs, value))
            return values[members[-1]]

        return run

    def describe(self) -> str:
        names = [str(n.target.overloadpacket.__name__) for n in self.members]
        return names[0] if len(names) == 1 else f"{names[-1]}∘…∘{names[0]} ({len(names)} ops)"


def _is_dequantize(node: Node) -> bool:
    return node.op == "call_function" and node.target == DEQUANTIZE


def collapse(output: Node, is_constant: Callable[[Node], bool], eligible: Callable[[Node], bool]) -> Collapsed | None:
    """The pointwise function ending at `output` (a quantize's input), if it reads exactly one
    dequantized tensor (dequantizes of the same int8 tensor with the same parameters count as
    one) and otherwise constants and numbers."""
    members, dequantized, stack = set(), set(), [output]
    while stack:
        node = stack.pop()
        if node in members:
            continue
        if _is_dequantize(node) and not is_constant(node.args[0]):
            dequantized.add((node.args[0], *node.args[1:]))
            continue
        if is_constant(node):
            continue
        if not is_pointwise(node) or not eligible(node):
            return None
        members.add(node)
        stack.extend(node.all_input_nodes)
    if len(dequantized) != 1 or not members:
        return None
    order = {node: k for k, node in enumerate(output.graph.nodes)}
    ordered = sorted(members, key=order.__getitem__)
    source = next(n for m in ordered for n in m.all_input_nodes if _is_dequantize(n) and not is_constant(n.args[0]))
    return Collapsed(output, source, ordered)
