"""minimum / maximum: elementwise min or max of two int8 tensors that share one quantization
with their output (CortexMQuantizer makes it so), NumPy broadcasting; MinMaxOptions is empty.

Lowering: dequantize → minimum / maximum → quantize, with both inputs sharing
the output's quantization (CortexMQuantizer makes it so), becomes `minimum` / `maximum` on the
int8 codes. A constant operand against a 4-D map (e.g. a [1, C, 1, 1] channel vector) is laid out
NHWC (nhwc_operand).
"""
from __future__ import annotations

import numpy as np
import torch
from torch.fx import Node

from compiler import reference, streaming
from compiler.errors import UnsupportedOpError
from compiler.ir import Graph, Op
from compiler.ops.float_binary import read_binary
from compiler.ops.spec import Import, Lowering, OpSpec, tier_paths
from compiler.quantized_pattern import match, nhwc_operand, replace
from compiler.schema import program_generated as fb

aten = torch.ops.aten


def _write(builder, op: Op) -> int:
    fb.MinMaxOptionsStart(builder)
    return fb.MinMaxOptionsEnd(builder)


LOWERED = {"aten.minimum": "minimum", "aten.maximum": "maximum"}


def _lower(graph: Graph, op: Op) -> None:
    what = LOWERED[op.kind]
    matched = match(graph, op, ("int8", "int8"), what)
    out = matched.out_quant
    for _, quant in matched.sources:
        if not (np.array_equal(quant.scale, out.scale) and np.array_equal(quant.zero_point, out.zero_point)):
            raise UnsupportedOpError(f"{what} of inputs quantized unlike its output", op.origin,
                                     f"Quantize with CortexMQuantizer ({what} shares one quantization).")
    out_rank = len(graph.tensors[matched.output].shape)
    inputs = [nhwc_operand(graph, tensor, out_rank) for tensor, _ in matched.sources]
    replace(graph, matched, Op(what, inputs, [matched.output], {}, op.origin))


def _import_min_max(node: Node, args: list) -> tuple[str, dict]:
    name = "minimum" if node.target == aten.minimum.default else "maximum"
    return (f"aten.{name}", {}) if len(args) == 2 else read_binary(node, args)


def _spec(kind: str, opcode: int, function, lowerings: tuple[Lowering, ...] = (),
          imports: tuple[Import, ...] = ()) -> OpSpec:
    def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
        return [function(inputs[0], inputs[1])]

    return OpSpec(kind=kind, opcode=opcode, options_type=fb.OpOptions.MinMaxOptions, reference=_reference,
                  write_options=_write, read_options=lambda table: {}, registration=f"em_op_{kind}",
                  path=tier_paths("MVE 16 lanes", "DSP 4 lanes (SSUB8/SEL)"), lowerings=lowerings,
                  imports=imports, stream=streaming.framewise)


# one import and one lowering make both
MINIMUM = _spec("minimum", fb.OpCode.MINIMUM, reference.minimum_s8, (Lowering(tuple(LOWERED), _lower, after_folds=True),),
                (Import((aten.minimum.default, aten.maximum.default), _import_min_max, "shared_inputs"),))
MAXIMUM = _spec("maximum", fb.OpCode.MAXIMUM, reference.maximum_s8)
