"""deduplicate_constants: constants with the same bytes, shape, dtype and quantization are one
tensor of the program, whatever made them: a weight that several ops read (an unrolled RNN's
recurrent weights at every step, tied embeddings), tables of the same function, shared zeros."""
from __future__ import annotations

import hashlib

from compiler.ir import Graph, Tensor
from compiler.options import LoweringOptions


def _key(tensor: Tensor) -> tuple:
    quant = tensor.quant
    quant_key = None if quant is None else (quant.scale.tobytes(), quant.zero_point.tobytes(), quant.axis)
    return (tensor.dtype, tensor.shape, hashlib.sha256(tensor.data.tobytes()).digest(), quant_key)


def deduplicate_constants(graph: Graph, options: LoweringOptions) -> Graph:
    first: dict[tuple, str] = {}
    for name, tensor in list(graph.tensors.items()):
        if not tensor.is_constant or name in graph.outputs:
            continue
        kept = first.setdefault(_key(tensor), name)
        if kept != name:
            graph.replace_uses(name, kept)
            del graph.tensors[name]
    return graph
