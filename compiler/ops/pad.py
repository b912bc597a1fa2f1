"""pad: a constant border around any tensor (dtype-generic: the kernel moves bytes).

Lowering: dequantize → constant pad → quantize (shared quantization) becomes
`pad` on the int8 codes; PyTorch's pad list (last dim first) is mapped to Ember's axes, and the
pad value is quantized exactly as PyTorch quantizes the padded float.
"""
from __future__ import annotations

import numpy as np
import torch
from torch.fx import Node

from compiler import ops, reference
from compiler.aten_node import given_args, origin_of
from compiler.errors import UnsupportedOpError
from compiler.ir import Graph, Op, Quant
from compiler.layout import ember_axis, moved
from compiler.quantized_pattern import QUANTIZE_TO
from compiler.ops.int16_path import by_precision
from compiler.ops.spec import Import, Lowering, OpSpec, int_list, int_vector
from compiler.schema import program_generated as fb

aten = torch.ops.aten


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    (x,) = inputs
    value = op.attrs.get("float_value", 0.0) if x.dtype == np.float32 else op.attrs.get("value", 0)
    return [reference.pad(x, before=op.attrs["before"], after=op.attrs["after"], value=value)]


def _write(builder, op: Op) -> int:
    before, after = int_vector(builder, op.attrs["before"]), int_vector(builder, op.attrs["after"])
    fb.PadOptionsStart(builder)
    fb.PadOptionsAddBefore(builder, before)
    fb.PadOptionsAddAfter(builder, after)
    fb.PadOptionsAddValue(builder, int(op.attrs.get("value", 0)))
    float_value = float(op.attrs.get("float_value", 0.0))
    # -0.0 == the default 0.0, so FlatBuffers would drop it and the border would read +0.0
    builder.ForceDefaults(bool(np.signbit(float_value)))
    fb.PadOptionsAddFloatValue(builder, float_value)
    builder.ForceDefaults(False)
    return fb.PadOptionsEnd(builder)


def _read(table) -> dict:
    o = fb.PadOptions()
    o.Init(table.Bytes, table.Pos)
    return {"before": int_list(o, "Before"), "after": int_list(o, "After"), "value": o.Value(),
            "float_value": np.float32(o.FloatValue())}


def _pad_op(graph: Graph, op: Op, rank: int) -> callable:
    def build(source: str, output: str, quant: Quant) -> list[Op]:
        before, after = [0] * rank, [0] * rank
        pad = op.attrs["pad"]
        for i in range(len(pad) // 2):
            axis = ember_axis(rank - 1 - i, rank)
            before[axis], after[axis] = pad[2 * i], pad[2 * i + 1]
        quantize = QUANTIZE_TO[graph.tensors[output].dtype]
        code = quantize(np.array([op.attrs["value"]], np.float32), np.float32(1.0 / float(quant.scale[0])),
                        int(quant.zero_point[0]))
        return [Op("pad", [source], [output], {"before": before, "after": after, "value": int(code[0])}, op.origin)]
    return build


def _lower(graph: Graph, pad: Op) -> None:
    moved(graph, pad, "pad", _pad_op(graph, pad, len(graph.tensors[pad.outputs[0]].shape)))


def _import_pad(node: Node, args: list) -> tuple[str, dict]:
    if node.target == aten.constant_pad_nd.default:
        pad, value = given_args(node, (None, 0.0))
    else:
        pad, mode, value = given_args(node, (None, "constant", None))
        if mode != "constant":
            raise UnsupportedOpError(f"pad with mode {mode!r}", origin_of(node),
                                     "Only constant padding lowers in this release (F.pad(..., mode='constant')).")
    if any(int(p) < 0 for p in pad):
        raise UnsupportedOpError(f"pad by negative amounts {list(pad)}", origin_of(node),
                                 "Crop with slicing instead.")
    return "aten.pad", {"pad": [int(p) for p in pad], "value": float(value or 0.0)}


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
    spec = ops.OP_TABLE.get(consumer.kind)  # the table, read at fold time
    take = spec.take_zero_pad if spec is not None else None
    return take is not None and consumer.inputs[0] == pad.outputs[0] and take(consumer, pad, added)


def _fold(graph: Graph) -> bool:
    """A pad of real 0 (its value is the input's zero point) over H and W only, read by nothing
    but one op that takes such a pad into its own padding (OpSpec.take_zero_pad: conv2d,
    depthwise_conv2d, avg_pool2d), becomes that op's padding: exact, because those ops' padding
    cells already hold the input zero point (real 0). max_pool2d never takes one: its padding
    never wins, the pad's zero point would."""
    changed = False
    for pad in [op for op in graph.ops if op.kind == "pad"]:
        readers = graph.consumers(pad.outputs[0])
        added = _hw_padding(graph, pad)
        if added is None or len(readers) != 1 or pad.outputs[0] in graph.outputs or not _taken(readers[0], pad, added):
            continue
        readers[0].inputs[0] = pad.inputs[0]
        graph.ops.remove(pad)
        del graph.tensors[pad.outputs[0]]
        changed = True
    return changed


PAD = OpSpec(
    kind="pad",
    opcode=fb.OpCode.PAD,
    options_type=fb.OpOptions.PadOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_pad",
    fold=_fold,
    imports=(Import((aten.pad.default, aten.constant_pad_nd.default), _import_pad, "shared", int16=True),),
    lowerings=(Lowering(("aten.pad",), _lower),),
    path=by_precision({"*": "fill, then row copies"}, {"mve": "int16: fill 8 halfwords (VSTRH), then row copies",
                                                          "*": "int16: fill by words, then row copies"}),
    int16_kernel=True,
)
