"""lower_quantized_transpose_conv2d: dequantize → conv_transpose2d (+ activation) → quantize
becomes `transpose_conv2d`.

PyTorch's weights [C_IN, C_OUT, KH, KW] (output channels on axis 1) are laid out
[C_OUT, KH, KW, C_IN] for the kernel; the requantization is per output channel (per-tensor
weight scales are expanded to one entry per channel). The input zero point is NOT folded into the
bias: near the borders an output receives fewer taps than inside, so the kernel centres the input
(reference.transpose_conv2d_s8).
"""
from __future__ import annotations

import numpy as np

from compiler.ir import Graph, Op, Quant, Tensor
from compiler.options import LoweringOptions
from compiler.quantized_pattern import (QuantizedOp, add_constant, clamp_range, match, replace,
                                               weighted_constants)


def _output_channels_first(matched: QuantizedOp) -> QuantizedOp:
    """The same pattern with the weights as [C_OUT, C_IN, KH, KW] and their quantization on axis 0,
    the form weighted_constants reads."""
    x, (w, w_quant), *rest = matched.sources
    swapped = Tensor(w.name, w.dtype, (w.shape[1], w.shape[0], *w.shape[2:]), data=w.data.swapaxes(0, 1))
    # per tensor stays so; per output channel (axis 1) becomes axis 0; any other axis becomes one
    # weighted_constants refuses by name
    quant = Quant(w_quant.scale, w_quant.zero_point, {None: None, 1: 0}.get(w_quant.axis, -1))
    return QuantizedOp(matched.op, [x, (swapped, quant), *rest], matched.quantize, matched.out_quant)


def _lower(graph: Graph, conv: Op) -> None:
    matched = match(graph, conv, ("int8", "int8", "int32"), "conv_transpose2d")
    (x, x_quant) = matched.sources[0]
    constants = weighted_constants(_output_channels_first(matched), "conv_transpose2d")
    weights = constants.weights  # [C_OUT, C_IN, KH, KW]
    zp_in = int(x_quant.zero_point[0])
    bias = constants.folded_bias + zp_in * weights.reshape(weights.shape[0], -1).sum(axis=1, dtype=np.int64)
    stem = conv.outputs[0]
    weight_name = add_constant(graph, f"{stem}_weights", "int8", np.ascontiguousarray(weights.transpose(0, 2, 3, 1)),
                               constants.weight_quant)
    bias_name = add_constant(graph, f"{stem}_bias", "int32", bias.astype(np.int32))
    act_min, act_max = clamp_range(conv.attrs.get("activation"), matched.out_quant)
    replace(graph, matched, Op("transpose_conv2d", [x.name, weight_name, bias_name], [matched.output], {
        "stride": conv.attrs["stride"],
        "padding": conv.attrs["padding"],
        "input_offset": -zp_in,
        "output_offset": int(matched.out_quant.zero_point[0]),
        "activation_min": act_min,
        "activation_max": act_max,
        "multiplier": constants.multiplier,
        "shift": constants.shift,
    }, conv.origin))


def lower_quantized_transpose_conv2d(graph: Graph, options: LoweringOptions) -> Graph:
    for conv in [op for op in graph.ops if op.kind == "aten.conv_transpose2d"]:
        _lower(graph, conv)
    return graph
