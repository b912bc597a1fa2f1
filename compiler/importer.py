"""Imports PyTorch's converted quantized model (a GraphModule, compiler/frontend.py
`importable`) into Ember IR, one table entry per ATen op.

The result still mirrors PyTorch: float `linear`, `relu`, `clamp`, and explicit `quantize` /
`dequantize` ops. Lowering passes turn it into integer Ember ops.
"""
from __future__ import annotations

import operator
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
from torch.fx import GraphModule
from torch.fx import Node
from torchao.quantization.pt2e import quantize_pt2e  # noqa: F401  (registers the quantized_decomposed ops)

from compiler.decompositions import ceil_overhang
from compiler.errors import UnsupportedOpError
from compiler.ir import Graph, Op, Quant, Tensor
from compiler.pointwise import Collapsed, collapse

aten = torch.ops.aten
qd = torch.ops.quantized_decomposed

TORCH_DTYPES = {torch.int8: "int8", torch.int32: "int32", torch.float32: "float32"}

_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


def origin_of(node: Node) -> str:
    """Where `node` comes from in the user's model: the submodule ('net.3 (Linear)') and the
    innermost frame of the user's own code ('model.py:42'), whichever are known."""
    frames = _FRAME.findall(node.meta.get("stack_trace") or "")
    user = [(f, n) for f, n in frames if "/torch/" not in f and "/torchao/" not in f]
    stack = list((node.meta.get("nn_module_stack") or {}).values())
    parts = []
    if stack and stack[-1][0]:
        module_type = stack[-1][1]
        type_name = module_type.__name__ if isinstance(module_type, type) else str(module_type).rsplit(".", 1)[-1]
        parts.append(f"{stack[-1][0]} ({type_name})")
    if user:
        parts.append(f"{_readable_path(user[-1][0])}:{user[-1][1]}")
    return " at ".join(parts)


def _readable_path(path: str) -> str:
    """Relative to the working directory when below it, so programs do not depend on where the
    checkout lives."""
    here = Path.cwd()
    return str(Path(path).relative_to(here)) if Path(path).is_relative_to(here) else path


def _value_tensor(name: str, node: Node) -> Tensor:
    val = node.meta["val"]
    if val.dtype not in TORCH_DTYPES:
        raise UnsupportedOpError(f"tensor of dtype {val.dtype}", origin_of(node))
    return Tensor(name, TORCH_DTYPES[val.dtype], tuple(val.shape))


def _quantize(node: Node, args: list) -> tuple[str, dict]:
    _, scale, zero_point, qmin, qmax, dtype = node.args
    if (qmin, qmax, dtype) != (-128, 127, torch.int8):
        raise UnsupportedOpError(f"quantize to {dtype} [{qmin}, {qmax}]", origin_of(node),
                                 "Ember activations are int8 in -128..127 (CortexMQuantizer).")
    return "quantize", {"quant": Quant.per_tensor(scale, zero_point)}


def _dequantize(node: Node, args: list) -> tuple[str, dict]:
    _, scale, zero_point, *_ = node.args
    return "dequantize", {"quant": Quant.per_tensor(scale, zero_point)}


def _dequantize_per_channel(node: Node, args: list) -> tuple[str, dict]:
    return "dequantize", {"per_channel": True, "axis": int(node.args[3])}


def _linear(node: Node, args: list) -> tuple[str, dict]:
    return "aten.linear", {}


def _relu(node: Node, args: list) -> tuple[str, dict]:
    return "aten.clamp", {"min": 0.0, "max": float("inf")}


def _args(node: Node, defaults: tuple) -> list:
    """node.args after the input, completed with aten's defaults."""
    given = list(node.args[1:])
    return given + list(defaults[len(given):])


def _pair(value) -> tuple[int, int]:
    values = [int(v) for v in (value if isinstance(value, (list, tuple)) else [value])]
    return (values[0], values[-1])


def _conv2d(node: Node, args: list) -> tuple[str, dict]:
    _, _, stride, padding, dilation, groups = _args(node, (None, None, [1, 1], [0, 0], [1, 1], 1))
    if isinstance(padding, str):
        raise UnsupportedOpError(f"conv2d with padding={padding!r}", origin_of(node), "Give the padding in numbers.")
    (ph, pw) = _pair(padding)
    return "aten.conv2d", {"stride": _pair(stride), "padding": (ph, ph, pw, pw), "dilation": _pair(dilation),
                           "groups": int(groups)}


def _pool_padding(node: Node, kernel, stride, padding, ceil_mode: bool) -> tuple[int, int, int, int]:
    """(top, bottom, left, right): PyTorch's symmetric padding, plus at the bottom and right the
    cells ceil_mode's last windows run over (they count no cell: Ember's pools count and take only
    real cells and padding)."""
    (h, w), (kh, kw), (sh, sw), (ph, pw) = node.args[0].meta["val"].shape[-2:], kernel, stride, padding
    eh, ew = (ceil_overhang(h, kh, sh, ph), ceil_overhang(w, kw, sw, pw)) if ceil_mode else (0, 0)
    if ph + eh >= kh or pw + ew >= kw:
        raise UnsupportedOpError(f"{node.target} with ceil_mode, kernel {[kh, kw]}, stride {[sh, sw]}, padding "
                                 f"{[ph, pw]}", origin_of(node), "Pad the input explicitly (F.pad) instead.")
    return (ph, ph + eh, pw, pw + ew)


def _max_pool2d(node: Node, args: list) -> tuple[str, dict]:
    kernel, stride, padding, dilation, ceil_mode = _args(node, (None, [], 0, 1, False))
    if _pair(dilation) != (1, 1):
        raise UnsupportedOpError(f"max_pool2d with dilation {list(_pair(dilation))}", origin_of(node),
                                 "Ember's max pool takes dilation=1.")
    kernel, stride = _pair(kernel), _pair(stride or kernel)
    return "aten.max_pool2d", {"kernel": kernel, "stride": stride,
                               "padding": _pool_padding(node, kernel, stride, _pair(padding), ceil_mode)}


def _avg_pool2d(node: Node, args: list) -> tuple[str, dict]:
    """avg_pool2d; with ceil_mode, the cells its last windows run past the padding are not
    counted, which Ember's count_include_pad=False says exactly where the padding is 0."""
    kernel, stride, padding, ceil_mode, count_include_pad, divisor = _args(node, (None, [], 0, False, True, None))
    kernel, stride, padding = _pair(kernel), _pair(stride or kernel), _pair(padding)
    pads = _pool_padding(node, kernel, stride, padding, ceil_mode)
    overhang = pads != (padding[0], padding[0], padding[1], padding[1])
    if overhang and count_include_pad and any(padding):
        raise UnsupportedOpError("avg_pool2d with ceil_mode, padding and count_include_pad=True", origin_of(node),
                                 "Give count_include_pad=False, or pad the input explicitly (F.pad) instead.")
    if divisor is not None:  # compiler/decompositions.py rewrites these; one reaching here is a bug
        raise UnsupportedOpError("avg_pool2d with divisor_override", origin_of(node))
    return "aten.avg_pool2d", {"kernel": kernel, "stride": stride, "padding": pads,
                               "count_include_pad": bool(count_include_pad) and not overhang}


def _adaptive_average(node: Node, args: list) -> tuple[str, dict]:
    """adaptive_avg_pool2d to an output size that divides the input's: one average pool whose
    window and stride are the ratio (a global average for 1×1)."""
    n, c, h, w = node.args[0].meta["val"].shape
    oh, ow = _pair(node.args[1])
    oh, ow = oh or h, ow or w  # None keeps the input's size
    if h % oh or w % ow:
        raise UnsupportedOpError(f"adaptive_avg_pool2d of {h}x{w} to {oh}x{ow}", origin_of(node),
                                 "Only output sizes that divide the input size lower (e.g. 1x1, or 8x8 to 2x2).")
    return "aten.avg_pool2d", {"kernel": (int(h // oh), int(w // ow)), "stride": (int(h // oh), int(w // ow)),
                               "padding": (0, 0, 0, 0), "count_include_pad": True}


def _reduce(node: Node, args: list) -> tuple[str, dict]:
    """mean / sum over dims (None or [] for all), keepdim or not."""
    rank = _rank(node)
    dims = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim")
    dims = sorted({int(d) % max(rank, 1) for d in dims} if dims else range(rank))
    function = "mean" if node.target == aten.mean.dim else "sum"
    if node.meta["val"].dtype != node.args[0].meta["val"].dtype:
        raise UnsupportedOpError(f"{function} to {node.meta['val'].dtype}", origin_of(node),
                                 "Reduce in the input's dtype (no dtype= argument).")
    return "aten.reduce", {"function": function, "dims": dims}


def _alpha(node: Node) -> dict:
    """add / sub's `alpha` (b's factor), where it is not 1."""
    alpha = float(node.kwargs.get("alpha", 1))
    return {} if alpha == 1 else {"alpha": alpha}


def _add(node: Node, args: list) -> tuple[str, dict]:
    return ("aten.add", _alpha(node)) if len(args) == 2 else _binary(node, args)


def _mul(node: Node, args: list) -> tuple[str, dict]:
    return ("aten.mul", {}) if len(args) == 2 else _binary(node, args)


def _sub(node: Node, args: list) -> tuple[str, dict]:
    return ("aten.sub", _alpha(node)) if len(args) == 2 else _binary(node, args)


def _min_max(node: Node, args: list) -> tuple[str, dict]:
    name = "minimum" if node.target == aten.minimum.default else "maximum"
    return (f"aten.{name}", {}) if len(args) == 2 else _binary(node, args)


def _conv_transpose2d(node: Node, args: list) -> tuple[str, dict]:
    _, _, stride, padding, output_padding, groups, dilation = _args(
        node, (None, None, [1, 1], [0, 0], [0, 0], 1, [1, 1]))
    if int(groups) != 1 or _pair(dilation) != (1, 1):
        raise UnsupportedOpError(f"conv_transpose2d with groups={groups}, dilation={list(_pair(dilation))}",
                                 origin_of(node), "Ember's transposed convolution takes groups=1 and dilation=1.")
    (ph, pw), (oh, ow) = _pair(padding), _pair(output_padding)
    # PyTorch crops `padding` from both ends of the full output and adds `output_padding` at the
    # end: Ember's (top, bottom, left, right) crops, negative where rows are added.
    return "aten.conv_transpose2d", {"stride": _pair(stride), "padding": (ph, ph - oh, pw, pw - ow)}


def _matmul(node: Node, args: list) -> tuple[str, dict]:
    """bmm / matmul of two [B, M, K] × [B, K, N] (or 2-D) activations, or of an activation
    [M, K] and a constant [K, N]; no broadcasting of batch dimensions."""
    a, b = (arg.meta["val"] for arg in node.args[:2])
    same_batches = a.dim() == b.dim() and a.shape[:-2] == b.shape[:-2]
    if a.dim() not in (2, 3) or b.dim() not in (2, 3) or not (same_batches or (a.dim() == 2 and b.dim() == 2)):
        raise UnsupportedOpError(f"matmul of shapes {list(a.shape)} × {list(b.shape)}", origin_of(node),
                                 "Ember lowers [B, M, K] × [B, K, N] and [M, K] × [K, N]; reshape other "
                                 "ranks (e.g. attention's 4-D maps) to 3-D first.")
    return "aten.matmul", {}


def _cat(node: Node, args: list) -> tuple[str, dict]:
    dim = node.args[1] if len(node.args) > 1 else 0
    rank = node.args[0][0].meta["val"].dim()
    return "aten.cat", {"dim": int(dim) % rank, "rank": rank}


def _reshape(node: Node, args: list) -> tuple[str, dict]:
    return "aten.reshape", {}


def _rank(node: Node) -> int:
    return node.args[0].meta["val"].dim()


def _dim_size(node: Node, dim: int) -> int:
    return int(node.args[0].meta["val"].shape[dim])


def _permute(node: Node, args: list) -> tuple[str, dict]:
    rank = _rank(node)
    return "aten.permute", {"perm": [int(d) % rank for d in node.args[1]]}


def _transpose(node: Node, args: list) -> tuple[str, dict]:
    rank = _rank(node)
    perm = list(range(rank))
    if node.target == aten.t.default:
        perm.reverse()
    else:
        a, b = int(node.args[1]) % rank, int(node.args[2]) % rank
        perm[a], perm[b] = perm[b], perm[a]
    return "aten.permute", {"perm": perm}


def _slice(node: Node, args: list) -> tuple[str, dict]:
    """slice / narrow / select as (PyTorch dim, first index, step); select also drops the dim."""
    dim = int(node.args[1] if len(node.args) > 1 else node.kwargs.get("dim", 0)) % _rank(node)
    size = _dim_size(node, dim)
    if node.target == aten.slice.Tensor:
        start, _, step = _args(node, (0, None, None, 1))[1:]
        start = 0 if start is None else int(start)
        start = min(max(start + size if start < 0 else start, 0), size)
        return "aten.slice", {"dim": dim, "start": start, "step": int(step), "squeeze": False}
    start = int(node.args[2])
    start = start + size if start < 0 else start
    return "aten.slice", {"dim": dim, "start": start, "step": 1, "squeeze": node.target == aten.select.int}


def _pad(node: Node, args: list) -> tuple[str, dict]:
    if node.target == aten.constant_pad_nd.default:
        pad, value = _args(node, (None, 0.0))
    else:
        pad, mode, value = _args(node, (None, "constant", None))
        if mode != "constant":
            raise UnsupportedOpError(f"pad with mode {mode!r}", origin_of(node),
                                     "Only constant padding lowers in this release (F.pad(..., mode='constant')).")
    if any(int(p) < 0 for p in pad):
        raise UnsupportedOpError(f"pad by negative amounts {list(pad)}", origin_of(node),
                                 "Crop with slicing instead.")
    return "aten.pad", {"pad": [int(p) for p in pad], "value": float(value or 0.0)}


def _upsample_nearest(node: Node, args: list) -> tuple[str, dict]:
    """Nearest upsampling by integer factors along H and W."""
    (_, _, h, w), (_, _, oh, ow) = node.args[0].meta["val"].shape, node.meta["val"].shape
    given = node.args[2] if node.target == aten.upsample_nearest2d.vec and len(node.args) > 2 else None
    exact = oh % h == 0 and ow % w == 0 and (given is None or [float(f) for f in given] == [oh // h, ow // w])
    if not exact:
        raise UnsupportedOpError(f"nearest upsampling of {h}x{w} to {oh}x{ow}", origin_of(node),
                                 "Only integer scale factors lower (e.g. scale_factor=2).")
    return "aten.upsample_nearest", {"scale_h": int(oh // h), "scale_w": int(ow // w)}


def _unsupported_resize(node: Node, args: list) -> tuple[str, dict]:
    raise UnsupportedOpError(str(node.target), origin_of(node),
                             "Only nearest upsampling by integer factors lowers (mode='nearest').")


def _elementwise(node: Node, args: list) -> tuple[str, dict]:
    """A float activation, kept as the ATen call itself so a table of it computes exactly what
    PyTorch's quantized model computes."""
    target, extra, kwargs = node.target, tuple(node.args[1:]), dict(node.kwargs)
    return "aten.elementwise", {"name": str(target), "function": lambda x: target(x, *extra, **kwargs),
                                "args": extra, "kwargs": kwargs}


def _softmax(node: Node, args: list) -> tuple[str, dict]:
    """Softmax over the last axis in Ember's layout: the last axis of a 2-D or 3-D tensor, or the
    channels (dim 1) of a 4-D map, which NHWC puts last."""
    rank = node.args[0].meta["val"].dim()
    dim = int(node.args[1]) % rank
    if not (dim == rank - 1 and rank in (1, 2, 3)) and not (rank == 4 and dim == 1):
        raise UnsupportedOpError(f"softmax over dim {node.args[1]} of a rank-{rank} tensor", origin_of(node),
                                 "Softmax lowers over the last axis (or the channels of a 4-D map).")
    return "aten.softmax", {}


HARDTANH_DEFAULTS = (-1.0, 1.0)  # aten.hardtanh(input, min_val=-1, max_val=1)


def _hardtanh(node: Node, args: list) -> tuple[str, dict]:
    low, high = (*node.args[1:3], *HARDTANH_DEFAULTS[len(node.args) - 1:])
    return "aten.clamp", {"min": float(low), "max": float(high)}


# Float-only ops: no int8 lowering, float32 kernels (compiler/passes/lower_float_ops.py).
BINARY_FUNCTIONS = {aten.add.Tensor: "add", aten.sub.Tensor: "sub", aten.mul.Tensor: "mul", aten.div.Tensor: "div",
                    aten.minimum.default: "minimum", aten.maximum.default: "maximum"}
UNARY_FUNCTIONS = {aten.exp.default: "exp", aten.log.default: "log", aten.sqrt.default: "sqrt",
                   aten.rsqrt.default: "rsqrt", aten.abs.default: "abs", aten.neg.default: "neg"}


def _binary(node: Node, args: list) -> tuple[str, dict]:
    """A float elementwise op of two tensors, or of a tensor and a Python number (kept in attrs
    as `scalar`, at operand position `scalar_index`)."""
    if node.kwargs.get("alpha", 1) != 1 or node.kwargs.get("rounding_mode") is not None:
        raise UnsupportedOpError(f"{node.target} with {dict(node.kwargs)}", origin_of(node),
                                 "Only the plain elementwise form has a float kernel.")
    attrs = {"function": BINARY_FUNCTIONS[node.target]}
    scalars = [(i, a) for i, a in enumerate(node.args[:2]) if not isinstance(a, Node)]
    if scalars:
        (index, value), = scalars
        attrs |= {"scalar": float(value), "scalar_index": index}
    return "aten.binary", attrs


def _unary(node: Node, args: list) -> tuple[str, dict]:
    return "aten.unary", {"function": UNARY_FUNCTIONS[node.target]}


def _layer_norm(node: Node, args: list) -> tuple[str, dict]:
    normalized_shape = [int(d) for d in node.args[1]]
    eps = node.args[4] if len(node.args) > 4 else node.kwargs.get("eps", 1e-5)
    return "aten.layer_norm", {"normalized_shape": normalized_shape, "eps": float(eps),
                               "affine": [len(node.args) > i and node.args[i] is not None for i in (2, 3)]}


# Ops with a float32 kernel only (sub, minimum and maximum have int8 lowerings in IMPORTERS, and
# fall back through _binary when an operand is a number or the quantizer leaves them in float).
FLOAT_IMPORTERS: dict[object, Callable[[Node, list], tuple[str, dict]]] = {
    aten.div.Tensor: _binary,
    **{target: _unary for target in UNARY_FUNCTIONS},
    aten.layer_norm.default: _layer_norm,
}


# ATen / quantized_decomposed op → (Ember IR kind, attrs). Inputs that are Python scalars are
# read into attrs by the entry itself; tensor inputs become op inputs in order.
IMPORTERS: dict[object, Callable[[Node, list], tuple[str, dict]]] = {
    qd.quantize_per_tensor.default: _quantize,
    qd.dequantize_per_tensor.default: _dequantize,
    qd.dequantize_per_channel.default: _dequantize_per_channel,
    aten.linear.default: _linear,
    aten.conv2d.default: _conv2d,
    aten.max_pool2d.default: _max_pool2d,
    aten.avg_pool2d.default: _avg_pool2d,
    aten.adaptive_avg_pool2d.default: _adaptive_average,
    aten.mean.dim: _reduce,
    aten.sum.dim_IntList: _reduce,
    aten.add.Tensor: _add,
    aten.mul.Tensor: _mul,
    aten.sub.Tensor: _sub,
    aten.minimum.default: _min_max,
    aten.maximum.default: _min_max,
    aten.conv_transpose2d.input: _conv_transpose2d,
    aten.matmul.default: _matmul,
    aten.bmm.default: _matmul,
    aten.cat.default: _cat,
    aten.softmax.int: _softmax,
    aten._softmax.default: _softmax,
    aten.sigmoid.default: _elementwise,
    aten.tanh.default: _elementwise,
    aten.hardswish.default: _elementwise,
    aten.hardsigmoid.default: _elementwise,
    aten.leaky_relu.default: _elementwise,
    aten.gelu.default: _elementwise,
    aten.silu.default: _elementwise,
    aten.flatten.using_ints: _reshape,
    aten.view.default: _reshape,
    aten.reshape.default: _reshape,
    aten.relu.default: _relu,
    aten.permute.default: _permute,
    aten.transpose.int: _transpose,
    aten.t.default: _transpose,
    aten.slice.Tensor: _slice,
    aten.narrow.default: _slice,
    aten.select.int: _slice,
    aten.pad.default: _pad,
    aten.constant_pad_nd.default: _pad,
    aten.upsample_nearest2d.vec: _upsample_nearest,
    aten.upsample_nearest2d.default: _upsample_nearest,
    aten.upsample_bicubic2d.vec: _unsupported_resize,
    aten.squeeze.dim: _reshape,
    aten.squeeze.dims: _reshape,
    aten.squeeze.default: _reshape,
    aten.unsqueeze.default: _reshape,
    aten.relu_.default: _relu,
    aten.hardtanh.default: _hardtanh,
    aten.hardtanh_.default: _hardtanh,
}


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
            graph.add_tensor(_value_tensor(node.name, node))
            graph.ops.append(Op(kind, [a.name for a in tensor_args], [node.name], attrs, origin_of(node)))
        elif node.op == "output":
            graph.outputs = [a.name for a in node.args[0]]
    _attach_per_channel_params(graph)
    return graph


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
    "argmax": "Return the scores and take the arg max in the application (one pass over int8 codes).",
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
