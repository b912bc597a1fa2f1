"""Layout arithmetic the data-movement lowerings share: the user's model speaks NCHW, Ember
stores every 4-D activation NHWC (convert_to_nhwc), other ranks in PyTorch's own order.

`moved` lowers one quantized data-movement op, requantizing its input first where the output's
quantization differs (a user's quantizer config can make it so); `reshaped` builds the ops of a
reshape that keeps PyTorch's (NCHW) element order, with a transpose only where NHWC's order
actually differs.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from compiler.fixedpoint import quantize_multiplier
from compiler.ir import Graph, Op, Quant, Tensor
from compiler.quantized_pattern import ACTIVATION, activation_dtype, match, replace
from compiler.schema import program_generated as fb

NCHW_TO_NHWC_AXIS = {0: 0, 1: 3, 2: 1, 3: 2}  # PyTorch dim of a 4-D map → Ember axis
NHWC_DIMS = (0, 2, 3, 1)  # Ember axis k of a 4-D map holds PyTorch dim NHWC_DIMS[k]
TO_NCHW = (0, 3, 1, 2)  # transpose perm: NHWC storage → NCHW order
TO_NHWC = (0, 2, 3, 1)  # transpose perm: NCHW order → NHWC storage
# The `output_type` of quantize / requantize (schema DType) by the output tensor's dtype
SCHEMA_DTYPES = {"int8": fb.DType.INT8, "int16": fb.DType.INT16}


def only_reader(graph: Graph, tensor: str) -> Op | None:
    """The one op that reads `tensor`, when it is not also a program output."""
    readers = graph.consumers(tensor)
    return readers[0] if len(readers) == 1 and tensor not in graph.outputs else None


def ember_axis(dim: int, rank: int) -> int:
    """Ember axis of PyTorch dim `dim` (>= 0) of a rank-`rank` activation."""
    return NCHW_TO_NHWC_AXIS[dim] if rank == 4 else dim


def ember_perm(perm: list[int]) -> list[int]:
    """A PyTorch permutation of a rank-4 map (input and output both stored NHWC) in Ember axes."""
    if len(perm) != 4:
        return list(perm)
    return [NCHW_TO_NHWC_AXIS[perm[NHWC_DIMS[k]]] for k in range(4)]


def nhwc_is_nchw_order(shape: tuple[int, ...]) -> bool:
    """True when an [N, H, W, C] map's bytes are also in NCHW order (C == 1 or H·W == 1)."""
    n, h, w, c = shape
    return c == 1 or h * w == 1


def reshape_reorders(source: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """True when a reshape in PyTorch's row-major order is not a view of Ember's bytes: a 4-D
    side whose NHWC bytes are not in NCHW order (reshaped then goes through NCHW)."""
    return any(len(shape) == 4 and not nhwc_is_nchw_order(shape) for shape in (source, target))


def same_quant(a: Quant, b: Quant) -> bool:
    return np.array_equal(a.scale, b.scale) and np.array_equal(a.zero_point, b.zero_point)


def requantize_attrs(source: Quant, target: Quant, output_dtype: str = "int8") -> dict:
    multiplier, shift = quantize_multiplier(float(source.scale[0]) / float(target.scale[0]))
    return {"input_offset": -int(source.zero_point[0]), "output_offset": int(target.zero_point[0]),
            "output_multiplier": multiplier, "output_shift": shift, "output_type": SCHEMA_DTYPES[output_dtype]}


def requantized(graph: Graph, name: str, source: Quant, target: Quant, before: Op) -> str:
    """`name` (int8 or int16, quantized by `source`) in `target`'s quantization, the same dtype:
    itself when they agree, else the output of a `requantize` inserted ahead of `before`."""
    if same_quant(source, target):
        return name
    dtype = graph.tensors[name].dtype
    out = graph.add_tensor(Tensor(graph.unique_name(f"{name}_requantized"), dtype, graph.tensors[name].shape, target))
    graph.ops.insert(graph.ops.index(before),
                     Op("requantize", [name], [out.name], requantize_attrs(source, target, dtype), before.origin))
    return out.name


def moved(graph: Graph, op: Op, what: str, build: Callable[[str, str, Quant], list[Op]]) -> None:
    """Lowers dequantize → `op` → quantize: `build(input, output, quant)` returns the Ember ops
    from the int8 (int16) input (already in the output's quantization) to the output."""
    matched = match(graph, op, (ACTIVATION,), what)
    activation_dtype(graph, matched, what)
    (x, x_quant) = matched.sources[0]
    source = requantized(graph, x.name, x_quant, matched.out_quant, op)
    *leading, last = build(source, matched.output, matched.out_quant)
    replace(graph, matched, last)
    index = graph.ops.index(last)
    graph.ops[index:index] = leading


def reshaped(graph: Graph, source: str, target: str, origin: str) -> list[Op]:
    """Ops that give `target` the elements of `source` in PyTorch's row-major order. A 4-D
    tensor is NHWC here but NCHW in the model: its bytes go through a transpose to NCHW first
    (and a 4-D target is built in NCHW and transposed back), unless the two orders agree."""
    src, dst = graph.tensors[source], graph.tensors[target]
    ops = []

    def intermediate(stem: str, shape: tuple[int, ...]) -> str:
        return graph.add_tensor(Tensor(graph.unique_name(stem), dst.dtype, shape, dst.quant)).name

    if reshape_reorders(src.shape, ()):
        nchw = intermediate(f"{source}_nchw", tuple(src.shape[k] for k in TO_NCHW))
        ops.append(Op("transpose", [source], [nchw], {"perm": list(TO_NCHW)}, origin))
        source = nchw
    if reshape_reorders((), dst.shape):
        nchw = intermediate(f"{target}_nchw", tuple(dst.shape[k] for k in TO_NCHW))
        ops += [Op("reshape", [source], [nchw], {}, origin),
                Op("transpose", [nchw], [target], {"perm": list(TO_NHWC)}, origin)]
    else:
        ops.append(Op("reshape", [source], [target], {}, origin))
    return ops


def reduction_view(shape: tuple[int, ...], axes: list[int], reduced_last: bool) -> tuple[list[int] | None, int, int, int]:
    """How a reduction over Ember axes `axes` of a tensor stored as `shape` reads it: (a transpose
    perm to apply first, or None; outer, reduced, inner) with the bytes then [outer, reduced,
    inner]. The reduced axes are brought together (kept axes first, in storage order) when they
    are not adjacent, or when `reduced_last` asks for inner == 1."""
    axes = sorted(axes)
    kept = [a for a in range(len(shape)) if a not in axes]
    reduced = int(np.prod([shape[a] for a in axes], dtype=np.int64))
    outer = int(np.prod([shape[a] for a in range(len(shape)) if a < axes[0]], dtype=np.int64))
    inner = int(np.prod([shape[a] for a in range(len(shape)) if a > axes[-1]], dtype=np.int64))
    if axes == list(range(axes[0], axes[-1] + 1)) and not (reduced_last and inner > 1):
        return None, outer, reduced, inner
    return kept + axes, int(np.prod([shape[a] for a in kept], dtype=np.int64)), reduced, 1
