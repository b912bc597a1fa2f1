"""requantize: int8 onto another scale and zero point, where producers quantized differently meet;
int8 ↔ int16 where an A16W8 region meets an int8 one (attr `output_type`: the schema DType)."""
from __future__ import annotations

import numpy as np

from compiler import reference, streaming
from compiler.ir import Op
from compiler.ops import overlap
from compiler.ops.int16_path import by_precision
from compiler.ops.spec import OpSpec, int_options, tier_paths
from compiler.schema import program_generated as fb


FIELDS = (("input_offset", "InputOffset"), ("output_offset", "OutputOffset"),
          ("output_multiplier", "OutputMultiplier"), ("output_shift", "OutputShift"))
DEFAULTS = {"output_type": fb.DType.INT8}
OUTPUT_TYPES = {fb.DType.INT8: np.int8, fb.DType.INT16: np.int16}


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    dtype = OUTPUT_TYPES[op.attrs.get("output_type", DEFAULTS["output_type"])]
    return [reference.requantize_s8(inputs[0], output_dtype=dtype, **{attr: op.attrs[attr] for attr, _ in FIELDS})]


_write, _read = int_options("RequantizeOptions", FIELDS + (("output_type", "OutputType"),), DEFAULTS)


REQUANTIZE = OpSpec(
    kind="requantize",
    opcode=fb.OpCode.REQUANTIZE,
    options_type=fb.OpOptions.RequantizeOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_requantize",
    in_place=overlap.elementwise,
    path=by_precision(tier_paths("MVE 4 lanes"), tier_paths("int16: MVE 4 lanes (VLDRH / VSTRH widening)", scalar="int16: scalar")),
    int16_kernel=True,
    stream=streaming.framewise,
)
