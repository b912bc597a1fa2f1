"""Which op outputs may share bytes with an input that dies at that op, and how far apart.

A kernel that writes its output in the order it reads its input can run (partly) in place: the
output may start `margin` bytes or more below the input (offset(input) − offset(output) ≥
margin), so that every byte it writes was last read before. `margin` is derived from each
kernel's loop order, the same on every tier unless said otherwise:

- Elementwise ops (add, mul, requantize, LUT) of an operand with the output's shape and element
  size read element i (in steps of up to 16) before they write it: margin 0, exact in place
  included. A broadcast operand is read again and again: never overlapped.
- Sliding windows (conv2d, depthwise_conv2d) write output pixels in order (batch, row, column),
  each pixel's channels together, and read a pixel's window before or while they write it. The
  widest interleaving is a block of WINDOW_BLOCK pixels (Helium conv: four columns per block,
  DSP conv: pairs, Helium depthwise: 4-pixel blocks within a row), so the bytes written for pixel
  p must lie below every input byte that pixels ≥ p − WINDOW_BLOCK + 1 read (see window_margin).
- Helium depthwise runs in pixel order only on its fast path (em_depthwise_conv2d_m1_s8.c); the
  general path goes channel block by channel block over the whole image. The planner overlaps a
  depthwise input only when the fast path is certain (`_depthwise_pixel_order`), whatever the
  tier, so that one plan is valid on every tier (conformance programs run on all of them).

`margin` returns None when the output must not overlap that input at all.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from compiler.ir import Graph, Op

WINDOW_BLOCK = 4  # output pixels whose reads and writes a kernel may interleave (largest tier)


def window_margin(in_shape: tuple[int, ...], out_shape: tuple[int, ...], kernel: tuple[int, int],
                  stride: tuple[int, int], padding: tuple[int, int, int, int], block: int = WINDOW_BLOCK) -> int:
    """Smallest offset(input) − offset(output) for which a sliding window NHWC int8 op that writes
    pixels in order (interleaving at most `block` of them) never overwrites a byte it reads later.

    Pixel p (flattened over batch, row, column) writes bytes [p·C_OUT, (p + 1)·C_OUT) of the
    output and reads nothing of the input below `low[p]` = its window's first row and column
    clamped into the input (a lower bound of every tap it reads). The writes of p must end at or
    below the lowest byte read by any pixel from p − block + 1 on.
    """
    n, h, w, c_in = in_shape
    _, oh, ow, c_out = out_shape
    (sh, sw), (top, _, left, _) = stride, padding
    rows = np.maximum(np.arange(oh) * sh - top, 0)
    cols = np.maximum(np.arange(ow) * sw - left, 0)
    low = ((np.arange(n)[:, None, None] * h + rows[None, :, None]) * w + cols[None, None, :]) * c_in
    low = np.minimum.accumulate(low.reshape(-1)[::-1])[::-1]  # lowest read by pixels >= p
    pixels = low.size
    first = np.maximum(np.arange(pixels) - block + 1, 0)
    write_end = (np.arange(pixels) + 1) * c_out
    return int(np.max(write_end - low[first]))


def _elementwise(graph: Graph, op: Op, index: int) -> int | None:
    x, out = graph.tensors[op.inputs[index]], graph.tensors[op.outputs[0]]
    return 0 if x.shape == out.shape and x.dtype == out.dtype else None


def _conv_geometry(graph: Graph, op: Op) -> tuple[tuple, tuple, tuple[int, int]]:
    x, out = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
    return x.shape, out.shape, tuple(op.attrs["stride"])


def _well_formed(graph: Graph, op: Op, weights_rank: int) -> bool:
    """NHWC input and output, weights of the op's rank (a malformed op, refused at load, is never
    in place)."""
    ranks = [len(graph.tensors[n].shape) for n in (op.inputs[0], op.inputs[1], op.outputs[0])]
    return ranks == [4, weights_rank, 4]


def _conv2d(graph: Graph, op: Op, index: int) -> int | None:
    if index != 0 or not _well_formed(graph, op, 4):
        return None
    x_shape, out_shape, stride = _conv_geometry(graph, op)
    weights = graph.tensors[op.inputs[1]].shape  # [C_OUT, KH, KW, C_IN / groups]
    return window_margin(x_shape, out_shape, (weights[1], weights[2]), stride, tuple(op.attrs["padding"]))


# em_nn_depthwise_m1_s8's limits (em_nn_functions.h: EM_NN_DWF_MAX_TAPS / _CHANNELS).
DWF_MAX_TAPS, DWF_MAX_CHANNELS = 49, 512


def _depthwise_pixel_order(graph: Graph, op: Op) -> bool:
    """True when em_nn_depthwise_m1_s8() takes the layer on every tier (it returns true): the
    conditions it tests before it computes anything, Helium's included."""
    weights = graph.tensors[op.inputs[1]]  # [KH, KW, C]
    kh, kw, c = weights.shape
    a = op.attrs
    if a["depth_multiplier"] != 1 or kh * kw > DWF_MAX_TAPS or c > DWF_MAX_CHANNELS or weights.data is None:
        return False
    if int(weights.data.min()) == -128:  # Helium's int16 pair sums need weights >= -127
        return False
    blocks = c % 4 == 0 and kh == 3 and kw == 3 and a["stride"][1] == 1 and a["dilation"][1] == 1
    left = any(int(s) > -2 for s in np.atleast_1d(a["shift"]))
    return c >= 32 or (blocks and not left)


def _depthwise_conv2d(graph: Graph, op: Op, index: int) -> int | None:
    if index != 0 or not _well_formed(graph, op, 3) or not _depthwise_pixel_order(graph, op):
        return None
    x_shape, out_shape, stride = _conv_geometry(graph, op)
    kh, kw, _ = graph.tensors[op.inputs[1]].shape
    return window_margin(x_shape, out_shape, (kh, kw), stride, tuple(op.attrs["padding"]))


MARGINS: dict[str, Callable[[Graph, Op, int], int | None]] = {
    "add": _elementwise,
    "mul": _elementwise,
    "requantize": _elementwise,
    "lut": _elementwise,
    "conv2d": _conv2d,
    "depthwise_conv2d": _depthwise_conv2d,
}


def margin(graph: Graph, op: Op, index: int) -> int | None:
    """offset(input `index`) − offset(output) needed for op's output (its first: a second one is
    kernel scratch) to overlap that input; None: no overlap allowed (ops not in MARGINS, constants)."""
    rule = MARGINS.get(op.kind)
    if rule is None or graph.tensors[op.inputs[index]].is_constant:
        return None
    return rule(graph, op, index)
