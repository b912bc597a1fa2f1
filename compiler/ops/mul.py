"""mul: elementwise product of two int8 tensors (NumPy broadcasting), or of two int16 ones (A16W8).

Lowering: dequantize(a) · dequantize(b) (+ activation) → quantize becomes `mul`:
the centred product requantized by scale_a · scale_b / scale_out (reference.mul_s8, mul_s16).
"""
from __future__ import annotations

import numpy as np
import torch
from torch.fx import Node

from compiler import reference, streaming
from compiler.attention import product_scale
from compiler.pointwise import DEQUANTIZE
from compiler.fixedpoint import quantize_multiplier
from compiler.ir import Graph, Op
from compiler.ops import overlap
from compiler.ops.float_binary import read_binary
from compiler.ops.spec import Import, Lowering, OpSpec, int_options, tier_paths
from compiler.quantized_pattern import ACTIVATION, QuantizedOp, binary_dtype, clamp_range, match, nhwc_operand, replace
from compiler.schema import program_generated as fb

aten = torch.ops.aten


# attrs, with their schema MulOptions field names
FIELDS = (("a_offset", "Input1Offset"), ("b_offset", "Input2Offset"), ("output_offset", "OutputOffset"),
          ("output_multiplier", "OutputMultiplier"), ("output_shift", "OutputShift"),
          ("activation_min", "ActivationMin"), ("activation_max", "ActivationMax"))


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [reference.mul_s8(inputs[0], inputs[1], **{attr: op.attrs[attr] for attr, _ in FIELDS})]


_write, _read = int_options("MulOptions", FIELDS)


def lower_product(graph: Graph, matched: QuantizedOp, kind: str, factor: float = 1.0, dtype: str = "int8") -> None:
    """Replaces a matched product of two `dtype` activations (mul, or batch_matmul) by `kind`: both
    zero points as offsets, one requantization by scale_a · scale_b · factor / scale_out (`factor`:
    a number the product is scaled by, attention's 1/√d)."""
    (a, a_quant), (b, b_quant) = matched.sources
    out = matched.out_quant
    multiplier, shift = quantize_multiplier(
        float(a_quant.scale[0]) * float(b_quant.scale[0]) * factor / float(out.scale[0]))
    act_min, act_max = clamp_range(matched.op.attrs.get("activation"), out, dtype)
    out_rank = len(graph.tensors[matched.output].shape)
    inputs = [nhwc_operand(graph, a, out_rank), nhwc_operand(graph, b, out_rank)]
    replace(graph, matched, Op(kind, inputs, [matched.output], {
        "a_offset": -int(a_quant.zero_point[0]), "b_offset": -int(b_quant.zero_point[0]),
        "output_offset": int(out.zero_point[0]), "output_multiplier": multiplier, "output_shift": shift,
        "activation_min": act_min, "activation_max": act_max,
    }, matched.op.origin))


def _lower(graph: Graph, mul: Op) -> None:
    matched = match(graph, mul, (ACTIVATION, ACTIVATION), "mul")
    lower_product(graph, matched, "mul", dtype=binary_dtype(graph, matched, "mul"))


def _import_mul(node: Node, args: list) -> tuple[str, dict]:
    """A product of two tensors; a quantized product's scale (compiler/attention.py), which its
    batch_matmul takes; or a float op with a number."""
    if len(args) == 2:
        return "aten.mul", {}
    factor = product_scale(node)
    if factor is not None and all(getattr(a, "target", None) == DEQUANTIZE for a in node.args[0].args[:2]):
        return "aten.product_scale", {"factor": factor}
    return read_binary(node, args)


MUL = OpSpec(
    kind="mul",
    opcode=fb.OpCode.MUL,
    options_type=fb.OpOptions.MulOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_mul",
    imports=(Import((aten.mul.Tensor,), _import_mul, "binary", int16=True),),
    lowerings=(Lowering(("aten.mul",), _lower, fuses_activation=True),),
    in_place=overlap.elementwise,
    path=tier_paths("MVE 4 lanes"),
    stream=streaming.framewise,
    int16_kernel=True,
)
