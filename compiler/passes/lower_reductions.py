"""lower_reductions: mean and sum over any dims (`x.mean([2, 3])`, `x.sum(-1)`, keepdim or not,
rank 1 to 4) become Ember's own ops, int8 (int16 in an A16W8 layer) or float32.

Seen in Ember's storage order (NHWC for 4-D maps), the reduced axes are brought together
(a transpose only when they are not adjacent), so the input reads as [outer, R, inner]:
- int8 mean with inner > 1: an average pool with an (R, 1) window over [outer, R, 1, inner]
  (mean shares its input's quantization, CortexMQuantizer) — a global average pool over H and W
  is exactly this;
- otherwise (inner == 1, or a sum, whose reduced axes are then moved last): a fully connected
  layer with one row of ones over [outer, R], requantized by input scale / output scale (/ R for
  a mean): one rounding, as PyTorch's quantized model rounds once;
- float32 (an op left in float): the float fully connected layer likewise, weights 1 (1/R).
The result is reshaped to the output's shape (layout.reshaped).
"""
from __future__ import annotations

import numpy as np

from compiler.ir import Graph, Op, Quant, Tensor
from compiler.options import LoweringOptions
from compiler.layout import ember_axis, reduction_view, requantized, reshape_reorders, reshaped
from compiler.quantized_pattern import ACTIVATION, activation_dtype, add_constant, match, replace, requantization


def _kept_shape(x: Tensor, axes: list[int]) -> tuple[int, ...]:
    return tuple(1 if a in axes else d for a, d in enumerate(x.shape))


def _intermediate(graph: Graph, stem: str, dtype: str, shape: tuple[int, ...], quant: Quant | None) -> str:
    return graph.add_tensor(Tensor(graph.unique_name(stem), dtype, shape, quant)).name


def _axes(graph: Graph, op: Op) -> list[int]:
    rank = len(graph.tensors[op.inputs[0]].shape)
    return sorted({ember_axis(d, rank) for d in op.attrs["dims"]})


class _Builder:
    """The ops of one reduction, from its input to its output, in order."""

    def __init__(self, graph: Graph, op: Op, x: Tensor, quant: Quant | None) -> None:
        self.graph, self.op, self.x, self.quant = graph, op, x, quant
        self.ops: list[Op] = []

    def add(self, kind: str, inputs: list[str], shape: tuple[int, ...], attrs: dict, output: str = "") -> str:
        output = output or _intermediate(self.graph, f"{self.op.outputs[0]}_{kind}", self.x.dtype, shape, self.quant)
        self.ops.append(Op(kind, inputs, [output], attrs, self.op.origin))
        return output

    def view(self, source: str, shape: tuple[int, ...], output: str = "") -> str:
        """`source`'s bytes under `shape` (a reshape: an alias)."""
        if tuple(self.graph.tensors[source].shape) == tuple(shape) and not output:
            return source
        return self.add("reshape", [source], shape, {}, output)

    def gathered(self, source: str, perm: list[int] | None) -> str:
        if perm is None:
            return source
        return self.add("transpose", [source], tuple(self.x.shape[p] for p in perm), {"perm": perm})

    def finish(self, result: str, axes: list[int], output: str) -> list[Op]:
        """From the [outer, inner] result to `output`: its bytes as the kept shape (reduced axes
        1, Ember's storage order), then the output's shape in PyTorch's order."""
        kept = _kept_shape(self.x, axes)
        if kept == tuple(self.graph.tensors[output].shape):
            self.view(result, kept, output)
        else:
            self.ops += reshaped(self.graph, self.view(result, kept), output, self.op.origin)
        return self.ops

    def ones_fully_connected(self, rows: str, outer: int, reduced: int, weights: np.ndarray, bias: np.ndarray,
                             kind: str, attrs: dict) -> str:
        stem = self.op.outputs[0]
        dtype = "int8" if kind == "fully_connected" else "float32"
        w = add_constant(self.graph, f"{stem}_ones", dtype, weights.reshape(1, reduced),
                         Quant.per_tensor(1.0, 0) if dtype == "int8" else None)
        b = add_constant(self.graph, f"{stem}_bias", "int32" if dtype == "int8" else "float32", bias)
        return self.add(kind, [rows, w, b], (outer, 1), attrs)


def _name_the_rounding_op(graph: Graph, ops: list[Op], computed: str, output: str) -> None:
    """`computed` (the pool's or the fully connected layer's output) takes the name PyTorch gave
    the result (`output`), and the view that ends the chain the derived one: the bytes are the
    same, a fold may remove the views (a linear reads through a flatten), and tools/debug_numerics
    then still finds PyTorch's codes for the op that rounds."""
    graph.replace_uses(output, computed)  # the reduction's readers read the last view
    a, b = graph.tensors[computed], graph.tensors[output]
    a.name, b.name = output, computed
    graph.tensors[output], graph.tensors[computed] = a, b
    swap = {computed: output, output: computed}
    for op in ops:
        op.inputs = [swap.get(t, t) for t in op.inputs]
        op.outputs = [swap.get(t, t) for t in op.outputs]


def _lower_int8(graph: Graph, op: Op) -> None:
    matched = match(graph, op, (ACTIVATION,), op.attrs["function"])
    dtype = activation_dtype(graph, matched, op.attrs["function"])  # int16: an A16W8 mean (zero points 0)
    limits = np.iinfo(dtype)
    (x, x_quant), out_quant = matched.sources[0], matched.out_quant
    axes = _axes(graph, op)
    mean = op.attrs["function"] == "mean"
    perm, outer, reduced, inner = reduction_view(tuple(x.shape), axes, reduced_last=not mean)
    build = _Builder(graph, op, x, out_quant)
    if mean and inner > 1:  # an average pool keeps the quantization: the input is brought to the output's
        source = build.gathered(requantized(graph, x.name, x_quant, out_quant, op), perm)
        result = build.add("avg_pool2d", [build.view(source, (outer, reduced, 1, inner))], (outer, 1, 1, inner), {
            "kernel": (reduced, 1), "stride": (1, 1), "padding": (0, 0, 0, 0), "count_include_pad": True,
            "zero_point": int(out_quant.zero_point[0]), "activation_min": int(limits.min), "activation_max": int(limits.max)})
    else:
        build.quant = x_quant
        rows = build.view(build.gathered(x.name, perm), (outer, reduced))
        build.quant = out_quant
        real = float(x_quant.scale[0]) / float(out_quant.scale[0]) / (reduced if mean else 1)
        multiplier, shift = requantization(np.array([real]))
        result = build.ones_fully_connected(
            rows, outer, reduced, np.ones(reduced, np.int8), np.array([-int(x_quant.zero_point[0]) * reduced], np.int32),
            "fully_connected", {"multiplier": multiplier, "shift": shift, "output_offset": int(out_quant.zero_point[0]),
                                "activation_min": int(limits.min), "activation_max": int(limits.max)})
    *leading, last = build.finish(result, axes, matched.output)
    kept, shape = _kept_shape(x, axes), graph.tensors[matched.output].shape
    if (kept == tuple(shape) or not reshape_reorders(kept, shape)) and matched.output not in graph.outputs:
        _name_the_rounding_op(graph, [*leading, last], result, matched.output)  # only views follow it
    replace(graph, matched, last)
    index = graph.ops.index(last)
    graph.ops[index:index] = leading


def float_reduction(graph: Graph, op: Op) -> list[Op]:
    """The float32 ops of a mean / sum left in float (lower_float_ops)."""
    x = graph.tensors[op.inputs[0]]
    axes = _axes(graph, op)
    perm, outer, reduced, _ = reduction_view(tuple(x.shape), axes, reduced_last=True)
    build = _Builder(graph, op, x, None)
    rows = build.view(build.gathered(x.name, perm), (outer, reduced))
    weight = 1.0 / reduced if op.attrs["function"] == "mean" else 1.0
    result = build.ones_fully_connected(rows, outer, reduced, np.full(reduced, weight, np.float32),
                                        np.zeros(1, np.float32), "float_fully_connected",
                                        {"activation_min": float("-inf"), "activation_max": float("inf"),
                                         "float_reason": op.attrs["float_reason"]})
    ops = build.finish(result, axes, op.outputs[0])
    for lowered in ops:  # every op of the chain is float: a quantize after it is a boundary
        lowered.attrs["float_reason"] = op.attrs["float_reason"]
    return ops


def lower_reductions(graph: Graph, options: LoweringOptions) -> Graph:
    for op in [op for op in graph.ops if op.kind == "aten.reduce"]:
        _lower_int8(graph, op)
    return graph
