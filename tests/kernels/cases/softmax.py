"""softmax (last axis): row lengths 1..300 around the SIMD widths, input scales small to large
(diff_min cuts), rows all equal, one -128 among 127s and the reverse, ramps, one dominant value,
values near the top, output fixed at 1/256, -128; attention masks (causal, constant per block and
per row, rows masked whole)."""
from __future__ import annotations

import numpy as np

from compiler import reference
from conformance import Case, edge_int8, int8_tensor, rng_for, single_op

# shape, input scale
SHAPES = [((1, 1), 0.1), ((1, 2), 0.05), ((3, 10), 0.02), ((2, 17), 0.5), ((1, 4, 3, 15), 0.0625),
          ((5, 33), 0.004), ((1, 300), 0.1), ((4, 16), 1.0)]



def random_shapes(count: int = 8) -> list:
    found = []
    for i in range(count):
        rng = rng_for("softmax", "random", i)
        shape = (int(rng.integers(1, 6)), int(rng.integers(1, 120)))
        found.append((shape, float(2.0 ** rng.uniform(-8, 1))))
    return found


SHAPES += random_shapes()


# rows chosen to break it, per (row length, input scale): flat rows (7, -128, 127), a ramp, one
# dominant value, random values, values near the top
EDGE_ROWS = [(1, 0.1), (12, 0.05), (37, 0.5), (300, 0.02), (10, 4.0),
             # 512 and more values at the row's max: every probability under half an LSB (exponent > 31)
             (512, 0.05), (1000, 0.02)]


def edge_rows(width: int) -> np.ndarray:
    rng = rng_for("softmax", "edges", width)
    rows = [np.full(width, 7), np.full(width, -128), np.full(width, 127), np.arange(width) % 256 - 128,
            np.where(np.arange(width) == width // 2, 127, -128), rng.integers(-128, 128, width),
            rng.integers(100, 128, width)]
    return np.stack(rows).astype(np.int8)


def edge_cases() -> list[Case]:
    out = []
    for width, scale in EDGE_ROWS:
        x = edge_rows(width)
        attrs = reference.softmax_parameters(scale)
        out.append(single_op("softmax", [int8_tensor("x", x.shape, 0, scale)], int8_tensor("y", x.shape, -128, 1 / 256),
                             attrs, [x], name=f"edge_rows_{width}_scale{scale}",
                             params={"shape": x.shape, "input_scale": scale, **attrs}))
    return out


def cases() -> list[Case]:
    out = edge_cases()
    for k, (shape, scale) in enumerate(SHAPES):
        rng = rng_for("softmax", k)
        x = edge_int8(rng, shape)
        rows = x.reshape(-1, shape[-1])
        if rows.shape[0] > 2:
            rows[0] = 127
            rows[1] = 127
            rows[1, -1] = -128
            rows[2] = -128
            rows[2, 0] = 127
        zp = int(rng.integers(-128, 128))
        attrs = reference.softmax_parameters(scale)
        out.append(single_op("softmax", [int8_tensor("x", shape, zp, scale)],
                             int8_tensor("y", shape, -128, 1 / 256), attrs, [x],
                             name=f"{'x'.join(map(str, shape))}_scale{scale}",
                             params={"shape": shape, "input_scale": scale, **attrs}))
    return out + masked_cases()  # last: the loader fuzzer's corpus takes a masked program (make_corpus.py)


# Attention masks (reference.softmax_mask): shape, mask_rows, causal, input scale. Causal blocks
# with Tq < Tk, = Tk and > Tk (rows past the row length keep it whole), odd lengths, one row; a
# constant mask per block (period Tq) and one per row (period = all rows), with fully masked rows.
MASKED = [((4, 15, 15), 15, True, 0.05), ((2, 7, 9), 7, True, 0.1), ((3, 5, 4), 5, True, 0.5),
          ((1, 1, 33), 1, True, 0.02), ((2, 16, 16), 16, False, 0.05), ((6, 13), 6, False, 0.25),
          ((3, 11, 99), 11, False, 0.01), ((1, 3, 2), 3, False, 4.0)]


def masked_cases() -> list[Case]:
    out = []
    for k, (shape, mask_rows, causal, scale) in enumerate(MASKED):
        rng = rng_for("softmax", "masked", k)
        x = edge_int8(rng, shape)
        rows = x.reshape(-1, shape[-1])
        rows[0] = 127  # a flat row at the top, then one with -128 where the mask keeps values
        if rows.shape[0] > 1:
            rows[1] = -128
        attrs = {**reference.softmax_parameters(scale), "mask_rows": mask_rows, "causal": int(causal)}
        operands = [int8_tensor("x", shape, int(rng.integers(-128, 128)), scale)]
        if not causal:
            mask = (rng.random((mask_rows, shape[-1])) < 0.4).astype(np.int8)
            mask[0] = 1  # a row masked whole: -128 throughout
            if mask_rows > 2:
                mask[1] = 0  # and one masked nowhere
                mask[2, -1] = 0  # and one that keeps only its last position
                mask[2, :-1] = 1
            operands.append(int8_tensor("mask", mask.shape, 0, 1.0, data=mask))
        out.append(single_op("softmax", operands, int8_tensor("y", shape, -128, 1 / 256), attrs, [x],
                             name=f"masked_{'causal' if causal else 'mask'}_{'x'.join(map(str, shape))}_scale{scale}",
                             params={"shape": shape, "input_scale": scale, **attrs}))
    return out
