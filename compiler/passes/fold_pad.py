"""fold_pad: a constant `pad` of real 0 (its value is the input's zero point) over H and W only,
read by nothing but one op that takes such a pad into its own padding (its record's
`take_zero_pad`: conv2d, depthwise_conv2d, avg_pool2d), becomes that op's padding.

Exact because those ops' padding cells already hold the input zero point (real 0). max_pool2d
never takes one: its padding never wins, the pad's zero point would.
"""
from __future__ import annotations

import numpy as np

from compiler.ir import Graph, Op
from compiler.ops import OP_TABLE
from compiler.options import LoweringOptions


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


def _taken(consumer: Op, pad: Op, added: tuple[int, int, int, int]) -> bool:
    spec = OP_TABLE.get(consumer.kind)
    take = spec.take_zero_pad if spec is not None else None
    return take is not None and consumer.inputs[0] == pad.outputs[0] and take(consumer, pad, added)


def fold_pad(graph: Graph, options: LoweringOptions) -> Graph:
    for pad in [op for op in graph.ops if op.kind == "pad"]:
        readers = graph.consumers(pad.outputs[0])
        added = _hw_padding(graph, pad)
        if added is None or len(readers) != 1 or pad.outputs[0] in graph.outputs or not _taken(readers[0], pad, added):
            continue
        readers[0].inputs[0] = pad.inputs[0]
        graph.ops.remove(pad)
        del graph.tensors[pad.outputs[0]]
    return graph
