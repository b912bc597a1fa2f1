"""add: elementwise sum of two int8 tensors with their own scales (NumPy broadcasting).

Lowering: dequantize(a) + dequantize(b) (+ activation) → quantize becomes `add`.

Both inputs are brought to a common scale, 2·max(scale_a, scale_b), after a left shift of
ADD_LEFT_SHIFT bits of headroom; the sum is requantized to the output scale
(reference.add_s8). All multipliers and shifts are computed here, ahead of time. A constant
operand against a 4-D map is laid out NHWC (nhwc_operand).

Subtraction: dequantize(a) − dequantize(b) (+ activation) → quantize becomes `add`
with b's rescaling multiplier negated: the kernel rescales −(b − zp_b) onto the common scale, so
a − b costs exactly an add (reference.add_s8 takes multipliers of either sign).
"""
from __future__ import annotations

import numpy as np
import torch
from torch.fx import Node

from compiler import reference, streaming
from compiler.fixedpoint import quantize_multiplier
from compiler.ir import Graph, Op
from compiler.ops import broadcast, overlap
from compiler.ops.float_binary import read_binary
from compiler.ops.int16_path import by_precision
from compiler.ops.spec import Import, Lowering, OpSpec, int_options
from compiler.quantized_pattern import ACTIVATION, binary_dtype, clamp_range, match, nhwc_operand, replace
from compiler.reference import add_left_shift
from compiler.schema import program_generated as fb

aten = torch.ops.aten


# attrs, in the order of the schema's AddOptions fields and the reference's keywords
FIELDS = ("a_offset", "a_multiplier", "a_shift", "b_offset", "b_multiplier", "b_shift",
          "output_offset", "output_multiplier", "output_shift", "activation_min", "activation_max")
SCHEMA_NAMES = ("Input1Offset", "Input1Multiplier", "Input1Shift", "Input2Offset", "Input2Multiplier",
                "Input2Shift", "OutputOffset", "OutputMultiplier", "OutputShift", "ActivationMin", "ActivationMax")
ADD_TABLE_MIN = 1024  # em_add_s8.c: EM_NN_ADD_TABLE_MIN


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [reference.add_s8(inputs[0], inputs[1], **{k: op.attrs[k] for k in FIELDS})]


_write, _read = int_options("AddOptions", tuple(zip(FIELDS, SCHEMA_NAMES)))


def _path(graph: Graph, op: Op, tier: str, chosen: frozenset[str]) -> str:
    """em_add_s8.c: MVE 4 lanes; scalar and DSP tabulate each input's rescaling when neither
    operand is broadcast (one run of two arrays) and the output has >= EM_NN_ADD_TABLE_MIN
    elements."""
    shape = broadcast.walk(graph, op)
    if tier == "mve":
        return f"{shape}; MVE 4 lanes"
    if shape == "same shapes" and int(np.prod(graph.tensors[op.outputs[0]].shape)) >= ADD_TABLE_MIN:
        return f"{shape}; rescaling tables (256 codes per input), scalar"
    return f"{shape}; scalar per element"


def lower_add_like(graph: Graph, add: Op, what: str, b_sign: int) -> None:
    """Replaces the quantized `add` (b_sign 1) or `sub` (b_sign −1: b's multiplier negated, so
    the kernel adds −b) pattern around `add` by one int8 `add`; an `alpha` (a + alpha·b) scales
    b's scale, its sign b's."""
    matched = match(graph, add, (ACTIVATION, ACTIVATION), what)
    dtype = binary_dtype(graph, matched, what)
    (a, a_quant), (b, b_quant) = matched.sources
    alpha = add.attrs.get("alpha", 1.0)
    b_sign = b_sign if alpha >= 0 else -b_sign
    scale_a, scale_b = float(a_quant.scale[0]), float(b_quant.scale[0]) * abs(alpha)
    out = matched.out_quant
    twice_max = 2.0 * max(scale_a, scale_b)
    a_multiplier, a_shift = quantize_multiplier(scale_a / twice_max)
    b_multiplier, b_shift = quantize_multiplier(scale_b / twice_max)
    out_multiplier, out_shift = quantize_multiplier(twice_max / ((1 << add_left_shift(dtype)) * float(out.scale[0])))
    act_min, act_max = clamp_range(add.attrs.get("activation"), out, dtype)
    out_rank = len(graph.tensors[matched.output].shape)
    inputs = [nhwc_operand(graph, a, out_rank), nhwc_operand(graph, b, out_rank)]
    replace(graph, matched, Op("add", inputs, [matched.output], {
        "a_offset": -int(a_quant.zero_point[0]), "a_multiplier": a_multiplier, "a_shift": a_shift,
        "b_offset": -int(b_quant.zero_point[0]), "b_multiplier": b_sign * b_multiplier, "b_shift": b_shift,
        "output_offset": int(out.zero_point[0]), "output_multiplier": out_multiplier, "output_shift": out_shift,
        "activation_min": act_min, "activation_max": act_max,
    }, add.origin))


def _lower_add(graph: Graph, add: Op) -> None:
    lower_add_like(graph, add, "add", 1)


def _lower_sub(graph: Graph, sub: Op) -> None:
    lower_add_like(graph, sub, "sub", -1)


def _alpha(node: Node) -> dict:
    """add / sub's `alpha` (b's factor), where it is not 1."""
    alpha = float(node.kwargs.get("alpha", 1))
    return {} if alpha == 1 else {"alpha": alpha}


def _import_add(node: Node, args: list) -> tuple[str, dict]:
    return ("aten.add", _alpha(node)) if len(args) == 2 else read_binary(node, args)


def _import_sub(node: Node, args: list) -> tuple[str, dict]:
    return ("aten.sub", _alpha(node)) if len(args) == 2 else read_binary(node, args)


ADD = OpSpec(
    kind="add",
    opcode=fb.OpCode.ADD,
    options_type=fb.OpOptions.AddOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_add",
    imports=(Import((aten.add.Tensor,), _import_add, "binary", int16=True),
             Import((aten.sub.Tensor,), _import_sub, "binary", int16=True)),
    lowerings=(Lowering(("aten.add",), _lower_add, fuses_activation=True), Lowering(("aten.sub",), _lower_sub, after_folds=True, fuses_activation=True)),
    in_place=overlap.elementwise,
    path=by_precision(_path, {"mve": "int16: MVE 4 lanes (VLDRH.S32)", "*": "int16: scalar per element"}),
    int16_kernel=True,
    stream=streaming.framewise,
)
