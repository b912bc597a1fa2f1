"""How an op runs on a stream: the rules the ops' records give (OpSpec.stream), which the streaming
conversion (passes/stream_frames.py) reads.

A streamed tensor carries only the newest frames of a window along its time axis. An op either
computes each output frame from the same frames of its inputs (`Framewise`: quantize, a table, an
add of two streamed tensors), or reads a window of `extent` frames every `stride` (`Window`: a
convolution or pooling along time, with no padding along it; an audio front end's frames of
samples), or needs the whole window (no rule: a flatten into a dense layer, a mean over time);
the conversion gives the last two the frames they need from persistent tensors (compiler/ir.State).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from compiler.ir import Graph, Op


@dataclass(frozen=True)
class Framewise:
    """Output frame t from input frame t; `axis`: the output's time axis."""

    axis: int


@dataclass(frozen=True)
class Window:
    """`extent` input frames per output frame, a new output frame every `stride` input frames,
    along the same axis of input 0 and the output."""

    extent: int
    stride: int


StreamRule = Callable[[Graph, Op, dict[int, int]], "Framewise | Window | None"]


def framewise(graph: Graph, op: Op, axes: dict[int, int]) -> Framewise | None:
    """An elementwise op: every streamed input on one axis, and the other operands (constants,
    whole tensors) of size 1 along it, so that they broadcast over the frames alike."""
    out = graph.tensors[op.outputs[0]]
    axis = set(axes.values())
    if len(axis) != 1:
        return None
    (a,) = axis
    rank = len(out.shape)
    for k, name in enumerate(op.inputs):
        t = graph.tensors[name]
        if k in axes:
            if len(t.shape) != rank:
                return None
        elif t.shape and len(t.shape) > rank - a and t.shape[a - (rank - len(t.shape))] != 1:
            return None  # a constant varying along time
    return Framewise(a)


def convolution_window(kernel_axes: tuple[int, int]) -> StreamRule:
    """A convolution (NHWC, weights holding the window in `kernel_axes`) along H (axis 1) or W
    (axis 2), unpadded along it."""
    def rule(graph: Graph, op: Op, axes: dict[int, int]) -> Window | None:
        if set(axes) != {0} or axes[0] not in (1, 2):
            return None
        k = axes[0] - 1
        kernel = graph.tensors[op.inputs[1]].shape[kernel_axes[k]]
        return _window(op, kernel, op.attrs["dilation"][k], op.attrs["stride"][k], k)
    return rule


def pool_window(graph: Graph, op: Op, axes: dict[int, int]) -> Window | None:
    if set(axes) != {0} or axes[0] not in (1, 2):
        return None
    k = axes[0] - 1
    return _window(op, op.attrs["kernel"][k], 1, op.attrs["stride"][k], k)


def _window(op: Op, kernel: int, dilation: int, stride: int, k: int) -> Window | None:
    before, after = op.attrs["padding"][2 * k], op.attrs["padding"][2 * k + 1]
    return Window((kernel - 1) * dilation + 1, stride) if before == after == 0 else None


def frame_window(graph: Graph, op: Op, axes: dict[int, int]) -> Window | None:
    """An audio front end (mel_features) streamed along its samples: a frame of `frame_length`
    samples (its window constant, input 1) every `frame_step`. Its audio [*batch, samples] and its
    features [*batch, frames, coefficients] have their time axis at the same index."""
    if set(axes) != {0} or axes[0] != len(graph.tensors[op.inputs[0]].shape) - 1:
        return None
    return Window(graph.tensors[op.inputs[1]].shape[0], op.attrs["frame_step"])


def transpose_axis(graph: Graph, op: Op, axes: dict[int, int]) -> Framewise | None:
    return Framewise(list(op.attrs["perm"]).index(axes[0])) if set(axes) == {0} else None


def reshape_axis(graph: Graph, op: Op, axes: dict[int, int]) -> Framewise | None:
    """A reshape that keeps the time axis a dim of its own: the same elements before it, and its
    size (the dims around it may split or merge)."""
    if set(axes) != {0}:
        return None
    src, dst = graph.tensors[op.inputs[0]].shape, graph.tensors[op.outputs[0]].shape
    a = axes[0]
    before = _product(src[:a])
    for b in range(len(dst)):
        if _product(dst[:b]) == before and dst[b] == src[a]:
            return Framewise(b)
    return None


def _product(dims: tuple[int, ...]) -> int:
    n = 1
    for d in dims:
        n *= d
    return n
