"""lower_quantized_linear: dequantize → linear (+ activation) → quantize becomes one integer
`fully_connected` op.

Ahead of time it computes, per output channel: the requantization multiplier and shift of
input_scale × weight_scale / output_scale, the bias with the input zero point folded in
(bias − zp_in · Σ_i w[o, i]), and the output clamp from the folded activation.
"""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.errors import UnsupportedOpError
from compiler.fixedpoint import quantize_multiplier
from compiler.ir import Graph, Op, Quant, Tensor
from compiler.options import LoweringOptions


def _clamp_range(activation: tuple[float, float] | None, quant: Quant) -> tuple[int, int]:
    """int8 range the float activation range maps to: the bounds quantized exactly as PyTorch
    quantizes the clamped float value (float32, ties to even), so the integer clamp agrees."""
    if activation is None:
        return -128, 127
    inv_scale = np.float32(1.0 / float(quant.scale[0]))
    low, high = reference.quantize_f32_s8(np.array(activation, np.float32), inv_scale, int(quant.zero_point[0]))
    return int(low), int(high)


def _bias_in_accumulator_units(bias: tuple[Tensor, Quant] | None, accumulator_scale: np.ndarray) -> np.ndarray:
    """The int32 bias on the accumulator's scale (input scale × weight scale per channel).

    PT2E derives the bias scale from the input and weight observers, so it normally equals the
    accumulator scale already; a layer called twice shares one bias quantized for its first
    input, and there the bias is requantized to each call's own accumulator scale.
    """
    out_features = len(accumulator_scale)
    if bias is None:
        return np.zeros(out_features, np.int64)
    tensor, quant = bias
    values = tensor.data.astype(np.int64)
    scale = np.broadcast_to(quant.scale.astype(np.float64), (out_features,))
    if np.allclose(scale, accumulator_scale, rtol=1e-6, atol=0.0):
        return values
    return np.round(values * scale / accumulator_scale).astype(np.int64)


def _dequantized_source(graph: Graph, tensor: str, dtype: str) -> tuple[Tensor, Quant] | None:
    """The `dtype` tensor and its quantization, if `tensor` is a dequantize of one."""
    op = graph.producer(tensor)
    if op is None or op.kind != "dequantize":
        return None
    source = graph.tensors[op.inputs[0]]
    return (source, op.attrs["quant"]) if source.dtype == dtype else None


def _lower(graph: Graph, linear: Op) -> Op:
    x_name, w_name, *rest = linear.inputs
    x = _dequantized_source(graph, x_name, "int8")
    w = _dequantized_source(graph, w_name, "int8")
    b = _dequantized_source(graph, rest[0], "int32") if rest else None
    consumers = graph.consumers(linear.outputs[0])
    if x is None or w is None or (rest and b is None) or len(consumers) != 1 or consumers[0].kind != "quantize":
        raise UnsupportedOpError("float linear", linear.origin,
                                 "Only quantized linear layers lower in this release; "
                                 "check that CortexMQuantizer annotated it.")
    (x_tensor, x_quant), (w_tensor, w_quant) = x, w
    quantize = consumers[0]
    out_quant: Quant = quantize.attrs["quant"]
    if not w_tensor.is_constant or (b is not None and not b[0].is_constant):
        raise UnsupportedOpError("linear with non-constant weights", linear.origin)
    if len(x_tensor.shape) != 2:
        raise UnsupportedOpError(f"linear on a rank-{len(x_tensor.shape)} input {list(x_tensor.shape)}",
                                 linear.origin, "Flatten the input to [batch, features] first.")
    if np.any(w_quant.zero_point != 0) or w_quant.axis not in (None, 0):
        raise UnsupportedOpError("linear with asymmetric or non-per-output-channel weights", linear.origin,
                                 "Quantize with CortexMQuantizer (symmetric, per output channel).")

    weights = w_tensor.data.astype(np.int32)
    out_features = weights.shape[0]
    w_scale = np.broadcast_to(w_quant.scale, (out_features,)).astype(np.float64)
    bias = _bias_in_accumulator_units(b, float(x_quant.scale[0]) * w_scale)
    zp_in = int(x_quant.zero_point[0])
    folded_bias = bias - zp_in * weights.sum(axis=1, dtype=np.int64)
    if np.any(np.abs(folded_bias) >= 2**31):
        raise UnsupportedOpError("linear whose folded bias overflows int32", linear.origin)

    real = float(x_quant.scale[0]) * w_scale / float(out_quant.scale[0])
    multiplier, shift = zip(*(quantize_multiplier(r) for r in real))
    act_min, act_max = _clamp_range(linear.attrs.get("activation"), out_quant)

    stem = linear.outputs[0]
    weight_name = graph.unique_name(f"{stem}_weights")
    bias_name = graph.unique_name(f"{stem}_bias")
    graph.add_tensor(Tensor(weight_name, "int8", weights.shape, quant=w_quant, data=weights))
    graph.add_tensor(Tensor(bias_name, "int32", (out_features,), data=folded_bias.astype(np.int32)))
    out_name = quantize.outputs[0]
    graph.tensors[out_name].quant = out_quant
    x_tensor.quant = x_quant
    return Op(
        "fully_connected",
        [x_tensor.name, weight_name, bias_name],
        [out_name],
        {
            "multiplier": np.array(multiplier, np.int32),
            "shift": np.array(shift, np.int32),
            "output_offset": int(out_quant.zero_point[0]),
            "activation_min": act_min,
            "activation_max": act_max,
        },
        linear.origin,
    )


def lower_quantized_linear(graph: Graph, options: LoweringOptions) -> Graph:
    for linear in [op for op in graph.ops if op.kind == "linear"]:
        fc = _lower(graph, linear)
        quantize = graph.consumers(linear.outputs[0])[0]
        graph.ops[graph.ops.index(quantize)] = fc
        graph.ops.remove(linear)
    return graph
