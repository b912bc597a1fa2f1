"""lower_quantized_pad: dequantize → constant pad → quantize (shared quantization) becomes
`pad` on the int8 codes; PyTorch's pad list (last dim first) is mapped to Ember's axes, and the
pad value is quantized exactly as PyTorch quantizes the padded float."""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.ir import Graph, Op, Quant
from compiler.options import LoweringOptions
from compiler.layout import ember_axis, moved


def _pad_op(op: Op, rank: int) -> callable:
    def build(source: str, output: str, quant: Quant) -> list[Op]:
        before, after = [0] * rank, [0] * rank
        pad = op.attrs["pad"]
        for i in range(len(pad) // 2):
            axis = ember_axis(rank - 1 - i, rank)
            before[axis], after[axis] = pad[2 * i], pad[2 * i + 1]
        code = reference.quantize_f32_s8(np.array([op.attrs["value"]], np.float32),
                                         np.float32(1.0 / float(quant.scale[0])), int(quant.zero_point[0]))
        return [Op("pad", [source], [output], {"before": before, "after": after, "value": int(code[0])}, op.origin)]
    return build


def lower_quantized_pad(graph: Graph, options: LoweringOptions) -> Graph:
    for pad in [op for op in graph.ops if op.kind == "aten.pad"]:
        moved(graph, pad, "pad", _pad_op(pad, len(graph.tensors[pad.outputs[0]].shape)))
    return graph
