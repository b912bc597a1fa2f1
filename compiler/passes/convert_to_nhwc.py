"""convert_to_nhwc: every 4-D feature map takes Ember's layout, NHWC, whatever PyTorch's was.

Shapes of activation tensors (not constants, nor values computed from constants only, such as
dequantized weights) go from [N, C, H, W] to [N, H, W, C]; this includes 4-D program inputs and
outputs, so a program takes images as H × W × C, the order cameras deliver. Ops whose meaning
depends on the layout read it from the shapes: convolution and pooling lowerings, broadcasting
adds ([1, C, 1, 1] becomes [1, 1, 1, C]), and a flatten of a map, whose consumer reorders its
weights (ops/fully_connected.py).
"""
from __future__ import annotations

from compiler.ir import Graph
from compiler.options import LoweringOptions


def _constant_derived(graph: Graph) -> set[str]:
    derived = {name for name, tensor in graph.tensors.items() if tensor.is_constant}
    for op in graph.ops:
        if op.inputs and all(name in derived for name in op.inputs):
            derived.update(op.outputs)
    return derived


def convert_to_nhwc(graph: Graph, options: LoweringOptions) -> Graph:
    derived = _constant_derived(graph)
    for name, tensor in graph.tensors.items():
        if len(tensor.shape) == 4 and name not in derived:
            n, c, h, w = tensor.shape
            tensor.shape = (n, h, w, c)
    return graph
