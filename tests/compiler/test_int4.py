"""compiler/int4.py: the program's packing of int4 weights (rows of the first dimension, blocks
of 32 with low / high nibbles 16 apart), its sizes, and reference.unpack_s4 (em_unpack_s4's bytes)."""
from __future__ import annotations

import numpy as np
import pytest

from compiler import int4, reference
from compiler.ir import Graph, Op, Tensor

# row lengths around the 16-byte blocks: empty, one element, odd tails, whole blocks and their neighbours
ROW_LENGTHS = [0, 1, 2, 3, 15, 16, 17, 31, 32, 33, 47, 63, 64, 65, 96, 127]


def values(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    """Random int4 values of `shape`, the first -8 and the last 7 where there are two."""
    v = np.random.default_rng(seed).integers(-8, 8, size=shape).astype(np.int8)
    if v.size:
        v.reshape(-1)[0], v.reshape(-1)[-1] = -8, 7
    return v


@pytest.mark.parametrize("n", ROW_LENGTHS)
@pytest.mark.parametrize("rows", [1, 2, 5])
def test_round_trip_and_size_of_rows(rows, n):
    v = values((rows, n), seed=rows * 1000 + n)
    data = int4.pack(v)
    assert len(data) == int4.packed_bytes(v.shape) == rows * ((n + 1) // 2)
    np.testing.assert_array_equal(int4.unpack(data, v.shape), v)
    np.testing.assert_array_equal(reference.unpack_s4(data, rows, n), v)


@pytest.mark.parametrize("shape, rows, n", [((), 1, 1), ((7,), 1, 7), ((0,), 1, 0), ((3, 5), 3, 5),
                                            ((4, 3, 3, 5), 4, 45), ((3, 3, 17), 3, 51), ((0, 9), 0, 9)])
def test_rows_are_the_first_dimension(shape, rows, n):
    """Rank 0: one row of one; rank 1: one row of d0; else d0 rows of the rest."""
    assert int4.row_shape(shape) == (rows, n)
    v = values(shape, seed=len(shape))
    data = int4.pack(v)
    assert len(data) == int4.packed_bytes(shape) == rows * ((n + 1) // 2)
    unpacked = int4.unpack(data, shape)
    assert unpacked.shape == shape and unpacked.dtype == np.int8
    np.testing.assert_array_equal(unpacked, v)
    np.testing.assert_array_equal(reference.unpack_s4(data, rows, n).reshape(shape), v)


def test_a_whole_block_by_hand():
    """Byte j of a block: element j low, element 16 + j high."""
    row = np.array([j - 8 for j in range(16)] + [7 - j for j in range(16)], np.int8)
    assert int4.pack(row) == bytes([0x78, 0x69, 0x5A, 0x4B, 0x3C, 0x2D, 0x1E, 0x0F,
                                    0xF0, 0xE1, 0xD2, 0xC3, 0xB4, 0xA5, 0x96, 0x87])


def test_a_last_block_by_hand():
    """A last block of t = 5 takes h = 3 bytes: byte j holds element j low and 3 + j high (the
    last high nibble 0); a block of 32 before it, and a second row starting on a byte of its own."""
    tail = [1, 2, 3, -1, -8]
    row = np.array([0] * 16 + [-1] * 16 + tail, np.int8)
    assert int4.pack(row) == bytes([0xF0] * 16 + [0xF1, 0x82, 0x03])
    two = np.array([tail, [7, -8, 0, 0, 5]], np.int8)
    assert int4.pack(two) == bytes([0xF1, 0x82, 0x03, 0x07, 0x58, 0x00])


def test_odd_rows_leave_the_last_high_nibble_zero():
    assert int4.pack(np.array([[-1], [-1], [-1]], np.int8)) == bytes([0x0F, 0x0F, 0x0F])


def test_values_outside_int4_and_wrong_lengths_are_refused():
    with pytest.raises(ValueError, match="-8..7"):
        int4.pack(np.array([0, 8]))
    with pytest.raises(ValueError, match="-8..7"):
        int4.pack(np.array([-9, 0]))
    with pytest.raises(ValueError, match="takes 6 bytes"):
        int4.unpack(bytes(5), (2, 5))


def test_unpacked_weight_bytes_round_each_op_up_to_16():
    from compiler.scratch import unpacked_weight_bytes

    w4 = Tensor("w4", "int4", (3, 7), data=values((3, 7)))
    w8 = Tensor("w8", "int8", (3, 7), data=np.zeros((3, 7), np.int8))
    graph = Graph({"x": Tensor("x", "int8", (1, 7)), "w4": w4, "w8": w8}, [], ["x"], [])
    assert w4.nbytes == 12 and w8.nbytes == 21
    assert unpacked_weight_bytes(graph, Op("conv2d", ["x", "w4"], ["y"], {})) == 32
    assert unpacked_weight_bytes(graph, Op("fully_connected", ["x", "w8"], ["y"], {})) == 0


def test_a_fully_connected_layer_unpacks_a_block_of_rows():
    """At least four rows and 2,048 bytes of them (em_op_fully_connected.c takes as many as fit)."""
    from compiler.scratch import unpacked_weight_bytes

    def fc_bytes(rows: int, n_in: int) -> int:
        graph = Graph({"x": Tensor("x", "int8", (1, n_in)),
                       "w": Tensor("w", "int4", (rows, n_in), data=values((rows, n_in)))}, [], ["x"], [])
        return unpacked_weight_bytes(graph, Op("fully_connected", ["x", "w"], ["y"], {}))

    assert fc_bytes(245, 1024) == 4 * 1024 and fc_bytes(128, 640) == 4 * 640
    assert fc_bytes(100, 64) == 32 * 64 and fc_bytes(3, 64) == 3 * 64 and fc_bytes(10, 7) == 80
