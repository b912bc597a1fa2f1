"""lower_boundaries: the quantize / dequantize ops left at the program's edges.

A quantize of a float program input becomes Ember's `quantize` (float32 → int8, or int16 where
an A16W8 layer reads the input); a dequantize
that produces a program output becomes Ember's `dequantize`. With `int8_io`, both are removed
and the program takes and returns the int8 tensors with their quantization recorded. A
quantize → dequantize pair inside the graph (two lowered ops meeting) is a no-op and vanishes.
Inside the program, around ops left in float (lower_float_ops), a quantize of a float op's
output and a dequantize read by a float op become Ember's `quantize` / `dequantize` too.
"""
from __future__ import annotations

import numpy as np

from compiler.ir import Graph
from compiler.layout import SCHEMA_DTYPES
from compiler.options import LoweringOptions


def lower_boundaries(graph: Graph, options: LoweringOptions) -> Graph:
    int8_io = options.int8_io
    for op in list(graph.ops):
        if op.kind == "quantize" and (op.inputs[0] in graph.inputs or _from_float_op(graph, op.inputs[0])):
            quant = op.attrs["quant"]
            graph.tensors[op.outputs[0]].quant = quant
            if int8_io and op.inputs[0] in graph.inputs:
                graph.inputs[graph.inputs.index(op.inputs[0])] = op.outputs[0]
                graph.ops.remove(op)
            else:
                op.attrs = {"inv_scale": np.float32(1.0 / float(quant.scale[0])),
                            "zero_point": int(quant.zero_point[0]),
                            "output_type": SCHEMA_DTYPES[graph.tensors[op.outputs[0]].dtype]}
        elif op.kind == "dequantize" and not op.attrs.get("per_channel"):
            source = graph.tensors[op.inputs[0]]
            if source.dtype not in SCHEMA_DTYPES:
                continue
            quant = op.attrs["quant"]
            source.quant = quant
            read_by_float_ops = bool(graph.consumers(op.outputs[0]))  # all else is lowered by now
            if op.outputs[0] in graph.outputs and int8_io and not read_by_float_ops:
                graph.replace_uses(op.outputs[0], op.inputs[0])
                graph.ops.remove(op)
            elif op.outputs[0] in graph.outputs or read_by_float_ops:
                op.attrs = {"scale": np.float32(quant.scale[0]), "zero_point": int(quant.zero_point[0])}
    return graph


def _from_float_op(graph: Graph, tensor: str) -> bool:
    producer = graph.producer(tensor)
    return producer is not None and "float_reason" in producer.attrs
