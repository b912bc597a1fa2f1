"""lut: int8 → int8 through a 256-entry table (activations such as sigmoid, tanh, hardswish), one
for every element ([256]) or one per channel ([C, 256], row c for index c along attr `axis`;
absent: the last axis; PReLU with per-channel slopes, a per-channel scale then an activation).
int16 → int16 (A16W8) through a table sampled every 2^k codes and interpolated (reference.lut_s16:
[2^(16−k) + 1] or [C, 2^(16−k) + 1]), k the coarsest that keeps every int16 code within 1 LSB of
PyTorch's computation (table_s16: 513 entries for most activations, up to 8193).

Lowering: dequantize → elementwise function → quantize becomes a `lut`.

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
from torch.fx import Node

from compiler import reference, streaming
from compiler.errors import UnsupportedOpError
from compiler.ir import Graph, Op, Quant
from compiler.layout import ember_axis
from compiler.ops import overlap
from compiler.ops.spec import Import, Lowering, OpSpec
from compiler.quantized_pattern import ACTIVATION, activation_dtype, add_constant, match, replace
from compiler.schema import program_generated as fb

aten = torch.ops.aten


LAST_AXIS = -1  # LutOptions.axis's default: NumPy's convention, negative counted from the end
# em_lut_channels_s8.c: the shortest run of one channel that MVE maps with em_lut_s8's gather.
LUT_MVE_RUN_MIN = 16


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    tabulate = reference.lut_s16 if np.asarray(inputs[0]).dtype == np.int16 else reference.lut_s8
    return [tabulate(inputs[0], inputs[1], axis=op.attrs.get("axis", LAST_AXIS))]


def _write(builder, op: Op) -> int:
    fb.LutOptionsStart(builder)
    fb.LutOptionsAddAxis(builder, op.attrs.get("axis", LAST_AXIS))  # the default is not stored
    return fb.LutOptionsEnd(builder)


def _read(table) -> dict:
    options = fb.LutOptions()
    options.Init(table.Bytes, table.Pos)
    axis = options.Axis()
    return {} if axis == LAST_AXIS else {"axis": axis}


def _path(graph: Graph, op: Op, tier: str, chosen: frozenset[str]) -> str:
    """em_op_lut.c: a [256] table runs em_lut_s8 (MVE 16-lane byte gather, else scalar); a
    [C, 256] one em_lut_channels_s8 over [outer, C, inner] around `axis` (absent: the last):
    on MVE 8 channels a gather when inner == 1, em_lut_s8 per run when inner >= LUT_MVE_RUN_MIN,
    else (and on the other tiers) scalar."""
    x, table = graph.tensors[op.inputs[0]], graph.tensors[op.inputs[1]]
    if x.dtype == "int16":
        return f"int16 table of {table.shape[-1]} entries, interpolated{'' if len(table.shape) == 1 else ', per channel'}; scalar"
    if len(table.shape) == 1:
        return "MVE 16-lane byte gather" if tier == "mve" else "scalar"
    axis = op.attrs.get("axis", LAST_AXIS) % len(x.shape)
    inner = int(np.prod(x.shape[axis + 1:], dtype=np.int64))
    if tier == "mve" and inner == 1:
        return "per-channel tables, the channel last; MVE 8 lanes per gather, each from its channel's row"
    if tier == "mve" and inner >= LUT_MVE_RUN_MIN:
        return f"per-channel tables, runs of {inner}; MVE 16-lane byte gather per run"
    return f"per-channel tables, runs of {inner}; scalar"


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
    dim = _varying_dim(q, rank)
    if dim is None:
        return q.reshape(256, -1)[:, 0].numpy().astype(np.int8), None
    rows = q.movedim(dim + 1, 0).reshape(q.shape[dim + 1], 256, -1)[:, :, 0]  # [C, 256]
    return np.ascontiguousarray(rows.numpy()).astype(np.int8), dim


def _varying_dim(q: torch.Tensor, rank: int) -> int | None:
    """The one dim of the input a tabulated function's values vary along (None: none)."""
    if q.dim() != rank + 1:
        raise ValueError(f"its values have {q.dim() - 1} dims, its input {rank}")
    varying = [dim for dim in range(rank) if not torch.equal(q, q.narrow(dim + 1, 0, 1).expand_as(q))]
    if len(varying) > 1:
        raise ValueError(f"the function's values vary along dims {varying} of its input")
    return varying[0] if varying else None


def table_s16(function, source: Quant, target: Quant, rank: int = 0) -> tuple[np.ndarray, int | None]:
    """(int16 table, PyTorch dim it varies along or None) of an A16W8 function (reference.lut_s16):
    PyTorch's own computation at every 2^k-th int16 code (and at 32768, the last interval's end),
    k the coarsest of LUT_S16_STEP_LOG2 whose interpolation keeps every code within 1 LSB of that
    computation on that code (the finest when none does); [E] or [C, E] as `table`."""
    codes = torch.arange(-32768, 32768, dtype=torch.int16).reshape((65536,) + (1,) * rank)
    scale, zero_point = float(source.scale[0]), int(source.zero_point[0])
    x = qd.dequantize_per_tensor(codes, scale, zero_point, -32768, 32767, torch.int16)
    end = (torch.full((1,) + (1,) * rank, 32768.0) - zero_point) * scale  # the formula, one code past the range
    with torch.no_grad():
        y = function(torch.cat([x, end]))
    q = qd.quantize_per_tensor(y.float(), float(target.scale[0]), int(target.zero_point[0]), -32768, 32767, torch.int16)
    dim = _varying_dim(q, rank)
    if dim is None:
        rows = q.reshape(65537, -1)[:, 0].reshape(1, 65537)
    else:
        rows = q.movedim(dim + 1, 0).reshape(q.shape[dim + 1], 65537, -1)[:, :, 0]  # [C, 65537]
    rows = rows.numpy().astype(np.int64)
    inputs = np.arange(-32768, 32768, dtype=np.int16)
    for k in reference.LUT_S16_STEP_LOG2:
        entries = rows[:, ::1 << k]
        worst = max(int(np.abs(reference.lut_s16(inputs, row).astype(np.int64) - full[:65536]).max())
                    for row, full in zip(entries, rows))
        if worst <= 1:
            break
    entries = entries.astype(np.int16)
    return (entries[0], None) if dim is None else (np.ascontiguousarray(entries), dim)


def _lower(graph: Graph, op: Op) -> None:
    matched = match(graph, op, (ACTIVATION,), op.attrs.get("name", "activation"))
    dtype = activation_dtype(graph, matched, op.attrs.get("name", "activation"))
    (x, x_quant) = matched.sources[0]
    rank = len(x.shape)
    try:
        entries, dim = (table_s16 if dtype == "int16" else table)(_function(op), x_quant, matched.out_quant, rank)
    except ValueError as error:
        raise UnsupportedOpError(f"elementwise {op.attrs.get('name', 'function')}", op.origin,
                                 f"It is tabulated per {dtype} code, but {error}.") from None
    table_name = add_constant(graph, f"{op.outputs[0]}_table", dtype, entries)
    attrs = {} if dim is None else {"axis": ember_axis(dim, rank)}
    replace(graph, matched, Op("lut", [x.name, table_name], [matched.output], attrs, op.origin))


def _import_elementwise(node: Node, args: list) -> tuple[str, dict]:
    """A float activation, kept as the ATen call itself so a table of it computes exactly what
    PyTorch's quantized model computes."""
    target, extra, kwargs = node.target, tuple(node.args[1:]), dict(node.kwargs)
    return "aten.elementwise", {"name": str(target), "function": lambda x: target(x, *extra, **kwargs),
                                "args": extra, "kwargs": kwargs}


def _import_relu(node: Node, args: list) -> tuple[str, dict]:
    return "aten.clamp", {"min": 0.0, "max": float("inf")}


HARDTANH_DEFAULTS = (-1.0, 1.0)  # aten.hardtanh(input, min_val=-1, max_val=1)


def _import_hardtanh(node: Node, args: list) -> tuple[str, dict]:
    low, high = (*node.args[1:3], *HARDTANH_DEFAULTS[len(node.args) - 1:])
    return "aten.clamp", {"min": float(low), "max": float(high)}


def _stream(graph: Graph, op: Op, axes: dict[int, int]) -> streaming.Framewise | None:
    """Framewise, unless its tables are per channel along the time axis itself."""
    rule = streaming.framewise(graph, op, {0: axes[0]} if 0 in axes else axes)
    per_channel = len(graph.tensors[op.inputs[1]].shape) == 2
    rank = len(graph.tensors[op.inputs[0]].shape)
    if rule is not None and per_channel and op.attrs.get("axis", LAST_AXIS) % rank == rule.axis:
        return None
    return rule


LUT = OpSpec(
    kind="lut",
    opcode=fb.OpCode.LUT,
    options_type=fb.OpOptions.LutOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_lut",
    imports=(Import((aten.sigmoid.default, aten.tanh.default, aten.hardswish.default, aten.hardsigmoid.default,
                     aten.leaky_relu.default, aten.gelu.default, aten.silu.default), _import_elementwise),
             Import((aten.relu.default, aten.relu_.default), _import_relu, activation=True),
             Import((aten.hardtanh.default, aten.hardtanh_.default), _import_hardtanh, activation=True)),
    lowerings=(Lowering(ACTIVATIONS, _lower),),
    in_place=overlap.elementwise,
    path=_path,
    stream=_stream,
    int16_kernel=True,
)
