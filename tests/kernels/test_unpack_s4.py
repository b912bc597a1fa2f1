"""em_unpack_s4() (host build, scalar tier) against reference.unpack_s4, byte for byte: every row
length around the 32-element blocks and their word / byte tails, every nibble, odd row offsets,
and its refusals. The Arm tiers run the same bytes through the conformance cases' int4 weights."""
from __future__ import annotations

import ctypes

import numpy as np
import pytest

from build_host import build_kernels_lib
from compiler import int4, reference
from kernels_ctypes import EM_NN_ERR_BAD_ARGUMENT, EM_NN_OK

GUARD = 0x5A  # output bytes past the rows, which the kernel must leave alone


@pytest.fixture(scope="module")
def unpack():
    lib = ctypes.CDLL(str(build_kernels_lib()))
    lib.em_unpack_s4.restype = ctypes.c_int
    lib.em_unpack_s4.argtypes = [ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32, ctypes.c_void_p]
    return lib.em_unpack_s4


def run(unpack, packed: bytes, rows: int, n: int, offset: int = 0) -> tuple[int, np.ndarray]:
    """em_unpack_s4 of `packed` read from `offset` bytes into a buffer and written likewise
    (unaligned rows); the output with its guard bytes."""
    source = np.frombuffer(bytes(offset) + packed + bytes(16), np.uint8).copy()
    out = np.full(offset + rows * n + 16, GUARD, np.uint8)
    status = unpack(source.ctypes.data + offset, rows, n, out.ctypes.data + offset)
    return status, out[offset:]


@pytest.mark.parametrize("n", [*range(0, 70), 95, 96, 97, 127, 128, 129, 1000])
def test_rows_of_every_length(unpack, n):
    rows = 3
    v = np.random.default_rng(n).integers(-8, 8, size=(rows, n)).astype(np.int8)
    for offset in (0, 1, 3):
        status, out = run(unpack, int4.pack(v), rows, n, offset)
        assert status == EM_NN_OK
        got = out[:rows * n].view(np.int8).reshape(rows, n)
        np.testing.assert_array_equal(got, reference.unpack_s4(int4.pack(v), rows, n))
        np.testing.assert_array_equal(got, v)
        assert (out[rows * n:] == GUARD).all(), f"wrote past [{rows}, {n}]"


def test_every_byte_value(unpack):
    """Bytes 0..255 in each position of a block: both nibbles of each, sign-extended."""
    packed = bytes(range(256))
    n = 512  # 16 blocks
    status, raw = run(unpack, packed, 1, n)
    out = raw[:n].view(np.int8)
    assert status == EM_NN_OK
    np.testing.assert_array_equal(out, reference.unpack_s4(packed, 1, n)[0])
    low, high = out.reshape(16, 2, 16)[:, 0].reshape(-1), out.reshape(16, 2, 16)[:, 1].reshape(-1)
    b = np.arange(256)
    np.testing.assert_array_equal(low, (b & 15) - 16 * ((b & 15) >= 8))
    np.testing.assert_array_equal(high, (b >> 4) - 16 * ((b >> 4) >= 8))


def test_nothing_to_unpack_takes_null_pointers(unpack):
    assert unpack(None, 0, 5, None) == EM_NN_OK
    assert unpack(None, 4, 0, None) == EM_NN_OK


@pytest.mark.parametrize("rows, n, null", [(-1, 4, ""), (2, -1, ""), (65536, 32768, ""), (2, 3, "packed"),
                                           (2, 3, "output")])
def test_refusals(unpack, rows, n, null):
    buffer = np.zeros(64, np.uint8)
    packed = None if null == "packed" else buffer.ctypes.data
    output = None if null == "output" else buffer.ctypes.data
    assert unpack(packed, rows, n, output) == EM_NN_ERR_BAD_ARGUMENT
