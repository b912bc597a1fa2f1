"""lower_float_ops: every op that stays in float (attrs["float_reason"], set by the importer: left
in float by the quantizer's config, or no int8 lowering) becomes a float32 Ember op.

Runs after convert_to_nhwc and fold_activations, before the quantized lowerings, so those see
only quantized ops. The float op keeps its inputs: where one is a dequantize of an int8 tensor
(the int8 / float boundary PT2E leaves), that dequantize stays and becomes Ember's `dequantize`;
where its output feeds a quantize (the next op is int8), that quantize becomes Ember's `quantize`
(lower_boundaries). The lowerings are the float ops' (OpSpec.float_lowerings): weights laid out as
the float kernels read them (conv [O, KH, KW, I/g]), constant operands of a broadcasting op on a
4-D map in the map's NHWC layout, a ReLU / ReLU6 / hardtanh folded into the op (fold_activations)
as its output clamp.

An op left in float for which no float32 kernel exists is a compile-time error naming it.
"""
from __future__ import annotations

from collections.abc import Callable

from compiler.errors import UnsupportedOpError
from compiler.ir import Graph, Op
from compiler.ops import OP_TABLE
from compiler.options import LoweringOptions
from compiler.passes.lower_reductions import float_reduction

# Imported kind → its float32 lowering (the float ops' records, OpSpec.float_lowerings; a mean or
# sum becomes a float fully connected row, lower_reductions): one op, or the ops from the input to
# the output in order.
FLOAT_LOWERINGS: dict[str, Callable[[Graph, Op], Op | list[Op]]] = {
    **{kind: lower for spec in OP_TABLE.values() for kind, lower in spec.float_lowerings.items()},
    "aten.reduce": float_reduction,
}


def lower_float_ops(graph: Graph, options: LoweringOptions) -> Graph:
    for op in [op for op in graph.ops if "float_reason" in op.attrs]:
        lowering = FLOAT_LOWERINGS.get(op.kind)
        if lowering is None:
            raise UnsupportedOpError(f"{op.kind.removeprefix('aten.')} in float ({op.attrs['float_reason']})",
                                     op.origin, "Ember has no float32 kernel for it: quantize it (remove it "
                                     "from CortexMQuantizer's skip options).")
        for name in op.inputs:
            if graph.tensors[name].dtype != "float32":
                raise UnsupportedOpError(f"float {op.kind.removeprefix('aten.')} on a {graph.tensors[name].dtype} "
                                         "tensor", op.origin)
        lowered = lowering(graph, op)
        index = graph.ops.index(op)
        graph.ops[index:index + 1] = lowered if isinstance(lowered, list) else [lowered]
    return graph
