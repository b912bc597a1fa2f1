"""The shape every quantized PyTorch op has after PT2E, and the arithmetic its lowering shares.

    dequantize(int8 x) ─┐
    dequantize(int8 w) ─┼─> float op (+ folded activation) ──> quantize ──> int8 y
    dequantize(int32 b)─┘

`match` finds it (or names what is missing), `replace` swaps it for one integer Ember op.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from compiler import reference
from compiler.errors import UnsupportedOpError
from compiler.fixedpoint import REQUANTIZE_S64_MAX_SHIFT, quantize_multiplier
from compiler.ir import Graph, Op, Quant, Tensor


@dataclass
class QuantizedOp:
    op: Op  # the float op
    sources: list[tuple[Tensor, Quant]]  # the int tensors behind each dequantized input, in order
    quantize: Op  # its only consumer
    out_quant: Quant

    @property
    def output(self) -> str:
        return self.quantize.outputs[0]


# An activation of an op with int16 kernels (Import.int16): int8, or int16 in an A16W8 layer
ACTIVATION = ("int8", "int16")


def dequantized_source(graph: Graph, tensor: str, dtype: str | tuple[str, ...]) -> tuple[Tensor, Quant] | None:
    """The `dtype` tensor (or one of the dtypes) and its quantization, if `tensor` is a dequantize of one."""
    op = graph.producer(tensor)
    if op is None or op.kind != "dequantize":
        return None
    source = graph.tensors[op.inputs[0]]
    return (source, op.attrs["quant"]) if source.dtype in ((dtype,) if isinstance(dtype, str) else dtype) else None


def match(graph: Graph, op: Op, dtypes: tuple[str | tuple[str, ...], ...], what: str) -> QuantizedOp:
    """Matches `op` whose inputs are dequantizes of `dtypes` (each a dtype or a tuple of them, such
    as ACTIVATION; a missing trailing input, such as an absent bias, is allowed) and whose output
    only feeds one quantize."""
    sources = [dequantized_source(graph, name, dtype) for name, dtype in zip(op.inputs, dtypes)]
    consumers = graph.consumers(op.outputs[0])
    if any(s is None for s in sources) or len(consumers) != 1 or consumers[0].kind != "quantize":
        raise UnsupportedOpError(f"float {what}", op.origin,
                                 f"Only quantized {what} lowers in this release; check that CortexMQuantizer "
                                 "annotated it (and that its output is not also used unquantized).")
    return QuantizedOp(op, sources, consumers[0], consumers[0].attrs["quant"])


def replace(graph: Graph, matched: QuantizedOp, lowered: Op) -> None:
    """Puts `lowered` where the quantize was and drops the float op (its dequantizes die later)."""
    graph.tensors[matched.output].quant = matched.out_quant
    for tensor, quant in matched.sources:
        if not tensor.is_constant:
            tensor.quant = quant
    graph.ops[graph.ops.index(matched.quantize)] = lowered
    graph.ops.remove(matched.op)


QUANTIZE_TO = {"int8": reference.quantize_f32_s8, "int16": reference.quantize_f32_s16}


def clamp_range(activation: tuple[float, float] | None, quant: Quant, dtype: str = "int8") -> tuple[int, int]:
    """int8 (int16) range the float activation range maps to: the bounds quantized exactly as
    PyTorch quantizes the clamped float value (float32, ties to even), so the integer clamp agrees."""
    limits = np.iinfo(dtype)
    if activation is None:
        return int(limits.min), int(limits.max)
    inv_scale = np.float32(1.0 / float(quant.scale[0]))
    low, high = QUANTIZE_TO[dtype](np.array(activation, np.float32), inv_scale, int(quant.zero_point[0]))
    return int(low), int(high)


def activation_dtype(graph: Graph, matched: QuantizedOp, what: str) -> str:
    """The dtype of a matched op's activations: its first input's, which its output must share
    (int8, or int16 in an A16W8 layer, zero point 0)."""
    x, x_quant = matched.sources[0]
    out = graph.tensors[matched.output]
    if out.dtype != x.dtype:
        raise UnsupportedOpError(f"{what} from {x.dtype} to {out.dtype}", matched.op.origin,
                                 "Quantize its input and output alike (CortexMQuantizer does).")
    if x.dtype == "int16" and (np.any(x_quant.zero_point != 0) or np.any(matched.out_quant.zero_point != 0)):
        raise UnsupportedOpError(f"int16 {what} with a zero point", matched.op.origin,
                                 "int16 activations are symmetric, zero point 0 (CortexMQuantizer, a16w8).")
    return x.dtype


def binary_dtype(graph: Graph, matched: QuantizedOp, what: str) -> str:
    """activation_dtype of an op of two activations, which must share it."""
    dtype = activation_dtype(graph, matched, what)
    (a, _), (b, _) = matched.sources
    if b.dtype != dtype:
        raise UnsupportedOpError(f"{what} of {a.dtype} and {b.dtype}", matched.op.origin,
                                 "Quantize both operands alike (CortexMQuantizer does).")
    return dtype


def requantization(real: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-channel (multiplier, shift) int32 arrays for real multipliers."""
    multiplier, shift = zip(*(quantize_multiplier(float(r)) for r in np.atleast_1d(real)))
    return np.array(multiplier, np.int32), np.array(shift, np.int32)


@dataclass
class WeightedConstants:
    """A weighted op's int8 (or int4) weights, its folded int32 bias and its requantization."""

    weights: np.ndarray  # int8 (int4) values as int32, in PyTorch's layout
    weight_quant: Quant
    folded_bias: np.ndarray  # int64: bias − zp_in · Σ w per output channel
    multiplier: np.ndarray
    shift: np.ndarray

    @property
    def weight_dtype(self) -> str:
        """"int4" where the quantizer used -8..7 (A8W4: the program packs them two to a byte and
        the adapter unpacks them into scratch), else "int8"."""
        return "int4" if self.weight_quant.is_int4 else "int8"


def weighted_constants(matched: QuantizedOp, what: str) -> WeightedConstants:
    """Weights, bias and requantization of a linear or conv (sources x, w[, b])."""
    (x, x_quant), (w, w_quant), *rest = matched.sources
    origin = matched.op.origin
    if not w.is_constant or (rest and not rest[0][0].is_constant):
        raise UnsupportedOpError(f"{what} with non-constant weights", origin)
    if np.any(w_quant.zero_point != 0) or w_quant.axis not in (None, 0):
        raise UnsupportedOpError(f"{what} with asymmetric or non-per-output-channel weights", origin,
                                 "Quantize with CortexMQuantizer (symmetric, per output channel).")
    weights = w.data.astype(np.int32)
    out_channels = weights.shape[0]
    accumulator_scale = float(x_quant.scale[0]) * np.broadcast_to(w_quant.scale, (out_channels,)).astype(np.float64)
    bias = _bias_in_accumulator_units(rest[0] if rest else None, accumulator_scale)
    zp_in = int(x_quant.zero_point[0])
    folded = bias - zp_in * weights.reshape(out_channels, -1).sum(axis=1, dtype=np.int64)
    if np.any(np.abs(folded) >= 2**31):
        raise UnsupportedOpError(f"{what} whose folded bias overflows int32", origin)
    multiplier, shift = requantization(accumulator_scale / float(matched.out_quant.scale[0]))
    if x.dtype == "int16":
        if w_quant.is_int4:
            raise UnsupportedOpError(f"{what} with int16 activations and int4 weights", origin,
                                     "Choose a16w8 or a8w4 for the layer, not both.")
        if np.any(shift > REQUANTIZE_S64_MAX_SHIFT):
            raise UnsupportedOpError(f"int16 {what} whose requantization multiplier is at least "
                                     f"2^{REQUANTIZE_S64_MAX_SHIFT}", origin,
                                     "Its output scale is far below input scale × weight scale: check the calibration.")
    return WeightedConstants(weights, w_quant, folded, multiplier, shift)


def _bias_in_accumulator_units(bias: tuple[Tensor, Quant] | None, accumulator_scale: np.ndarray) -> np.ndarray:
    """The int32 bias on the accumulator's scale (input scale × weight scale per channel).

    PT2E derives the bias scale from the input and weight observers, so it normally equals the
    accumulator scale already; a layer called twice shares one bias quantized for its first
    input, and there the bias is requantized to each call's own accumulator scale.
    """
    out_channels = len(accumulator_scale)
    if bias is None:
        return np.zeros(out_channels, np.int64)
    tensor, quant = bias
    values = tensor.data.astype(np.int64)
    scale = np.broadcast_to(quant.scale.astype(np.float64), (out_channels,))
    if np.allclose(scale, accumulator_scale, rtol=1e-6, atol=0.0):
        return values
    return np.round(values * scale / accumulator_scale).astype(np.int64)


def add_constant(graph: Graph, stem: str, dtype: str, values: np.ndarray, quant: Quant | None = None) -> str:
    name = graph.unique_name(stem)
    graph.add_tensor(Tensor(name, dtype, values.shape, quant=quant, data=values))
    return name


def nhwc_operand(graph: Graph, tensor: Tensor, out_rank: int) -> str:
    """`tensor`'s name, or, for a constant broadcast against a 4-D map (e.g. a [1, C, 1, 1] or
    [C, 1, 1] channel vector, which convert_to_nhwc leaves in PyTorch's layout), the name of an
    NHWC copy of it, so that it broadcasts over the map as PyTorch broadcast it."""
    if not tensor.is_constant or out_rank != 4 or len(tensor.shape) > 4:
        return tensor.name
    nchw = tensor.data.reshape((1,) * (4 - len(tensor.shape)) + tuple(tensor.shape))
    return add_constant(graph, f"{tensor.name}_nhwc", tensor.dtype, np.ascontiguousarray(nchw.transpose(0, 2, 3, 1)),
                        tensor.quant)
