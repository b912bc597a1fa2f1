"""float_softmax: softmax over the last axis, float32 (fallback)."""
from __future__ import annotations

from compiler import reference
from compiler.float_lowering import kept
from compiler.ir import Graph, Op
from compiler.ops.spec import FLOAT_PATH, OpSpec
from compiler.schema import program_generated as fb


def _lower_float_softmax(graph: Graph, op: Op) -> Op:
    return kept(op, "float_softmax", op.inputs, {})


def _write(builder, op: Op) -> int:
    fb.FloatSoftmaxOptionsStart(builder)
    return fb.FloatSoftmaxOptionsEnd(builder)

FLOAT_SOFTMAX = OpSpec(
    kind="float_softmax",
    opcode=fb.OpCode.FLOAT_SOFTMAX,
    options_type=fb.OpOptions.FloatSoftmaxOptions,
    reference=lambda op, inputs: [reference.float_softmax_f32(inputs[0])],
    write_options=_write,
    read_options=lambda table: {},
    registration="em_op_float_softmax",
    float_lowerings={"aten.softmax": _lower_float_softmax},
    path=FLOAT_PATH,
)
