"""lower_float_ops and the boundary quantize / dequantize around float ops, on hand-built IR:
the graph before and after."""
from __future__ import annotations

import numpy as np
import pytest

from compiler.errors import UnsupportedOpError
from compiler.ir import Graph, Op, Quant, Tensor
from compiler.options import LoweringOptions
from compiler.passes import convert_to_nhwc, lower_boundaries, lower_float_ops, remove_dead_tensors

OPTIONS = LoweringOptions()
Q = Quant.per_tensor(0.05, -3)


def _sandwich(float_op: Op, shape=(1, 6)) -> Graph:
    """x (float) → quantize → dequantize → float_op → quantize → dequantize → y: an int8 program
    whose middle op stayed in float."""
    names = ["x", "xq", "xd", "f", "fq", "y"]
    dtypes = ["float32", "int8", "float32", "float32", "int8", "float32"]
    tensors = {n: Tensor(n, d, shape) for n, d in zip(names, dtypes)}
    ops = [Op("quantize", ["x"], ["xq"], {"quant": Q}), Op("dequantize", ["xq"], ["xd"], {"quant": Q}),
           float_op, Op("quantize", ["f"], ["fq"], {"quant": Q}), Op("dequantize", ["fq"], ["y"], {"quant": Q})]
    return Graph(tensors, ops, ["x"], ["y"])


def _lowered(graph: Graph) -> Graph:
    for lowering in (convert_to_nhwc, lower_float_ops, lower_boundaries, remove_dead_tensors):
        graph = lowering(graph, OPTIONS)
    return graph


def test_a_float_op_between_int8_ops_gets_dequantize_before_and_quantize_after():
    div = Op("aten.binary", ["xd"], ["f"], {"function": "div", "scalar": 4.0, "scalar_index": 1,
                                             "float_reason": "no int8 lowering for aten.div.Tensor"}, "m.py:3")
    graph = _sandwich(div)
    assert [op.kind for op in graph.ops] == ["quantize", "dequantize", "aten.binary", "quantize", "dequantize"]
    graph = _lowered(graph)
    assert [op.kind for op in graph.ops] == ["quantize", "dequantize", "float_binary", "quantize", "dequantize"]
    lowered = graph.ops[2]
    assert lowered.attrs["function"] == "div" and lowered.inputs[0] == "xd" and lowered.origin == "m.py:3"
    assert graph.tensors[lowered.inputs[1]].data.tolist() == [4.0]  # the number became a constant operand
    assert graph.ops[1].attrs == {"scale": np.float32(0.05), "zero_point": -3}  # Ember's dequantize
    assert graph.ops[3].attrs["zero_point"] == -3 and graph.ops[3].attrs["inv_scale"] == np.float32(20.0)


def test_a_folded_activation_becomes_the_float_ops_clamp():
    graph = _sandwich(Op("aten.linear", ["xd", "w"], ["f"], {"activation": (0.0, 6.0), "float_reason": "config"}))
    graph.add_tensor(Tensor("w", "float32", (6, 6), data=np.eye(6, dtype=np.float32)))
    graph = _lowered(graph)
    (fc,) = [op for op in graph.ops if op.kind == "float_fully_connected"]
    assert (fc.attrs["activation_min"], fc.attrs["activation_max"]) == (0.0, 6.0)
    assert graph.tensors[fc.inputs[2]].data.tolist() == [0.0] * 6  # no bias in the model: zeros


def test_a_4d_constant_operand_takes_the_maps_nhwc_layout():
    graph = _sandwich(Op("aten.binary", ["xd", "c"], ["f"], {"function": "sub", "float_reason": "r"}), (1, 3, 2, 2))
    channel = np.arange(3, dtype=np.float32).reshape(1, 3, 1, 1)
    graph.add_tensor(Tensor("c", "float32", channel.shape, data=channel))
    graph = _lowered(graph)
    (sub,) = [op for op in graph.ops if op.kind == "float_binary"]
    assert graph.tensors[sub.inputs[0]].shape == (1, 2, 2, 3)  # the map, NHWC
    assert graph.tensors[sub.inputs[1]].data.shape == (1, 1, 1, 3)


def test_an_op_left_in_float_without_a_float_kernel_is_named():
    cat = Op("aten.cat", ["xd"], ["f"], {"dim": 1, "rank": 2,
                                         "float_reason": "left in float by quantizer config (skip_ops 'cat')"}, "net.py:9")
    with pytest.raises(UnsupportedOpError, match=r"cat in float .*net\.py:9.*no float32 kernel"):
        _lowered(_sandwich(cat))
