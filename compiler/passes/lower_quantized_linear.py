"""lower_quantized_linear: dequantize → linear (+ activation) → quantize becomes one integer
`fully_connected` op.

Ahead of time it computes, per output channel: the requantization multiplier and shift of
input_scale × weight_scale / output_scale, the bias with the input zero point folded in
(bias − zp_in · Σ_i w[o, i]), and the output clamp from the folded activation. A linear whose
input is an NHWC feature map flattened (an int8 `reshape`, see lower_quantized_reshape) reads the
map directly: its weight columns are reordered from PyTorch's (C, H, W) order to (H, W, C).
"""
from __future__ import annotations

import numpy as np

from compiler.errors import UnsupportedOpError
from compiler.ir import Graph, Op
from compiler.options import LoweringOptions
from compiler.layout import TO_NCHW
from compiler.quantized_pattern import add_constant, clamp_range, match, replace, weighted_constants


def _flattened_map(graph: Graph, tensor: str) -> tuple[str, tuple[int, int, int] | None] | None:
    """If `tensor` is an int8 reshape of a 4-D map into [N, C·H·W]: (the NHWC map, and its
    (C, H, W) when the weights must be reordered, None when the map's bytes are already in
    PyTorch's order — lower_quantized_reshape put no transpose before the reshape, or the model's
    own permute to NHWC cancelled it)."""
    op = graph.producer(tensor)
    if op is None or op.kind != "reshape":
        return None
    source, flat = graph.tensors[op.inputs[0]], graph.tensors[tensor]
    if len(flat.shape) != 2 or len(source.shape) != 4 or flat.shape[0] != source.shape[0]:
        return None
    to_nchw = graph.producer(source.name)
    if to_nchw is not None and to_nchw.kind == "transpose" and to_nchw.attrs["perm"] == list(TO_NCHW):
        n, h, w, c = graph.tensors[to_nchw.inputs[0]].shape
        return to_nchw.inputs[0], (c, h, w)
    return source.name, None


def _lower(graph: Graph, linear: Op) -> Op:
    matched = match(graph, linear, ("int8", "int8", "int32"), "linear")
    x, _ = matched.sources[0]
    constants = weighted_constants(matched, "linear")
    weights = constants.weights
    x_name = x.name
    flattened = _flattened_map(graph, x.name)
    if flattened is not None:
        x_name, chw = flattened
        if chw is not None:
            c, h, w = chw
            weights = weights.reshape(-1, c, h, w).transpose(0, 2, 3, 1).reshape(weights.shape[0], -1)
    elif len(x.shape) != 2:
        raise UnsupportedOpError(f"linear on a rank-{len(x.shape)} input {list(x.shape)}", linear.origin,
                                 "Flatten the input to [batch, features] first.")
    stem = linear.outputs[0]
    weight_name = add_constant(graph, f"{stem}_weights", "int8", weights, constants.weight_quant)
    bias_name = add_constant(graph, f"{stem}_bias", "int32", constants.folded_bias.astype(np.int32))
    act_min, act_max = clamp_range(linear.attrs.get("activation"), matched.out_quant)
    lowered = Op("fully_connected", [x_name, weight_name, bias_name], [matched.output], {
        "multiplier": constants.multiplier,
        "shift": constants.shift,
        "output_offset": int(matched.out_quant.zero_point[0]),
        "activation_min": act_min,
        "activation_max": act_max,
    }, linear.origin)
    replace(graph, matched, lowered)
    return lowered


def lower_quantized_linear(graph: Graph, options: LoweringOptions) -> Graph:
    for linear in [op for op in graph.ops if op.kind == "aten.linear"]:
        _lower(graph, linear)
    return graph
