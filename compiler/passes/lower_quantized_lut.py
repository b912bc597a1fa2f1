"""lower_quantized_lut: dequantize → elementwise activation → quantize becomes a 256-entry `lut`.

The table is PyTorch's own computation on every int8 code: dequantize_per_tensor, the ATen
activation in float32, quantize_per_tensor — so the device agrees with PyTorch's quantized model
bit for bit, whatever the function (sigmoid, tanh, hardswish, GELU …). ReLU and hardtanh reach
here only when they could not fold into their producer.
"""
from __future__ import annotations

import numpy as np
import torch

from compiler.ir import Graph, Op, Quant
from compiler.options import LoweringOptions
from compiler.passes.quantized_pattern import add_constant, match, replace

qd = torch.ops.quantized_decomposed
ACTIVATIONS = ("aten.elementwise", "aten.clamp")


def _function(op: Op):
    if op.kind == "aten.clamp":
        return lambda x: torch.clamp(x, op.attrs["min"], op.attrs["max"])
    return op.attrs["function"]


def table(function, source: Quant, target: Quant) -> np.ndarray:
    """int8 [256]: entry k is the output code for input code k − 128."""
    codes = torch.arange(-128, 128, dtype=torch.int8)
    x = qd.dequantize_per_tensor(codes, float(source.scale[0]), int(source.zero_point[0]), -128, 127, torch.int8)
    y = function(x)
    q = qd.quantize_per_tensor(y, float(target.scale[0]), int(target.zero_point[0]), -128, 127, torch.int8)
    return q.numpy().astype(np.int8)


def lower_quantized_lut(graph: Graph, options: LoweringOptions) -> Graph:
    for op in [op for op in graph.ops if op.kind in ACTIVATIONS]:
        matched = match(graph, op, ("int8",), op.attrs.get("name", "activation"))
        (x, x_quant) = matched.sources[0]
        entries = table(_function(op), x_quant, matched.out_quant)
        table_name = add_constant(graph, f"{op.outputs[0]}_table", "int8", entries)
        replace(graph, matched, Op("lut", [x.name, table_name], [matched.output], {}, op.origin))
    return graph
