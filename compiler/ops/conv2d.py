"""conv2d: grouped 2-D convolution, NHWC int8, weights [C_OUT, KH, KW, C_IN / groups]."""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.ir import Op
from compiler.ops import conv_options
from compiler.ops.spec import OpSpec
from compiler.schema import program_generated as fb


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x, weights, bias = inputs
    a = op.attrs
    kwargs = {k: a[k] for k in conv_options.COMMON}
    return [reference.conv2d_s8(x, weights, bias, a["multiplier"], a["shift"], groups=a["groups"], **kwargs)]


CONV2D = OpSpec(
    kind="conv2d",
    opcode=fb.OpCode.CONV_2D,
    options_type=fb.OpOptions.Conv2DOptions,
    reference=_reference,
    write_options=conv_options.write,
    read_options=conv_options.read,
    registration="em_op_conv2d",
)
