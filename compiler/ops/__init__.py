"""The operator table: one entry per Ember op, one file per op.

Each entry ties together what every layer needs to know of an op: its opcode in the program
schema, its reference implementation, how its options are serialized, and the C symbol of its
runtime adapter, from which the registry is generated.
"""
from __future__ import annotations

from compiler.ops.add import ADD
from compiler.ops.batch_matmul import BATCH_MATMUL
from compiler.ops.concatenation import CONCATENATION
from compiler.ops.conv2d import CONV2D
from compiler.ops.depthwise_conv2d import DEPTHWISE_CONV2D
from compiler.ops.dequantize import DEQUANTIZE
from compiler.ops.float_binary import FLOAT_BINARY
from compiler.ops.float_conv2d import FLOAT_CONV2D
from compiler.ops.float_fully_connected import FLOAT_FULLY_CONNECTED
from compiler.ops.float_layer_norm import FLOAT_LAYER_NORM
from compiler.ops.float_pool2d import FLOAT_AVG_POOL2D, FLOAT_MAX_POOL2D
from compiler.ops.float_softmax import FLOAT_SOFTMAX
from compiler.ops.float_unary import FLOAT_UNARY
from compiler.ops.fully_connected import FULLY_CONNECTED
from compiler.ops.lut import LUT
from compiler.ops.mel_features import MEL_FEATURES
from compiler.ops.min_max import MAXIMUM, MINIMUM
from compiler.ops.mul import MUL
from compiler.ops.pool2d import AVG_POOL2D, MAX_POOL2D
from compiler.ops.quantize import QUANTIZE
from compiler.ops.softmax import SOFTMAX
from compiler.ops.pad import PAD
from compiler.ops.transpose import TRANSPOSE
from compiler.ops.slice import SLICE
from compiler.ops.upsample_nearest import UPSAMPLE_NEAREST
from compiler.ops.reshape import RESHAPE
from compiler.ops.requantize import REQUANTIZE
from compiler.ops.spec import OpSpec
from compiler.ops.transpose_conv2d import TRANSPOSE_CONV2D

OP_TABLE: dict[str, OpSpec] = {spec.kind: spec for spec in (
    QUANTIZE, DEQUANTIZE, FULLY_CONNECTED,
    CONV2D,
    DEPTHWISE_CONV2D,
    MAX_POOL2D,
    AVG_POOL2D,
    ADD,
    LUT,
    SOFTMAX,
    MUL,
    CONCATENATION,
    PAD, TRANSPOSE, SLICE, UPSAMPLE_NEAREST, RESHAPE, REQUANTIZE,
    FLOAT_FULLY_CONNECTED, FLOAT_CONV2D, FLOAT_BINARY, FLOAT_UNARY, FLOAT_SOFTMAX, FLOAT_LAYER_NORM,
    FLOAT_MAX_POOL2D, FLOAT_AVG_POOL2D,
    MINIMUM,
    MAXIMUM,
    TRANSPOSE_CONV2D,
    BATCH_MATMUL,
    MEL_FEATURES,
)}
OPCODES: dict[int, OpSpec] = {spec.opcode: spec for spec in OP_TABLE.values()}

__all__ = ["OP_TABLE", "OPCODES", "OpSpec"]
