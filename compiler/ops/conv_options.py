"""What conv2d and depthwise_conv2d share: Conv2DOptions (op attrs <-> the schema table), the
kernels' sizing ABI (em_conv_dims / em_conv_params) and the window geometry their rules read.

Attrs use the reference's keyword names: stride, dilation, padding (top, bottom, left, right),
groups, depth_multiplier, input_zero_point, output_offset, activation_min/max, multiplier, shift.
"""
from __future__ import annotations

import ctypes
from collections.abc import Callable

import numpy as np

from compiler.ir import Graph, Op
from compiler.schema import program_generated as fb


# Scratch a kernel gets when its op has no planned scratch tensor (a second output): the bytes of
# eval()'s stack the adapter lends (runtime/ops/em_op_conv2d.c EM_CONV2D_STACK_SCRATCH,
# runtime/kernels/em_depthwise_conv2d_m1_s8.c EM_NN_DWF_ROWS_BYTES). When scratch is planned in
# the arena instead, the second output's size is used and these stack sizes must become 0.
CONV2D_STACK_SCRATCH = 0
DEPTHWISE_ROWS_STACK = 0


def write(builder, op: Op) -> int:
    a = op.attrs
    multiplier = builder.CreateNumpyVector(np.ascontiguousarray(a["multiplier"], np.int32))
    shift = builder.CreateNumpyVector(np.ascontiguousarray(a["shift"], np.int32))
    top, bottom, left, right = a["padding"]
    fb.Conv2DOptionsStart(builder)
    fb.Conv2DOptionsAddStrideH(builder, a["stride"][0])
    fb.Conv2DOptionsAddStrideW(builder, a["stride"][1])
    fb.Conv2DOptionsAddDilationH(builder, a["dilation"][0])
    fb.Conv2DOptionsAddDilationW(builder, a["dilation"][1])
    fb.Conv2DOptionsAddPadTop(builder, top)
    fb.Conv2DOptionsAddPadBottom(builder, bottom)
    fb.Conv2DOptionsAddPadLeft(builder, left)
    fb.Conv2DOptionsAddPadRight(builder, right)
    fb.Conv2DOptionsAddGroups(builder, a.get("groups", 1))
    fb.Conv2DOptionsAddDepthMultiplier(builder, a.get("depth_multiplier", 1))
    fb.Conv2DOptionsAddInputZeroPoint(builder, a["input_zero_point"])
    fb.Conv2DOptionsAddOutputOffset(builder, a["output_offset"])
    fb.Conv2DOptionsAddActivationMin(builder, a["activation_min"])
    fb.Conv2DOptionsAddActivationMax(builder, a["activation_max"])
    fb.Conv2DOptionsAddOutputMultiplier(builder, multiplier)
    fb.Conv2DOptionsAddOutputShift(builder, shift)
    fb.Conv2DOptionsAddPaths(builder, a.get("paths", 0))
    return fb.Conv2DOptionsEnd(builder)


def read(table) -> dict:
    o = fb.Conv2DOptions()
    o.Init(table.Bytes, table.Pos)
    return {
        "stride": (o.StrideH(), o.StrideW()),
        "dilation": (o.DilationH(), o.DilationW()),
        "padding": (o.PadTop(), o.PadBottom(), o.PadLeft(), o.PadRight()),
        "groups": o.Groups(),
        "depth_multiplier": o.DepthMultiplier(),
        "input_zero_point": o.InputZeroPoint(),
        "output_offset": o.OutputOffset(),
        "activation_min": o.ActivationMin(),
        "activation_max": o.ActivationMax(),
        "multiplier": o.OutputMultiplierAsNumpy().astype(np.int32),
        "shift": o.OutputShiftAsNumpy().astype(np.int32),
        "paths": o.Paths(),
    }


COMMON = ("stride", "dilation", "padding", "input_zero_point", "output_offset", "activation_min", "activation_max")
INT8_ONLY = ("input_zero_point", "output_offset")  # int16 activations (A16W8) have zero point 0


class ConvDims(ctypes.Structure):  # em_conv_dims (em_nn_types.h), field for field
    _fields_ = [(n, ctypes.c_int32) for n in ("batches", "input_h", "input_w", "input_c", "kernel_h", "kernel_w",
                                               "output_h", "output_w", "output_c")]


class ConvParams(ctypes.Structure):  # em_conv_params (em_nn_types.h), field for field
    _fields_ = [(n, ctypes.c_int32) for n in ("stride_h", "stride_w", "dilation_h", "dilation_w", "pad_top",
                                               "pad_bottom", "pad_left", "pad_right", "groups", "depth_multiplier",
                                               "input_zero_point", "output_offset", "activation_min",
                                               "activation_max")]


def well_formed(graph: Graph, op: Op, weights_rank: int) -> bool:
    """NHWC input and output, weights of the op's rank (a malformed op, refused at load, gets
    neither scratch nor an in-place output)."""
    ranks = [len(graph.tensors[n].shape) for n in (op.inputs[0], op.inputs[1], op.outputs[0])]
    return ranks == [4, weights_rank, 4]


def buffer_size(lib: ctypes.CDLL, function: str, graph: Graph, op: Op, kernel: tuple[int, int]) -> int:
    """`function` (an em_*_get_buffer_size(params, dims) of the sizing library) for `op`."""
    x, y = graph.tensors[op.inputs[0]].shape, graph.tensors[op.outputs[0]].shape
    a = op.attrs
    dims = ConvDims(x[0], x[1], x[2], x[3], *kernel, y[1], y[2], y[3])
    params = ConvParams(*a["stride"], *a["dilation"], *a["padding"], a.get("groups", 1), a.get("depth_multiplier", 1),
                        a["input_zero_point"], a["output_offset"], a["activation_min"], a["activation_max"])
    sizing = getattr(lib, function)
    sizing.restype, sizing.argtypes = ctypes.c_int32, [ctypes.POINTER(ConvParams), ctypes.POINTER(ConvDims)]
    return int(sizing(ctypes.byref(params), ctypes.byref(dims)))


def round_up(n: int, m: int) -> int:
    return (n + m - 1) // m * m


def planned_scratch(graph: Graph, op: Op, stack: int) -> int:
    """The kernel's planned scratch (the op's second output, after any int4 weights unpacked
    there), else the stack bytes its adapter lends (as it does when the scratch holds only them)."""
    from compiler.scratch import unpacked_weight_bytes  # compiler.scratch reads the op table

    kernel = graph.tensors[op.outputs[1]].nbytes - unpacked_weight_bytes(graph, op) if len(op.outputs) > 1 else 0
    return kernel if kernel > 0 else stack


def inside(count: int, stride: int, pad: int, span: int, size: int) -> int:
    """Output positions whose window [i·stride − pad, + span] lies inside [0, size)."""
    starts = np.arange(count) * stride - pad
    return int(np.count_nonzero((starts >= 0) & (starts + span < size)))


def take_zero_pad(conv: Op, pad: Op, added: tuple[int, int, int, int]) -> bool:
    """Padding cells hold the input zero point, read as an input value: a pad of the same value
    is the convolution's own padding."""
    if conv.attrs["input_zero_point"] != pad.attrs.get("value", 0):
        return False
    conv.attrs["padding"] = tuple(int(a + b) for a, b in zip(conv.attrs["padding"], added))
    return True


def window_note(kernel_axes: tuple[int, int]) -> Callable[[Graph, Op], str]:
    """The reports' " k<KH>x<KW>/<stride>" of a convolution whose weights hold the window in
    `kernel_axes`."""
    def note(graph: Graph, op: Op) -> str:
        weight = graph.tensors[op.inputs[1]].shape
        return f" k{weight[kernel_axes[0]]}x{weight[kernel_axes[1]]}/{op.attrs['stride'][0]}"
    return note


# em_nn_s16.h: EM_NN_S16_SUM32_MAX_TERMS (the most products a 32-bit sum holds exactly, 511 · 2^22
# < 2^31) and the smallest shift of Helium's vector requantization (rounding at E <= 32 bits)
S16_SUM32_MAX_TERMS, S16_VECTOR_MIN_SHIFT = 511, -17


def s16_sum32(graph: Graph, op: Op, terms: int) -> bool:
    """em_nn_s16_sum32(): every sum of `terms` int16 x int8 products plus the op's bias is exact in
    int32 and every shift >= -17, so Helium takes 32-bit sums and requantizes in vectors."""
    bias = graph.tensors[op.inputs[2]].data if len(op.inputs) > 2 else None
    most = int(np.abs(bias.astype(np.int64)).max()) if bias is not None and bias.size else 0
    return (terms <= S16_SUM32_MAX_TERMS and terms * (1 << 22) + most <= (1 << 31) - 1
            and int(np.min(op.attrs["shift"])) >= S16_VECTOR_MIN_SHIFT)


def rows_s16_loop(tier: str, sum32: bool) -> str:
    """em_nn_rows_s16.c's loop over an int16 column (A16W8 conv2d, fully connected) on `tier`."""
    if tier == "mve":
        return ("MVE s16 4 rows x 8 lanes, 32-bit sums (VMLADAVA), vector requantization" if sum32
                else "MVE s16 4 rows x 8 lanes, 64-bit sums (VMLALDAVA)")
    return {"dsp": "DSP s16 2 rows (SMLALD)"}.get(tier, "scalar s16 2 rows (int64)")
