"""lut: random and structured 256-entry tables (identity, reversed, constant ends) over every
int8 code, lengths around the 16-byte MVE gather, 4-D and 2-D tensors; then per-channel tables
([C, 256], row c for index c along `axis`) on 2-D, 3-D and 4-D inputs: the channel last (Helium's
8-channel gather, tails 1..7, C past 256 rows), runs of inner >= 16 (the 16-lane gather per
run, tails), short runs (scalar on every tier), C = 1, every code through every row, odd random
shapes; in place in in_place.py. int16 (A16W8): interpolated tables of every step 2^3..2^7 (random,
with the extreme entries side by side: the largest differences), over every int16 code and the
ends, lengths around the 4-lane MVE step, one table and per-channel ones."""
from __future__ import annotations

import numpy as np

from compiler.ir import Tensor

from conformance import Case, edge_int16, edge_int8, int16_tensor, int8_tensor, rng_for, single_op

SHAPES = [(1, 1), (1, 256), (2, 17), (1, 3, 5, 33), (1, 1001), (1, 4, 4, 16)]

SHAPES += [tuple(int(d) for d in rng_for("lut", "random", i).integers(1, 12, size=1 + i % 4)) for i in range(6)]

# Per-channel tables: (input shape, axis attr or None for absent: the last axis)
CHANNELS = [
    ((3, 37), None),             # channel last: 4 full 8-channel steps, a tail of 5
    ((5, 33), 0),                # one run of 33 per channel: 16-lane gather, tail 1
    ((2, 7, 19), 1),             # inner 19: tail 3
    ((4, 3, 5), 1),              # inner 5: scalar
    ((2, 6, 9), -1),             # axis -1 given: channel last, tail 1
    ((1, 4, 5, 24), 3),          # NHWC, the channel last as rank - 1: whole steps only
    ((2, 3, 4, 9), None),        # 4-D, channel last, tail 1
    ((1, 6, 3, 3), 1),           # NCHW-like: inner 9
    ((2, 3, 16, 2), 2),          # inner 2
    ((1, 2, 16, 16), -3),        # inner 256 from a negative axis
    ((2, 1, 7), 1),              # C = 1, inner 7
    ((9, 1), None),              # C = 1, the last axis: one lane a step
    ((1, 50), 0),                # C = 1 in front: one run of 50
    ((1, 2, 300), -1),           # C = 300: rows past the 256th, in blocks of 256 and 44
    ((2, 256), None),            # C = 256: the most one 16-bit gather base reaches
    ((1, 3, 257), None),         # C = 257: a block of one channel
    ((3, 5, 16), 1),             # runs of exactly 16: no tail
    ((2, 3, 31), 1),             # runs of 31: tail 15
    ((3, 40, 17), 1),            # 40 channels of runs of 17
    ((7,), 0),                   # 1-D: the whole input is one channel axis
]
CHANNELS += [(shape, int(rng_for("lut", "channels", i).integers(-len(shape), len(shape))))
             for i, shape in enumerate(tuple(int(d) for d in rng_for("lut", "channel shape", i).integers(1, 20, 2 + i % 3))
                                   for i in range(6))]


def table(rng, k: int) -> np.ndarray:
    codes = np.arange(-128, 128, dtype=np.int16)
    return [rng.integers(-128, 128, size=256).astype(np.int8), codes.astype(np.int8),
            (-1 - codes).astype(np.int8), np.clip(codes * 3, -128, 127).astype(np.int8)][k % 4]


def channel_tables(rng, channels: int) -> np.ndarray:
    """[C, 256]: random rows, with every 4th row structured (identity, reversed, x3 clamped), so
    that a lane reading another channel's row shows."""
    rows = rng.integers(-128, 128, size=(channels, 256)).astype(np.int8)
    for c in range(0, channels, 4):
        rows[c] = table(rng, 1 + c // 4 % 3)
    return rows


def cases() -> list[Case]:
    out = []
    for k, shape in enumerate(SHAPES):
        rng = rng_for("lut", k)
        x = edge_int8(rng, shape)
        if shape == (1, 256):
            x = rng.permutation(np.arange(-128, 128, dtype=np.int8)).reshape(shape)
        entries = table(rng, k)
        operands = [int8_tensor("x", shape), int8_tensor("table", (256,), data=entries)]
        out.append(single_op("lut", operands, int8_tensor("y", shape), {}, [x],
                             name=f"{'x'.join(map(str, shape))}_table{k % 4}",
                             params={"shape": shape, "table": ["random", "identity", "reversed", "x3 clamped"][k % 4]}))
    every_code = [((256, 3), -1), ((3, 256), 0)]  # each row meets every code
    for shape, axis in every_code + CHANNELS:
        rng = rng_for("lut", "channels", shape, axis)
        x = edge_int8(rng, shape)
        if (shape, axis) in every_code:
            x = np.stack([rng.permutation(np.arange(-128, 128, dtype=np.int8)) for _ in range(3)], axis=axis)
        channels = shape[axis if axis is not None else -1]
        operands = [int8_tensor("x", shape), int8_tensor("table", (channels, 256), data=channel_tables(rng, channels))]
        attrs = {} if axis is None else {"axis": axis}
        out.append(single_op("lut", operands, int8_tensor("y", shape), attrs, [x],
                             name=f"{'x'.join(map(str, shape))}_channels_axis{'_last' if axis is None else axis}",
                             params={"shape": shape, "axis": "absent (last)" if axis is None else axis,
                                     "tables": f"[{channels}, 256]"}))
    return out + int16_cases()


# int16: (input shape, table step log2, axis of per-channel tables or False for one table)
S16 = [((1, 65536), 7, False), ((1, 65536), 3, False), ((3, 5, 7), 5, False), ((1, 1), 6, False),
       ((2, 4, 3, 6), 4, False), ((1, 1003), 7, False), ((3, 37), 7, None), ((2, 7, 19), 6, 1),
       ((4, 3, 5), 3, 0), ((1, 2, 3, 9), 5, -1), ((9, 1), 7, None)]


def table_s16(rng, rows: int, step_log2: int) -> np.ndarray:
    """[rows, 2^(16 - k) + 1] int16: random, the first row's first entries -32768 and 32767 side by side."""
    t = rng.integers(-(2**15), 2**15, size=(rows, (1 << (16 - step_log2)) + 1), dtype=np.int64).astype(np.int16)
    t[0, :4] = [-(2**15), 2**15 - 1, -(2**15), 2**15 - 1]
    return t


def int16_cases() -> list[Case]:
    out = []
    for k, (shape, step, axis) in enumerate(S16):
        rng = rng_for("lut_s16", k)
        x = edge_int16(rng, shape)
        if shape == (1, 65536):  # every code, in a shuffled order
            x = rng.permutation(np.arange(-(2**15), 2**15, dtype=np.int64)).astype(np.int16).reshape(shape)
        channels = 1 if axis is False else shape[-1 if axis is None else axis]
        tables = table_s16(rng, channels, step)
        operands = [int16_tensor("x", shape), Tensor("table", "int16", tables.shape[1:] if axis is False else tables.shape,
                                                    data=tables[0] if axis is False else tables)]
        attrs = {} if axis is False or axis is None else {"axis": axis}
        where = "one table" if axis is False else f"per channel, axis {'last' if axis is None else axis}"
        out.append(single_op("lut", operands, int16_tensor("y", shape), attrs, [x],
                             name=f"s16_{'x'.join(map(str, shape))}_step{step}_{'one' if axis is False else 'channels'}",
                             params={"shape": shape, "step": 1 << step, "tables": where}))
    return out
