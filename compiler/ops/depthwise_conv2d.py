"""depthwise_conv2d: NHWC int8, weights [KH, KW, C_IN · depth_multiplier]."""
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
    return [reference.depthwise_conv2d_s8(x, weights, bias, a["multiplier"], a["shift"],
                                          depth_multiplier=a["depth_multiplier"], **kwargs)]


DEPTHWISE_CONV2D = OpSpec(
    kind="depthwise_conv2d",
    opcode=fb.OpCode.DEPTHWISE_CONV_2D,
    options_type=fb.OpOptions.Conv2DOptions,
    reference=_reference,
    write_options=conv_options.write,
    read_options=conv_options.read,
    registration="em_op_depthwise_conv2d",
)
