"""quantize: float32 → int8 at the program's input boundary (int16 for an A16W8 input: attr
`output_type`, the schema DType)."""
from __future__ import annotations

import numpy as np
import torch
from torch.fx import Node
from torchao.quantization.pt2e import quantize_pt2e  # noqa: F401  (registers the quantized_decomposed ops)

from compiler import reference, streaming
from compiler.aten_node import origin_of
from compiler.errors import UnsupportedOpError
from compiler.ir import Op, Quant
from compiler.ops.int16_path import by_precision
from compiler.ops.spec import Import, OpSpec, tier_paths
from compiler.schema import program_generated as fb

qd = torch.ops.quantized_decomposed


QUANTIZE_TO = {fb.DType.INT8: reference.quantize_f32_s8, fb.DType.INT16: reference.quantize_f32_s16}


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    quantize = QUANTIZE_TO[op.attrs.get("output_type", fb.DType.INT8)]
    return [quantize(inputs[0], op.attrs["inv_scale"], op.attrs["zero_point"])]


def _write(builder, op: Op) -> int:
    fb.QuantizeOptionsStart(builder)
    fb.QuantizeOptionsAddInvScale(builder, float(op.attrs["inv_scale"]))
    fb.QuantizeOptionsAddZeroPoint(builder, op.attrs["zero_point"])
    fb.QuantizeOptionsAddOutputType(builder, op.attrs.get("output_type", fb.DType.INT8))
    return fb.QuantizeOptionsEnd(builder)


def _read(table) -> dict:
    options = fb.QuantizeOptions()
    options.Init(table.Bytes, table.Pos)
    return {"inv_scale": np.float32(options.InvScale()), "zero_point": options.ZeroPoint(),
            "output_type": options.OutputType()}


def _import_quantize(node: Node, args: list) -> tuple[str, dict]:
    _, scale, zero_point, qmin, qmax, dtype = node.args
    int16 = (qmin, qmax, dtype) == (-32768, 32767, torch.int16)
    if (qmin, qmax, dtype) != (-128, 127, torch.int8) and not (int16 and zero_point == 0):
        raise UnsupportedOpError(f"quantize to {dtype} [{qmin}, {qmax}] (zero point {zero_point})", origin_of(node),
                                 "Ember activations are int8 in -128..127, or int16 in -32768..32767 with zero "
                                 "point 0 (CortexMQuantizer, precision a16w8).")
    return "quantize", {"quant": Quant.per_tensor(scale, zero_point)}


QUANTIZE = OpSpec(
    kind="quantize",
    opcode=fb.OpCode.QUANTIZE,
    options_type=fb.OpOptions.QuantizeOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_quantize",
    imports=(Import((qd.quantize_per_tensor.default,), _import_quantize),),
    path=by_precision(tier_paths("MVE float 4 lanes", scalar="scalar (integer bits without an FPU)"),
                      tier_paths("int16: MVE float 4 lanes (VSTRH.32)", scalar="int16: scalar (integer bits without an FPU)")),
    int16_kernel=True,
    stream=streaming.framewise,
)
