"""int4 tensors: how a program stores the weights of an A8W4 layer (schema DType INT4).

Values are signed 4-bit, -8..7, two to a byte. A tensor of shape [R, d1, …, dk] is R rows of
n = d1·…·dk elements in C order (rank 1: one row of R); each row takes ceil(n / 2) bytes, and rows
follow each other, so that a row range unpacks from a byte offset (a fully connected layer's
output rows, a block at a time). Inside a row, elements go in blocks of 32: block b is bytes
16b..16b+15, byte 16b+j holding element 32b+j in its low nibble and element 32b+16+j in its
high nibble. A last block of t < 32 elements takes h = ceil(t / 2) bytes, byte j holding element
j low and element h+j high (0 where h+j >= t).

Why blocks of 32 rather than neighbours in a byte: Helium unpacks one 16-byte load into two
16-lane vectors with a shift each (low nibble: shift left 4 then arithmetic right 4; high:
arithmetic right 4) and stores them as they are; neighbour pairs would need an interleaving
store. The DSP and scalar tiers unpack four bytes into four low and four high elements with the
same word arithmetic either way, so one layout serves every tier.

The IR holds an int4 constant unpacked (int8 values -8..7, in the tensor's shape); the writer
packs it, the reader unpacks it, and the kernels unpack it into scratch before they run
(runtime/kernels em_unpack_s4(); reference.unpack_s4 is its bytes).
"""
from __future__ import annotations

import numpy as np

BLOCK = 32  # elements per full block: 16 bytes


def row_shape(shape: tuple[int, ...]) -> tuple[int, int]:
    """(rows, elements per row) of an int4 tensor of `shape`."""
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return 1, int(shape[0])
    return int(shape[0]), int(np.prod(shape[1:], dtype=np.int64))


def row_bytes(elements: int) -> int:
    return (elements + 1) // 2


def packed_bytes(shape: tuple[int, ...]) -> int:
    """Bytes an int4 tensor of `shape` takes in a program."""
    rows, n = row_shape(shape)
    return rows * row_bytes(n)


def _pack_row(row: np.ndarray) -> np.ndarray:
    nibbles = (row.astype(np.int16) & 0xF).astype(np.uint8)
    out = np.zeros(row_bytes(len(row)), np.uint8)
    for start in range(0, len(row), BLOCK):
        block = nibbles[start:start + BLOCK]
        half = row_bytes(len(block))
        low, high = block[:half], block[half:]
        out[start // 2:start // 2 + half] = low | np.pad(high, (0, half - len(high))) << 4
    return out


def pack(values: np.ndarray) -> bytes:
    """The program bytes of int4 `values` (any integer array, every value -8..7)."""
    values = np.asarray(values)
    if values.size and (values.min() < -8 or values.max() > 7):
        raise ValueError(f"int4 values must be -8..7, got {values.min()}..{values.max()}")
    rows, n = row_shape(values.shape)
    flat = values.reshape(rows, n)
    return b"".join(_pack_row(flat[r]).tobytes() for r in range(rows))


def _unpack_row(data: np.ndarray, n: int) -> np.ndarray:
    signed = data.astype(np.int8)
    low = ((signed << 4).astype(np.int8) >> 4).astype(np.int8)
    high = (signed >> 4).astype(np.int8)
    out = np.empty(n, np.int8)
    for start in range(0, n, BLOCK):
        t = min(BLOCK, n - start)
        half, first = row_bytes(t), start // 2
        out[start:start + half] = low[first:first + half]
        out[start + half:start + t] = high[first:first + t - half]
    return out


def unpack(data: bytes | np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """int8 values -8..7 of shape `shape` from their program bytes (the exact inverse of pack)."""
    raw = np.frombuffer(bytes(data), np.uint8)
    rows, n = row_shape(tuple(shape))
    if len(raw) != rows * row_bytes(n):
        raise ValueError(f"int4 tensor {list(shape)} takes {rows * row_bytes(n)} bytes, got {len(raw)}")
    per_row = row_bytes(n)
    if rows == 0:
        return np.empty(shape, np.int8)
    return np.stack([_unpack_row(raw[r * per_row:(r + 1) * per_row], n) for r in range(rows)]).reshape(shape)

