"""minimum / maximum: elementwise min or max of two int8 tensors that share one quantization
with their output (CortexMQuantizer makes it so), NumPy broadcasting; MinMaxOptions is empty."""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.ir import Op
from compiler.ops.spec import OpSpec, tier_paths
from compiler.schema import program_generated as fb


def _write(builder, op: Op) -> int:
    fb.MinMaxOptionsStart(builder)
    return fb.MinMaxOptionsEnd(builder)


def _spec(kind: str, opcode: int, function) -> OpSpec:
    def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
        return [function(inputs[0], inputs[1])]

    return OpSpec(kind=kind, opcode=opcode, options_type=fb.OpOptions.MinMaxOptions, reference=_reference,
                  write_options=_write, read_options=lambda table: {}, registration=f"em_op_{kind}",
                  path=tier_paths("MVE 16 lanes", "DSP 4 lanes (SSUB8/SEL)"))


MINIMUM = _spec("minimum", fb.OpCode.MINIMUM, reference.minimum_s8)
MAXIMUM = _spec("maximum", fb.OpCode.MAXIMUM, reference.maximum_s8)
