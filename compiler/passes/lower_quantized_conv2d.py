"""lower_quantized_conv2d: dequantize → conv2d (+ activation) → quantize becomes `conv2d`, or
`depthwise_conv2d` when every input channel is its own group.

Weights are laid out for the kernels ahead of time (PyTorch's [O, I/g, KH, KW] becomes
[O, KH, KW, I/g]; depthwise [C·M, 1, KH, KW] becomes [KH, KW, C·M]); the bias folds in the input
zero point and padding cells hold it (see reference.conv2d_s8), so the kernels never subtract it.
"""
from __future__ import annotations

import numpy as np

from compiler.ir import Graph, Op
from compiler.options import LoweringOptions
from compiler.quantized_pattern import add_constant, clamp_range, match, replace, weighted_constants


def _lower(graph: Graph, conv: Op) -> None:
    matched = match(graph, conv, ("int8", "int8", "int32"), "conv2d")
    (x, x_quant) = matched.sources[0]
    constants = weighted_constants(matched, "conv2d")
    weights = constants.weights  # [O, I/g, KH, KW]
    channels_in = x.shape[3]
    groups = conv.attrs["groups"]
    depthwise = groups == channels_in and groups > 1 and weights.shape[1] == 1
    if depthwise:
        laid_out, kind = weights[:, 0].transpose(1, 2, 0), "depthwise_conv2d"  # [KH, KW, C·M]
    else:
        laid_out, kind = weights.transpose(0, 2, 3, 1), "conv2d"  # [O, KH, KW, I/g]
    stem = conv.outputs[0]
    weight_name = add_constant(graph, f"{stem}_weights", "int8", np.ascontiguousarray(laid_out), constants.weight_quant)
    bias_name = add_constant(graph, f"{stem}_bias", "int32", constants.folded_bias.astype(np.int32))
    act_min, act_max = clamp_range(conv.attrs.get("activation"), matched.out_quant)
    lowered = Op(kind, [x.name, weight_name, bias_name], [matched.output], {
        "stride": conv.attrs["stride"],
        "dilation": conv.attrs["dilation"],
        "padding": conv.attrs["padding"],
        "groups": 1 if depthwise else groups,
        "depth_multiplier": weights.shape[0] // channels_in if depthwise else 1,
        "input_zero_point": int(x_quant.zero_point[0]),
        "output_offset": int(matched.out_quant.zero_point[0]),
        "activation_min": act_min,
        "activation_max": act_max,
        "multiplier": constants.multiplier,
        "shift": constants.shift,
    }, conv.origin)
    replace(graph, matched, lowered)


def lower_quantized_conv2d(graph: Graph, options: LoweringOptions) -> Graph:
    for conv in [op for op in graph.ops if op.kind == "aten.conv2d"]:
        _lower(graph, conv)
    return graph
