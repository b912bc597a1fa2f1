"""Which op outputs may share bytes with an input that dies at that op, and how far apart: the
rules the ops' records (`OpSpec.in_place`) are built from; the planner asks `OpSpec.margin`.

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
  depthwise input only when the fast path is certain (depthwise_conv2d.pixel_order), whatever the
  tier, so that one plan is valid on every tier (conformance programs run on all of them).

A rule returns None when the output must not overlap that input at all.
"""
from __future__ import annotations

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


def elementwise(graph: Graph, op: Op, index: int) -> int | None:
    """Element i read before it is written: in place when the operand is not broadcast."""
    x, out = graph.tensors[op.inputs[index]], graph.tensors[op.outputs[0]]
    return 0 if x.shape == out.shape and x.dtype == out.dtype else None


def sliding_window(graph: Graph, op: Op, kernel_axes: tuple[int, int]) -> int:
    """window_margin of a sliding-window op (conv2d, depthwise_conv2d) with NHWC input and output,
    its window's size on the weights' `kernel_axes`."""
    x, out, weights = (graph.tensors[n].shape for n in (op.inputs[0], op.outputs[0], op.inputs[1]))
    kernel = (weights[kernel_axes[0]], weights[kernel_axes[1]])
    return window_margin(x, out, kernel, tuple(op.attrs["stride"]), tuple(op.attrs["padding"]))
