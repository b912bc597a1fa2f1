"""fold_pad: a constant `pad` of real 0 (its value is the input's zero point) over H and W only,
read by nothing but one conv2d, depthwise_conv2d or avg_pool2d, becomes that op's padding.

Exact because those ops' padding cells already hold the input zero point (real 0): conv2d and
depthwise read it as an input value; avg_pool2d counts it when `count_include_pad` (so the pool's
own padding must count too, or be absent). max_pool2d is never folded: its padding never wins,
the pad's zero point would.
"""
from __future__ import annotations

import numpy as np

from compiler.ir import Graph, Op
from compiler.options import LoweringOptions

CONSUMERS = ("conv2d", "depthwise_conv2d", "avg_pool2d")


def _hw_padding(graph: Graph, pad: Op) -> tuple[int, int, int, int] | None:
    """(top, bottom, left, right) of an NHWC pad that touches only H and W, else None."""
    before, after = pad.attrs["before"], pad.attrs["after"]
    if len(before) != 4 or min(before + after) < 0 or before[0] or after[0] or before[3] or after[3]:
        return None
    source, output = graph.tensors[pad.inputs[0]].quant, graph.tensors[pad.outputs[0]].quant
    if source is None or output is None or len(source.zero_point) != 1:
        return None
    if not (np.array_equal(source.scale, output.scale) and np.array_equal(source.zero_point, output.zero_point)):
        return None
    if pad.attrs.get("value", 0) != int(source.zero_point[0]):
        return None
    return before[1], after[1], before[2], after[2]


def _foldable(consumer: Op, pad: Op) -> bool:
    if consumer.kind not in CONSUMERS or consumer.inputs[0] != pad.outputs[0]:
        return False
    if consumer.kind == "avg_pool2d":
        return consumer.attrs["count_include_pad"] or not any(consumer.attrs["padding"])
    return consumer.attrs["input_zero_point"] == pad.attrs.get("value", 0)


def fold_pad(graph: Graph, options: LoweringOptions) -> Graph:
    for pad in [op for op in graph.ops if op.kind == "pad"]:
        readers = graph.consumers(pad.outputs[0])
        added = _hw_padding(graph, pad)
        if added is None or len(readers) != 1 or pad.outputs[0] in graph.outputs or not _foldable(readers[0], pad):
            continue
        consumer = readers[0]
        consumer.attrs["padding"] = tuple(int(a + b) for a, b in zip(consumer.attrs["padding"], added))
        if consumer.kind == "avg_pool2d":
            consumer.attrs["count_include_pad"] = True
        consumer.inputs[0] = pad.inputs[0]
        graph.ops.remove(pad)
        del graph.tensors[pad.outputs[0]]
    return graph
