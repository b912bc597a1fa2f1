"""lower_float_ops: every op that stays in float (attrs["float_reason"], set by the importer: left
in float by the quantizer's config, or no int8 lowering) becomes a float32 Ember op.

Runs after convert_to_nhwc and fold_activations, before the quantized lowerings, so those see
only quantized ops. The float op keeps its inputs: where one is a dequantize of an int8 tensor
(the int8 / float boundary PT2E leaves), that dequantize stays and becomes Ember's `dequantize`;
where its output feeds a quantize (the next op is int8), that quantize becomes Ember's `quantize`
(lower_boundaries). Weights are laid out as the float kernels read them (conv [O, KH, KW, I/g]);
constant operands of a broadcasting op on a 4-D map take the map's NHWC layout. A ReLU / ReLU6 /
hardtanh folded into the op (fold_activations) becomes its output clamp.

An op left in float for which no float32 kernel exists is a compile-time error naming it.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from compiler.errors import UnsupportedOpError
from compiler.ir import Graph, Op, Tensor
from compiler.options import LoweringOptions
from compiler.layout import ember_perm, reshaped
from compiler.passes.lower_reductions import float_reduction
from compiler.quantized_pattern import add_constant

# aten.elementwise ops by name → float_unary function
ELEMENTWISE_FUNCTIONS = {"aten.sigmoid.default": "sigmoid", "aten.tanh.default": "tanh",
                         "aten.hardswish.default": "hardswish", "aten.hardsigmoid.default": "hardsigmoid",
                         "aten.leaky_relu.default": "leaky_relu", "aten.gelu.default": "gelu",
                         "aten.silu.default": "silu"}
LEAKY_RELU_DEFAULT_SLOPE = 0.01


def _activation(op: Op) -> dict:
    low, high = op.attrs.get("activation", (-np.inf, np.inf))
    return {"activation_min": float(low), "activation_max": float(high)}


def _float_constant(graph: Graph, name: str, op: Op, what: str) -> np.ndarray:
    tensor = graph.tensors[name]
    if not tensor.is_constant or tensor.dtype != "float32":
        raise UnsupportedOpError(f"float {op.kind.removeprefix('aten.')} with non-constant {what}", op.origin,
                                 "Its weights must be constant float32 parameters.")
    return tensor.data


def _keep(op: Op, kind: str, inputs: list[str], attrs: dict) -> Op:
    return Op(kind, inputs, list(op.outputs), attrs | {"float_reason": op.attrs["float_reason"]}, op.origin)


def _bias(graph: Graph, op: Op, channels: int) -> str:
    if len(op.inputs) > 2:
        _float_constant(graph, op.inputs[2], op, "bias")
        return op.inputs[2]
    return add_constant(graph, f"{op.outputs[0]}_bias", "float32", np.zeros(channels, np.float32))


def _linear(graph: Graph, op: Op) -> Op:
    x, w = op.inputs[:2]
    weights = _float_constant(graph, w, op, "weights")
    rank = len(graph.tensors[x].shape)
    if rank not in (2, 3):  # a 4-D map is NHWC here: its last axis is no longer PyTorch's
        raise UnsupportedOpError(f"float linear on a rank-{rank} input", op.origin,
                                 "Give it [batch, features] or [batch, tokens, features], or quantize the layer.")
    return _keep(op, "float_fully_connected", [x, w, _bias(graph, op, weights.shape[0])], _activation(op))


def _conv2d(graph: Graph, op: Op) -> Op:
    weights = _float_constant(graph, op.inputs[1], op, "weights")  # [O, I/g, KH, KW]
    laid_out = add_constant(graph, f"{op.outputs[0]}_weights", "float32",
                            np.ascontiguousarray(weights.transpose(0, 2, 3, 1)))
    attrs = {k: op.attrs[k] for k in ("stride", "dilation", "padding", "groups")}
    return _keep(op, "float_conv2d", [op.inputs[0], laid_out, _bias(graph, op, weights.shape[0])],
                 attrs | _activation(op))


def _nhwc_operand(graph: Graph, op: Op, name: str, out_rank: int) -> str:
    """A constant operand broadcast against a 4-D map, in the map's NHWC layout."""
    tensor = graph.tensors[name]
    if out_rank != 4 or tensor.data is None and len(tensor.shape) == 4:
        return name
    if tensor.data is None:
        raise UnsupportedOpError(f"float {op.attrs.get('function', op.kind)} of a rank-{len(tensor.shape)} tensor "
                                 "and a 4-D feature map", op.origin, "Give both operands 4 dimensions.")
    nchw = tensor.data.reshape((1,) * (4 - tensor.data.ndim) + tensor.data.shape)
    return add_constant(graph, f"{name}_nhwc", "float32", np.ascontiguousarray(nchw.transpose(0, 2, 3, 1)))


def _binary(graph: Graph, op: Op) -> Op | list[Op]:
    function = {"aten.add": "add", "aten.mul": "mul", "aten.sub": "sub", "aten.minimum": "minimum",
                "aten.maximum": "maximum"}.get(op.kind) or op.attrs["function"]
    inputs = list(op.inputs)
    if "alpha" in op.attrs:  # a ± alpha·b: b scaled first
        b = graph.tensors[inputs[1]]
        scaled = graph.add_tensor(Tensor(graph.unique_name(f"{b.name}_alpha"), "float32", b.shape))
        alpha = Op("aten.binary", [b.name], [scaled.name], {"function": "mul", "scalar": op.attrs["alpha"],
                                                       "scalar_index": 1, "float_reason": op.attrs["float_reason"]},
                   op.origin)
        rest = Op(op.kind, [inputs[0], scaled.name], op.outputs,
                  {k: v for k, v in op.attrs.items() if k != "alpha"}, op.origin)
        return [_binary(graph, alpha), _binary(graph, rest)]
    if "scalar" in op.attrs:
        scalar = add_constant(graph, f"{op.outputs[0]}_scalar", "float32", np.array([op.attrs["scalar"]], np.float32))
        inputs.insert(op.attrs["scalar_index"], scalar)
    out_rank = len(graph.tensors[op.outputs[0]].shape)
    inputs = [_nhwc_operand(graph, op, name, out_rank) for name in inputs]
    return _keep(op, "float_binary", inputs, {"function": function} | _activation(op))


def _clamp(graph: Graph, op: Op) -> Op:
    return _keep(op, "float_unary", op.inputs, {"function": "clamp", "min": op.attrs["min"], "max": op.attrs["max"]})


def _elementwise(graph: Graph, op: Op) -> Op:
    name = op.attrs["name"]
    function = ELEMENTWISE_FUNCTIONS[name]
    args, kwargs = op.attrs.get("args", ()), op.attrs.get("kwargs", {})
    attrs = {"function": function}
    if function == "leaky_relu":
        attrs["alpha"] = float(args[0] if args else kwargs.get("negative_slope", LEAKY_RELU_DEFAULT_SLOPE))
    if function == "gelu" and (args[0] if args else kwargs.get("approximate", "none")) == "tanh":
        attrs["function"] = "gelu_tanh"
    return _keep(op, "float_unary", op.inputs, attrs)


def _unary(graph: Graph, op: Op) -> Op:
    return _keep(op, "float_unary", op.inputs, {"function": op.attrs["function"]})


def _softmax(graph: Graph, op: Op) -> Op:
    return _keep(op, "float_softmax", op.inputs, {})


def _layer_norm(graph: Graph, op: Op) -> Op:
    x = graph.tensors[op.inputs[0]]
    (depth,) = op.attrs["normalized_shape"] if len(op.attrs["normalized_shape"]) == 1 else (None,)
    if depth is None or len(x.shape) > 3 or x.shape[-1] != depth:
        raise UnsupportedOpError(f"float layer_norm over {op.attrs['normalized_shape']} of a {list(x.shape)} tensor",
                                 op.origin, "Layer norm runs over the last axis of a tensor of rank <= 3.")
    given = iter(op.inputs[1:])
    weight, bias = (next(given) if present else None for present in op.attrs["affine"])
    stem = op.outputs[0]
    weight = weight or add_constant(graph, f"{stem}_weight", "float32", np.ones(depth, np.float32))
    bias = bias or add_constant(graph, f"{stem}_bias", "float32", np.zeros(depth, np.float32))
    return _keep(op, "float_layer_norm", [x.name, weight, bias], {"epsilon": np.float32(op.attrs["eps"])})


def _pool(graph: Graph, op: Op) -> Op:
    attrs = {k: op.attrs[k] for k in ("kernel", "stride", "padding")}
    if op.kind == "aten.avg_pool2d":
        return _keep(op, "float_avg_pool2d", op.inputs, attrs | {"count_include_pad": op.attrs["count_include_pad"]})
    return _keep(op, "float_max_pool2d", op.inputs, attrs)


def _reshape(graph: Graph, op: Op) -> list[Op]:
    """A reshape between float ops (the data-movement kernels take any dtype)."""
    return [Op(o.kind, o.inputs, o.outputs, o.attrs | {"float_reason": op.attrs["float_reason"]}, o.origin)
            for o in reshaped(graph, op.inputs[0], op.outputs[0], op.origin)]


def _permute(graph: Graph, op: Op) -> Op:
    return _keep(op, "transpose", op.inputs, {"perm": ember_perm(op.attrs["perm"])})


# Imported kind → its float32 lowering: one op, or the ops from the input to the output in order.
FLOAT_LOWERINGS: dict[str, Callable[[Graph, Op], Op | list[Op]]] = {
    "aten.linear": _linear,
    "aten.conv2d": _conv2d,
    "aten.add": _binary,
    "aten.mul": _binary,
    "aten.sub": _binary,
    "aten.minimum": _binary,
    "aten.maximum": _binary,
    "aten.binary": _binary,
    "aten.clamp": _clamp,
    "aten.elementwise": _elementwise,
    "aten.unary": _unary,
    "aten.softmax": _softmax,
    "aten.layer_norm": _layer_norm,
    "aten.max_pool2d": _pool,
    "aten.avg_pool2d": _pool,
    "aten.reduce": float_reduction,
    "aten.reshape": _reshape,
    "aten.permute": _permute,
}


def lower_float_ops(graph: Graph, options: LoweringOptions) -> Graph:
    for op in [op for op in graph.ops if "float_reason" in op.attrs]:
        lowering = FLOAT_LOWERINGS.get(op.kind)
        if lowering is None:
            raise UnsupportedOpError(f"{op.kind.removeprefix('aten.')} in float ({op.attrs['float_reason']})",
                                     op.origin, "Ember has no float32 kernel for it: quantize it (remove it "
                                     "from CortexMQuantizer's skip options).")
        for name in op.inputs:
            if graph.tensors[name].dtype != "float32":
                raise UnsupportedOpError(f"float {op.kind.removeprefix('aten.')} on a {graph.tensors[name].dtype} "
                                         "tensor", op.origin)
        lowered = lowering(graph, op)
        index = graph.ops.index(op)
        graph.ops[index:index + 1] = lowered if isinstance(lowered, list) else [lowered]
    return graph
