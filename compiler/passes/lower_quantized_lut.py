"""lower_quantized_lut: dequantize → elementwise function → quantize becomes a `lut`.

The function is an activation, a clamp that could not fold into its producer, or a whole
pointwise region of one tensor (compiler/pointwise.py: `x * sigmoid(x)`, PReLU, Mish, `x * 0.5`
…). The table is PyTorch's own computation on every int8 code: dequantize_per_tensor, the ATen
ops in float32, quantize_per_tensor — so the device agrees with PyTorch's quantized model bit for
bit, whatever the function. Where a constant of the function varies along one dim (a PReLU slope
per channel), the table has one row of 256 entries per position along it: int8 [C, 256], and the
op's `axis` is that dim's axis in Ember's layout.
"""
from __future__ import annotations

import numpy as np
import torch

from compiler.errors import UnsupportedOpError
from compiler.ir import Graph, Op, Quant
from compiler.options import LoweringOptions
from compiler.layout import ember_axis
from compiler.quantized_pattern import add_constant, match, replace

qd = torch.ops.quantized_decomposed
ACTIVATIONS = ("aten.elementwise", "aten.clamp", "aten.pointwise")


def _function(op: Op):
    if op.kind == "aten.clamp":
        return lambda x: torch.clamp(x, op.attrs["min"], op.attrs["max"])
    return op.attrs["function"]


def table(function, source: Quant, target: Quant, rank: int = 0) -> tuple[np.ndarray, int | None]:
    """(int8 table, PyTorch dim it varies along or None): [256], entry k the output code for
    input code k − 128; or [C, 256], row c for position c along that dim of a rank-`rank` input."""
    codes = torch.arange(-128, 128, dtype=torch.int8).reshape((256,) + (1,) * rank)
    x = qd.dequantize_per_tensor(codes, float(source.scale[0]), int(source.zero_point[0]), -128, 127, torch.int8)
    with torch.no_grad():
        y = function(x)
    q = qd.quantize_per_tensor(y.float(), float(target.scale[0]), int(target.zero_point[0]), -128, 127, torch.int8)
    if q.dim() != rank + 1:
        raise ValueError(f"its values have {q.dim() - 1} dims, its input {rank}")
    varying = [dim for dim in range(rank) if not torch.equal(q, q.narrow(dim + 1, 0, 1).expand_as(q))]
    if len(varying) > 1:
        raise ValueError(f"the function's values vary along dims {varying} of its input")
    if not varying:
        return q.reshape(256, -1)[:, 0].numpy().astype(np.int8), None
    (dim,) = varying
    rows = q.movedim(dim + 1, 0).reshape(q.shape[dim + 1], 256, -1)[:, :, 0]  # [C, 256]
    return np.ascontiguousarray(rows.numpy()).astype(np.int8), dim


def lower_quantized_lut(graph: Graph, options: LoweringOptions) -> Graph:
    for op in [op for op in graph.ops if op.kind in ACTIVATIONS]:
        matched = match(graph, op, ("int8",), op.attrs.get("name", "activation"))
        (x, x_quant) = matched.sources[0]
        rank = len(x.shape)
        try:
            entries, dim = table(_function(op), x_quant, matched.out_quant, rank)
        except ValueError as error:
            raise UnsupportedOpError(f"elementwise {op.attrs.get('name', 'function')}", op.origin,
                                     f"It is tabulated per int8 code, but {error}.") from None
        table_name = add_constant(graph, f"{op.outputs[0]}_table", "int8", entries)
        attrs = {} if dim is None else {"axis": ember_axis(dim, rank)}
        replace(graph, matched, Op("lut", [x.name, table_name], [matched.output], attrs, op.origin))
    return graph
