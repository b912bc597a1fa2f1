"""dequantize: int8 → float32 at the program's output boundary (int16 → float32 for an A16W8 output)."""
from __future__ import annotations

import numpy as np
import torch
from torch.fx import Node
from torchao.quantization.pt2e import quantize_pt2e  # noqa: F401  (registers the quantized_decomposed ops)

from compiler import reference, streaming
from compiler.ir import Op, Quant
from compiler.ops.int16_path import by_precision
from compiler.ops.spec import Import, OpSpec, tier_paths
from compiler.schema import program_generated as fb

qd = torch.ops.quantized_decomposed


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [reference.dequantize_s8_f32(inputs[0], op.attrs["scale"], op.attrs["zero_point"])]


def _write(builder, op: Op) -> int:
    fb.DequantizeOptionsStart(builder)
    fb.DequantizeOptionsAddScale(builder, float(op.attrs["scale"]))
    fb.DequantizeOptionsAddZeroPoint(builder, op.attrs["zero_point"])
    return fb.DequantizeOptionsEnd(builder)


def _read(table) -> dict:
    options = fb.DequantizeOptions()
    options.Init(table.Bytes, table.Pos)
    return {"scale": np.float32(options.Scale()), "zero_point": options.ZeroPoint()}


def _quant_range(low: object, high: object) -> tuple[int, int] | None:
    return (int(low), int(high)) if isinstance(low, int) and isinstance(high, int) else None


def _import_dequantize(node: Node, args: list) -> tuple[str, dict]:
    _, scale, zero_point, *rest = node.args
    return "dequantize", {"quant": Quant.per_tensor(scale, zero_point, _quant_range(*rest[:2]) if len(rest) >= 2 else None)}


def _import_dequantize_per_channel(node: Node, args: list) -> tuple[str, dict]:
    rest = node.args[4:6]
    return "dequantize", {"per_channel": True, "axis": int(node.args[3]),
                          "quant_range": _quant_range(*rest) if len(rest) == 2 else None}


DEQUANTIZE = OpSpec(
    kind="dequantize",
    opcode=fb.OpCode.DEQUANTIZE,
    options_type=fb.OpOptions.DequantizeOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_dequantize",
    imports=(Import((qd.dequantize_per_tensor.default,), _import_dequantize),
             Import((qd.dequantize_per_channel.default,), _import_dequantize_per_channel)),
    path=by_precision(tier_paths("MVE float 4 lanes", scalar="scalar (integer bits without an FPU)"),
                      tier_paths("int16: MVE float 4 lanes (VLDRH.S32)", scalar="int16: scalar (integer bits without an FPU)")),
    int16_kernel=True,
    stream=streaming.framewise,
)
