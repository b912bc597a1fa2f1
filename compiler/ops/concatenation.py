"""concatenation: int8 tensors sharing one quantization, joined along an axis (a strided copy);
or int16 ones (an A16W8 layer's, zero point 0; raw audio samples: a streamed front end's history
joined to its new samples, passes/stream_frames.py).

Lowering: dequantize → cat → quantize becomes `concatenation` on the
int8 codes; PyTorch's dim is mapped to Ember's NHWC axis for 4-D maps.

CortexMQuantizer makes every input share the output's quantization where that is free, so the
device only copies. An input quantized otherwise (a user's quantizer config, or a value whose
quantization is fixed elsewhere) is requantized onto the output's first (layout.requantized).
More inputs than one op takes (an unrolled RNN's time steps) are joined in groups of
concatenation.MAX_INPUTS first, then the groups.
"""
from __future__ import annotations

import numpy as np
import torch
from torch.fx import Node

from compiler import reference
from compiler.errors import UnsupportedOpError
from compiler.ir import Graph, Op, Tensor
from compiler.layout import ember_axis, requantized
from compiler.ops.spec import Import, Lowering, OpSpec, int_options
from compiler.quantized_pattern import ACTIVATION, activation_dtype, match, replace
from compiler.schema import program_generated as fb

aten = torch.ops.aten


# Most inputs one CONCATENATION takes (EM_CONCAT_MAX_INPUTS, runtime/ops/em_op_concatenation.c: the
# adapter's operands live on its stack); lowering joins more in groups.
MAX_INPUTS = 8


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    if all(np.asarray(x).dtype == np.int16 for x in inputs):
        return [reference.concat_s16(inputs, axis=op.attrs["axis"])]
    return [reference.concat_s8(inputs, axis=op.attrs["axis"])]


_write, _read = int_options("ConcatenationOptions", (("axis", "Axis"),))


def _lower(graph: Graph, cat: Op) -> None:
    matched = match(graph, cat, (ACTIVATION,) * len(cat.inputs), "cat")
    dtype = activation_dtype(graph, matched, "cat")
    if any(t.dtype != dtype for t, _ in matched.sources):
        raise UnsupportedOpError(f"cat of {', '.join(sorted({t.dtype for t, _ in matched.sources}))} tensors",
                                 cat.origin, "Quantize its inputs alike (CortexMQuantizer does).")
    inputs = [requantized(graph, t.name, quant, matched.out_quant, cat) for t, quant in matched.sources]
    axis = ember_axis(cat.attrs["dim"], cat.attrs["rank"])
    grouped: list[Op] = []
    while len(inputs) > MAX_INPUTS:
        inputs = [_joined(graph, inputs[k:k + MAX_INPUTS], axis, cat, grouped)
                  for k in range(0, len(inputs), MAX_INPUTS)]
    last = Op("concatenation", inputs, [matched.output], {"axis": axis}, cat.origin)
    replace(graph, matched, last)
    index = graph.ops.index(last)
    graph.ops[index:index] = grouped


def _joined(graph: Graph, parts: list[str], axis: int, cat: Op, ops: list[Op]) -> str:
    """One tensor of `parts` joined along `axis` (itself when there is one part)."""
    if len(parts) == 1:
        return parts[0]
    first = graph.tensors[parts[0]]
    shape = list(first.shape)
    shape[axis] = sum(graph.tensors[p].shape[axis] for p in parts)
    joined = graph.add_tensor(Tensor(graph.unique_name(f"{cat.outputs[0]}_part"), first.dtype, tuple(shape), first.quant))
    ops.append(Op("concatenation", parts, [joined.name], {"axis": axis}, cat.origin))
    return joined.name


def _import_cat(node: Node, args: list) -> tuple[str, dict]:
    dim = node.args[1] if len(node.args) > 1 else 0
    rank = node.args[0][0].meta["val"].dim()
    return "aten.cat", {"dim": int(dim) % rank, "rank": rank}


CONCATENATION = OpSpec(
    kind="concatenation",
    opcode=fb.OpCode.CONCATENATION,
    options_type=fb.OpOptions.ConcatenationOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_concatenation",
    imports=(Import((aten.cat.default,), _import_cat, "concatenation", int16=True),),
    lowerings=(Lowering(("aten.cat",), _lower),),
    path={"*": "row copies"},
)
