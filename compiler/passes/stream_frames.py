"""stream_frames: a model over a window of T frames becomes a program that takes `hop` new frames
per invoke and keeps what it still needs of the frames before in persistent tensors.

`LoweringOptions.stream` names the time axis of program input 0 (in the model's own layout) and
the frames per invoke. The pass follows that axis through the lowered int8 graph, op by op, with
each op's record (OpSpec.stream, compiler/streaming.py):
- a framewise op (quantize, a table, an add, a transpose or reshape that keeps the axis) runs on
  the new frames only;
- a window along time (a convolution or pooling of `extent` frames every `stride`, unpadded
  along it; an audio front end's frames of samples: with `front_end=`, input 0 is the int16
  audio, so Stream(1, hop) streams `hop` samples) reads its last `extent - stride` input frames
  from a history (a persistent tensor), joined in front of the new ones (`concatenation`), and
  the newest of them become the history of the next invoke (`slice`): it then makes
  hop / stride new output frames. Only where the window's last output frame reads its last
  input frame: frames left over after it (a front end's samples after its last whole frame)
  would put the stream's newest frames where the window has none;
- any other op (a flatten into a dense layer, a mean over time) gets the whole window back the
  same way, from a history of all but the new frames, and runs as it did.
Once a tensor holds its whole window again (the last convolution of a stack that reduces T to
1), the rest of the graph runs unchanged. Every step is the windowed program's own int8
arithmetic on the same bytes, so each invoke's outputs are exactly those of the windowed program
on the window ending at its frames (once the stream has filled the window; before, the histories
hold their reset value, a real 0, where the window would hold earlier frames).
"""
from __future__ import annotations

from dataclasses import dataclass

from compiler.errors import StreamError
from compiler.ir import Graph, Op, State, Tensor
from compiler.options import LoweringOptions
from compiler.streaming import Framewise, Window


@dataclass
class _Need:
    """An op input that needs `frames` earlier frames joined in front of the new ones."""

    op: Op
    index: int
    frames: int


def stream_frames(graph: Graph, options: LoweringOptions) -> Graph:
    stream = options.stream
    if stream is None:
        return graph
    from compiler.ops import OP_TABLE

    x = graph.inputs[0]
    window = graph.tensors[x].shape
    if not 0 <= stream.axis < len(window) or window[stream.axis] % stream.hop:
        raise StreamError(f"stream axis {stream.axis} with hop {stream.hop}: program input 0 has shape {list(window)}; "
                          "give an axis of it whose length is a multiple of the hop")
    time, length = {x: stream.axis}, {x: stream.hop}
    needs: list[_Need] = []
    for op in graph.ops:
        axes = {k: time[name] for k, name in enumerate(op.inputs) if name in time}
        if not axes:
            continue
        lengths = {length[op.inputs[k]] for k in axes}
        spec = OP_TABLE.get(op.kind)
        # inputs streamed at different rates: no rule, each gets its whole window
        rule = spec.stream(graph, op, axes) if len(lengths) == 1 and spec is not None and spec.stream else None
        n, out = min(lengths), op.outputs[0]
        if isinstance(rule, Framewise):
            time[out], length[out] = rule.axis, n
        elif isinstance(rule, Window) and n % rule.stride == 0 and rule.extent >= rule.stride and _ends_aligned(
                graph.tensors[op.inputs[0]].shape[axes[0]], rule):
            needs.append(_Need(op, 0, rule.extent - rule.stride))
            time[out], length[out] = axes[0], n // rule.stride
        else:
            needs += [_Need(op, k, graph.tensors[op.inputs[k]].shape[a] - length[op.inputs[k]]) for k, a in axes.items()]
            continue
        if length[out] == graph.tensors[out].shape[time[out]]:
            del time[out], length[out]  # whole again: the rest runs as it did
    _rewrite(graph, time, length, needs)
    return graph


def _ends_aligned(frames: int, rule: Window) -> bool:
    """The window's last output frame reads up to its last input frame. Otherwise (a front end's
    samples after its last whole frame, a strided convolution's leftover frame) the windowed op
    ignores the newest frames, and a history joined to them would read later frames than it."""
    return frames >= rule.extent and (frames - rule.extent) % rule.stride == 0


def _rewrite(graph: Graph, time: dict[str, int], length: dict[str, int], needs: list[_Need]) -> None:
    windowed = {name: graph.tensors[name].shape for name in time}
    for name, a in time.items():
        shape = list(windowed[name])
        shape[a] = length[name]
        graph.tensors[name].shape = tuple(shape)
    for need in needs:
        if need.frames > 0:
            _join_history(graph, need, time[need.op.inputs[need.index]])


def _join_history(graph: Graph, need: _Need, axis: int) -> None:
    """`need.op` reads its input joined after `need.frames` frames of history; the joined
    tensor's last `need.frames` frames are the next invoke's history."""
    name = need.op.inputs[need.index]
    x = graph.tensors[name]
    new = x.shape[axis]
    # int16 without quantization holds plain integers (a front end's raw audio samples): its reset
    # value 0 is a real 0 too (silence)
    plain = x.dtype == "int16" and x.quant is None
    if not plain and (x.dtype not in ("int8", "int16") or x.quant is None):
        raise StreamError(f"{need.op.kind} ({need.op.origin or 'no origin'}) reads {x.dtype} {name} over a window of "
                          "frames: a streamed history holds integers; quantize the ops along time")

    def along(frames: int) -> tuple[int, ...]:
        shape = list(x.shape)
        shape[axis] = frames
        return tuple(shape)

    history = graph.add_tensor(Tensor(graph.unique_name(f"{name}_history"), x.dtype, along(need.frames), x.quant))
    joined = graph.add_tensor(Tensor(graph.unique_name(f"{name}_window"), x.dtype, along(need.frames + new), x.quant))
    kept = graph.add_tensor(Tensor(graph.unique_name(f"{name}_history_next"), x.dtype, history.shape, x.quant))
    begin = [0] * len(x.shape)
    begin[axis] = new
    at = graph.ops.index(need.op)
    graph.ops[at:at] = [
        Op("concatenation", [history.name, name], [joined.name], {"axis": axis}, need.op.origin),
        Op("slice", [joined.name], [kept.name], {"begin": begin, "step": [1] * len(x.shape), "size": list(kept.shape)},
           need.op.origin),
    ]
    need.op.inputs[need.index] = joined.name
    graph.state.append(State(history.name, kept.name))
