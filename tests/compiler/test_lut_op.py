"""The lut op's per-channel form: reference.lut_s8 with a [C, 256] table against an element-by-
element loop and against PyTorch's per-channel PReLU (quantized), its shape errors, and the
`axis` attr through the program file (absent: the last axis, not stored)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from compiler import reference
from compiler.ir import Graph, Op, Quant, Tensor
from compiler.planner import Region, plan_memory
from compiler.reader import read_program
from compiler.target import Target
from compiler.writer import write_program

RNG = np.random.default_rng(4)


@pytest.mark.parametrize("shape,axis", [((5,), 0), ((3, 7), -1), ((3, 7), 0), ((2, 3, 4), 1), ((2, 3, 4), -3),
                                        ((2, 3, 4, 5), 3), ((2, 3, 4, 5), -2), ((1, 1), 1)])
def test_per_channel_tables_map_each_element_through_its_channels_row(shape, axis):
    x = RNG.integers(-128, 128, shape).astype(np.int8)
    tables = RNG.integers(-128, 128, (shape[axis], 256)).astype(np.int8)
    got = reference.lut_s8(x, tables, axis=axis)
    assert got.dtype == np.int8 and got.shape == x.shape
    for index in np.ndindex(*shape):
        assert got[index] == tables[index[axis], int(x[index]) + 128]


def test_a_per_tensor_table_ignores_the_axis():
    x = RNG.integers(-128, 128, (4, 6)).astype(np.int8)
    table = RNG.integers(-128, 128, 256).astype(np.int8)
    np.testing.assert_array_equal(reference.lut_s8(x, table, axis=9), table[x.astype(np.int16) + 128])


def test_per_channel_prelu_tables_equal_pytorchs_quantized_prelu():
    """NCHW PReLU with one slope per channel: tables of the float function between the input's and
    the output's quantization give exactly quantize(prelu(dequantize(x)))."""
    c, (s_in, zp_in), (s_out, zp_out) = 6, (0.04, -3), (0.03, 10)
    slopes = np.linspace(-0.5, 0.75, c).astype(np.float32)
    codes = np.arange(-128, 128)
    real = (codes - zp_in) * np.float32(s_in)
    tables = np.stack([np.clip(np.rint(np.where(real >= 0, real, a * real) / s_out) + zp_out, -128, 127)
                       for a in slopes]).astype(np.int8)
    x = RNG.integers(-128, 128, (2, c, 5, 3)).astype(np.int8)
    q = torch.quantize_per_tensor(torch.from_numpy((x.astype(np.float32) - zp_in) * s_in), s_in, zp_in, torch.qint8)
    want = torch.quantize_per_tensor(torch.nn.functional.prelu(q.dequantize(), torch.from_numpy(slopes)), s_out,
                                     zp_out, torch.qint8).int_repr().numpy()
    np.testing.assert_array_equal(reference.lut_s8(x, tables, axis=1), want)


@pytest.mark.parametrize("x_shape,table_shape,axis,message", [
    ((2, 3), (255,), -1, r"\[256\] or \[C, 256\]"),
    ((2, 3), (3, 255), -1, r"\[256\] or \[C, 256\]"),
    ((2, 3), (1, 3, 256), -1, r"\[256\] or \[C, 256\]"),
    ((2, 3), (2, 256), -1, "2 tables for the 3 channels of axis 1"),
    ((2, 3), (3, 256), 2, "axis 2 is outside a rank-2 input"),
    ((2, 3), (2, 256), -3, "axis -3 is outside a rank-2 input"),
])
def test_tables_that_do_not_fit_the_input_are_refused(x_shape, table_shape, axis, message):
    with pytest.raises(ValueError, match=message):
        reference.lut_s8(np.zeros(x_shape, np.int8), np.zeros(table_shape, np.int8), axis=axis)


def _lut_graph(table_shape, attrs: dict) -> Graph:
    quant = Quant.per_tensor(0.05, 0)
    g = Graph({"x": Tensor("x", "int8", (2, 3, 4), quant),
               "t": Tensor("t", "int8", table_shape, data=np.zeros(table_shape, np.int8)),
               "y": Tensor("y", "int8", (2, 3, 4), quant)}, [Op("lut", ["x", "t"], ["y"], attrs)], ["x"], ["y"])
    plan_memory(g, Region("sram", 1 << 12))
    return g


@pytest.mark.parametrize("table_shape,attrs", [((256,), {}), ((4, 256), {}), ((3, 256), {"axis": 1}),
                                               ((2, 256), {"axis": -3}), ((4, 256), {"axis": 2})])
def test_the_axis_survives_the_program_file(table_shape, attrs):
    graph, _, _ = read_program(write_program(_lut_graph(table_shape, attrs), Target("host")))
    assert graph.ops[0].attrs == attrs


def test_the_default_axis_is_not_stored():
    """The last axis given as -1 writes the bytes of an absent axis: [256] programs are the bytes
    they were before LutOptions had the field."""
    target = Target("host")
    assert write_program(_lut_graph((4, 256), {"axis": -1}), target) == write_program(_lut_graph((4, 256), {}), target)
