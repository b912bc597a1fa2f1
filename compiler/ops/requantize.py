"""requantize: int8 onto another scale and zero point, where producers quantized differently meet."""
from __future__ import annotations

import numpy as np

from compiler import reference, streaming
from compiler.ir import Op
from compiler.ops import overlap
from compiler.ops.spec import OpSpec, int_options, tier_paths
from compiler.schema import program_generated as fb


FIELDS = (("input_offset", "InputOffset"), ("output_offset", "OutputOffset"),
          ("output_multiplier", "OutputMultiplier"), ("output_shift", "OutputShift"))


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [reference.requantize_s8(inputs[0], **{attr: op.attrs[attr] for attr, _ in FIELDS})]


_write, _read = int_options("RequantizeOptions", FIELDS)


REQUANTIZE = OpSpec(
    kind="requantize",
    opcode=fb.OpCode.REQUANTIZE,
    options_type=fb.OpOptions.RequantizeOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_requantize",
    in_place=overlap.elementwise,
    path=tier_paths("MVE 4 lanes"),
    stream=streaming.framewise,
)
