"""Imports PyTorch's converted quantized model (a GraphModule, compiler/frontend.py
`importable`) into Ember IR, one entry per ATen op, each declared by the op module that
lowers it (OpSpec.imports).

The result still mirrors PyTorch: float `linear`, `relu`, `clamp`, and explicit `quantize` /
`dequantize` ops. Lowering passes turn it into integer Ember ops.
"""
from __future__ import annotations

import operator
from collections.abc import Callable

import numpy as np
import torch
from torch.fx import GraphModule
from torch.fx import Node
from torchao.quantization.pt2e import quantize_pt2e  # noqa: F401  (registers the quantized_decomposed ops)

from compiler.aten_node import input_rank, origin_of
from compiler.errors import UnsupportedOpError
from compiler.ir import Graph, Op, Quant, Tensor
from compiler.ops import OP_TABLE
from compiler.ops.spec import Import
from compiler.pointwise import Collapsed, collapse

aten = torch.ops.aten
qd = torch.ops.quantized_decomposed

TORCH_DTYPES = {torch.int8: "int8", torch.int16: "int16", torch.int32: "int32", torch.float32: "float32"}
# Results PyTorch gives as int64 (indices, e.g. argmax's) are int32 on the device: no tensor a
# microcontroller holds has 2^31 elements. (Constants are converted apart, in import_program.)
RESULT_DTYPES = {**TORCH_DTYPES, torch.int64: "int32"}


def _value_tensor(name: str, node: Node) -> Tensor:
    val = node.meta["val"]
    if val.dtype not in RESULT_DTYPES:
        raise UnsupportedOpError(f"tensor of dtype {val.dtype}", origin_of(node))
    return Tensor(name, RESULT_DTYPES[val.dtype], tuple(val.shape))


def _reduce(node: Node, args: list) -> tuple[str, dict]:
    """mean / sum over dims (None or [] for all), keepdim or not."""
    rank = input_rank(node)
    dims = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim")
    dims = sorted({int(d) % max(rank, 1) for d in dims} if dims else range(rank))
    function = "mean" if node.target == aten.mean.dim else "sum"
    if node.meta["val"].dtype != node.args[0].meta["val"].dtype:
        raise UnsupportedOpError(f"{function} to {node.meta['val'].dtype}", origin_of(node),
                                 "Reduce in the input's dtype (no dtype= argument).")
    return "aten.reduce", {"function": function, "dims": dims}


# Importer-level imports, lowered by generic passes rather than an op of their own (mean and sum
# become average pools or fully connected rows: passes/lower_reductions.py).
REDUCTIONS = (Import((aten.mean.dim,), _reduce, "shared", int16=True), Import((aten.sum.dim_IntList,), _reduce, "own_scale"))
# Every ATen op Ember imports: the op records' (compiler/ops/) and the reductions.
IMPORTS: tuple[Import, ...] = (*(i for spec in OP_TABLE.values() for i in spec.imports), *REDUCTIONS)
# ATen op → its calibration of the ranges inside it (Import.calibrate; compiler/frontend.py runs them).
FIXED_BATCH = frozenset(target for i in IMPORTS if i.fixed_batch for target in i.targets)
CALIBRATORS = {target: i.calibrate for i in IMPORTS if i.calibrate is not None for target in i.targets}

# ATen / quantized_decomposed op → (the importer's kind, attrs). Inputs that are Python scalars
# are read into attrs by the entry itself; tensor inputs become op inputs in order.
IMPORTERS: dict[object, Callable[[Node, list], tuple[str, dict]]] = {
    target: i.read for i in IMPORTS if not i.float_only for target in i.targets}
# Ops with a float32 kernel only (sub, minimum and maximum have int8 lowerings in IMPORTERS, and
# fall back through float_binary's reader when an operand is a number or the quantizer leaves
# them in float).
FLOAT_IMPORTERS: dict[object, Callable[[Node, list], tuple[str, dict]]] = {
    target: i.read for i in IMPORTS if i.float_only for target in i.targets}


def _constant_values(module: GraphModule) -> dict[str, torch.Tensor]:
    """get_attr node name → value for every parameter, buffer and constant the graph reads."""
    from compiler.passes.graph_module import attr_value

    return {node.name: attr_value(module, node.target) for node in module.graph.nodes if node.op == "get_attr"}


def import_program(program: GraphModule, float_reason: Callable[[Node], str | None] | None = None) -> Graph:
    """Builds Ember IR from `program`'s graph (each node's value in meta["val"]). Raises UnsupportedOpError for an op that has
    neither an int8 nor a float32 kernel.

    Ops that stay in float carry attrs["float_reason"]: what `float_reason(node)` says (the
    quantizer's config, CortexMQuantizer.float_reason), or "no int8 lowering for <op>" for the
    float-only ops (FLOAT_IMPORTERS)."""
    graph = Graph(tensors={}, ops=[], inputs=[], outputs=[])
    constants = _constant_values(program)
    functions, inside = _pointwise_functions(program, constants, float_reason)
    items = _item_names(program)
    for node in program.graph.nodes:
        if node in inside:
            continue
        if node in functions:
            function = functions[node]
            graph.add_tensor(_value_tensor(node.name, node))
            graph.ops.append(Op("aten.pointwise", [function.source.name], [node.name],
                                {"function": function.function(constants), "name": function.describe()},
                                origin_of(node)))
        elif node.op == "placeholder":
            if isinstance(node.meta.get("val"), torch.Tensor):  # a Python number was folded at export
                graph.add_tensor(_value_tensor(node.name, node))
                graph.inputs.append(node.name)
        elif node.op == "get_attr":
            if node.users:
                value = constants[node.name].detach().cpu()
                if value.dtype not in TORCH_DTYPES:  # zero points are int64; used only as attrs
                    value = value.to(torch.int32) if not value.is_floating_point() else value.float()
                graph.add_tensor(Tensor(node.name, TORCH_DTYPES[value.dtype], tuple(value.shape),
                                        data=value.numpy()))
        elif node.op == "call_function" and node.target is operator.getitem and node.args[0] in items:
            continue  # an output of the op before it (_item_names)
        elif node.op == "call_function":
            importer = IMPORTERS.get(node.target) or FLOAT_IMPORTERS.get(node.target)
            if importer is None:
                raise UnsupportedOpError(str(node.target), origin_of(node), _hint(node.target))
            reason = float_reason(node) if float_reason is not None else None
            tensor_args = _tensor_args(node)
            kind, attrs = importer(node, tensor_args)
            if node.target not in IMPORTERS or kind == "aten.binary":  # float-only op, or against a number
                reason = reason or f"no int8 lowering for {node.target}" + (" of a number" if "scalar" in attrs else "")
            if reason is not None and kind not in ("quantize", "dequantize"):
                attrs["float_reason"] = reason
            outputs = items.get(node) or [(node.name, node)]
            for name, value in outputs:
                graph.add_tensor(_value_tensor(name, value))
            graph.ops.append(Op(kind, [a.name for a in tensor_args], [name for name, _ in outputs], attrs,
                                origin_of(node)))
        elif node.op == "output":
            graph.outputs = [a.name for a in node.args[0]]
    _attach_per_channel_params(graph)
    return graph


class _Item:
    """An output of a tuple-valued op that no getitem reads: its value, for _value_tensor."""

    def __init__(self, value: torch.Tensor) -> None:
        self.meta = {"val": value}


def _item_names(program: GraphModule) -> dict[Node, list[tuple[str, object]]]:
    """For each op whose value is a tuple of tensors (a GRU's y and h_n): its outputs in order, each
    (the name of the getitem that reads it, that node), or (node_<i>, its value) when none does."""
    found = {}
    for node in program.graph.nodes:
        value = node.meta.get("val")
        if node.op != "call_function" or not isinstance(value, (tuple, list)) or not value:
            continue
        if not all(isinstance(v, torch.Tensor) for v in value):
            continue
        getitems = {user.args[1]: user for user in node.users if user.target is operator.getitem}
        found[node] = [(getitems[i].name, getitems[i]) if i in getitems else (f"{node.name}_{i}", _Item(v))
                       for i, v in enumerate(value)]
    return found


def _pointwise_functions(program: GraphModule, constants: dict[str, torch.Tensor],
                         float_reason: Callable[[Node], str | None] | None) -> tuple[dict[Node, Collapsed], set[Node]]:
    """The pointwise functions of one dequantized tensor that a quantize reads (compiler/pointwise.py),
    by their last node, and the nodes inside them that nothing else reads (not imported)."""
    def is_constant(node: Node) -> bool:
        return node.op == "get_attr"

    def eligible(node: Node) -> bool:
        return float_reason is None or float_reason(node) is None

    functions = {}
    for node in program.graph.nodes:
        if node.op == "call_function" and node.target == qd.quantize_per_tensor.default and isinstance(node.args[0], Node):
            found = collapse(node.args[0], is_constant, eligible)
            if found is not None:
                functions[found.output] = found
    members = {member for function in functions.values() for member in function.members[:-1]}
    inside = set()
    for member in reversed(list(program.graph.nodes)):  # users before their inputs
        if member in members and all(user in inside or user in functions for user in member.users):
            inside.add(member)
    return functions, inside


def _attach_per_channel_params(graph: Graph) -> None:
    """Moves per-channel dequantize's scale / zero-point tensors into its attrs."""
    for op in graph.ops:
        if op.kind == "dequantize" and op.attrs.get("per_channel"):
            value, scale, zero_point = op.inputs
            op.attrs["quant"] = Quant(
                graph.tensors[scale].data.astype(np.float32).reshape(-1),
                graph.tensors[zero_point].data.astype(np.int32).reshape(-1),
                op.attrs["axis"],
                op.attrs.pop("quant_range", None),
            )
            op.inputs = [value]


NO_KERNEL_HINT = ("Ember has neither an int8 nor a float32 kernel for it: rewrite that line with supported ops "
                  "(README lists them).")
# Rewrites that exist for ops with no kernel, by ATen op name.
REWRITES = {
    "cumsum": "A running sum has no kernel: multiply by a constant triangular matrix instead "
              "(x @ torch.triu(torch.ones(n, n))), which lowers to an int8 fully connected layer.",
    "embedding": "A table lookup by index has no kernel: feed one-hot vectors to an nn.Linear instead.",
    "index_select": "Indexing by a tensor has no kernel: use slices (x[:, 2:5]) or torch.cat of slices.",
    "gather": "Indexing by a tensor has no kernel: use slices, or a matmul with a one-hot constant.",
    "argmin": "Return the scores and take the arg min in the application (one pass over int8 codes).",
    "topk": "Return the scores and pick the best ones in the application.",
    "sort": "Return the values and sort them in the application.",
    "upsample_bicubic2d": "Use mode='nearest' or mode='bilinear', which lower.",
    **{comparison: "A comparison lowers inside an elementwise function of one tensor (torch.where(x > 0, x, "
                   "0.1 * x)); a mask that compares two tensors has no kernel."
       for comparison in ("gt", "lt", "ge", "le", "eq", "ne")},
}


def _hint(target: object) -> str:
    packet = getattr(target, "overloadpacket", None)
    return REWRITES.get(getattr(packet, "__name__", ""), NO_KERNEL_HINT)


def unsupported_ops(module: GraphModule, tabulated: set[Node]) -> list[UnsupportedOpError]:
    """Every op of the float graph `module` (compiler/frontend.py export_float) that cannot be
    imported, each with the user's file, line and module path and a rewrite where one exists:
    ops with no importer (those in `tabulated`, pointwise functions of one tensor that become
    tables, need none), and ops whose importer refuses their arguments."""
    problems = []
    for node in module.graph.nodes:
        if node.op != "call_function" or node.target is operator.getitem or node in tabulated:
            continue
        importer = IMPORTERS.get(node.target) or FLOAT_IMPORTERS.get(node.target)
        if importer is None:
            problems.append(UnsupportedOpError(str(node.target), origin_of(node), _hint(node.target)))
            continue
        try:
            importer(node, _tensor_args(node))
        except UnsupportedOpError as error:
            problems.append(error)
    return problems


def _tensor_args(node: Node) -> list[Node]:
    """A node's tensor inputs in order, including those inside a list argument (cat)."""
    return [a for arg in node.args for a in (arg if isinstance(arg, (list, tuple)) else [arg]) if isinstance(a, Node)]


def imported_targets() -> list[object]:
    """Every ATen op the importer takes as it is (kept whole by compiler/decompositions.py)."""
    return [*IMPORTERS, *FLOAT_IMPORTERS]
