"""batch_matmul: columns N around the MVE path's 16 (tails 1..15) and the scalar path, depths K
odd / 1 / long, rows M, batches (rank 3) and rank 2, zero points of both operands at the ends,
clamps, shifts > 0, the requantization's ties (small sums at multiplier 1/2, shifts -1..-3), an int32
sum that wraps (K = 34000)."""
from __future__ import annotations

import numpy as np

from compiler.fixedpoint import quantize_multiplier
from conformance import Case, edge_int8, int8_tensor, rng_for, single_op, zero_point

# name: (B or None for rank 2, M, K, N)
CASES = {
    "rank2_1x1x1": (None, 1, 1, 1),
    "rank2_3x5x16": (None, 3, 5, 16),
    "rank2_2x17x17": (None, 2, 17, 17),
    "b2_4x8x15": (2, 4, 8, 15),
    "b3_2x3x1": (3, 2, 3, 1),
    "b1_5x1x7": (1, 5, 1, 7),
    "b2_3x33x31": (2, 3, 33, 31),
    "b4_1x16x2": (4, 1, 16, 2),
    "b2_7x9x32": (2, 7, 9, 32),
    "b1_1x64x49": (1, 1, 64, 49),
    "b2_2x4x3": (2, 2, 4, 3),
    "rank2_6x128x9": (None, 6, 128, 9),
}
RANDOM = 10  # seeded random B, M, K, N


def random_cases() -> dict:
    found = {}
    for i in range(RANDOM):
        rng = rng_for("batch_matmul", "random", i)
        b = None if i % 4 == 3 else int(rng.integers(1, 4))
        found[f"random{i}"] = (b, *(int(v) for v in rng.integers(1, [9, 40, 40])))
    return found


def bmm_case(name: str, a: np.ndarray, b: np.ndarray, attrs: dict, zps: tuple[int, int]) -> Case:
    out_shape = (*a.shape[:-1], b.shape[-1])
    operands = [int8_tensor("a", a.shape, zps[0]), int8_tensor("b", b.shape, zps[1])]
    return single_op("batch_matmul", operands, int8_tensor("y", out_shape, attrs["output_offset"]), attrs, [a, b],
                     name=name, params={"a": a.shape, "b": b.shape, **attrs})


def case(k: int, name: str, batches, m: int, depth: int, n: int) -> Case:
    rng = rng_for("batch_matmul", name)
    lead = () if batches is None else (batches,)
    zps = (zero_point(rng, k), zero_point(rng, k + 1 + k // 4))
    # spread the sums of `depth` centred products (up to 2^16 each) over the int8 range
    real = float(2.0 ** rng.uniform(-1, 1)) * 0.012 / np.sqrt(depth) / 16
    multiplier, shift = quantize_multiplier(3.0 if k % 5 == 4 else real)
    act = (-128, 127) if k % 3 else (-90, 100)
    attrs = dict(a_offset=-zps[0], b_offset=-zps[1], output_offset=zero_point(rng, k + 2), output_multiplier=multiplier,
                 output_shift=shift, activation_min=act[0], activation_max=act[1])
    return bmm_case(name, edge_int8(rng, (*lead, m, depth)), edge_int8(rng, (*lead, depth, n)), attrs, zps)


def tie_cases() -> list[Case]:
    """Small codes around the zero points: sums whose halves, quarters, eighths are exact ties of
    the rounding (half away from zero), of both signs, on the MVE path and its tail."""
    out = []
    for shift, (batches, m, depth, n) in zip((-1, -2, -3), ((2, 3, 3, 19), (1, 4, 5, 16), (3, 4, 7, 17))):
        rng = rng_for("batch_matmul", "ties", shift)
        end = 127 if shift == -2 else -128  # one operand's zero point at an end, the other's 0
        zps = (end, 0) if shift != -2 else (0, end)
        codes = [end + np.sign(-end) * rng.integers(0, 6, size=shape) if zp == end else rng.integers(-5, 6, size=shape)
                 for zp, shape in zip(zps, ((batches, m, depth), (batches, depth, n)))]
        a, b = (c.astype(np.int8) for c in codes)
        attrs = dict(a_offset=-zps[0], b_offset=-zps[1], output_offset=0, output_multiplier=1 << 30,
                     output_shift=shift, activation_min=-128, activation_max=127)
        out.append(bmm_case(f"ties_shift{shift}", a, b, attrs, zps))
    return out


def wrap_case() -> Case:
    """A depth past 2^31 / 255² with every centred product at +255²: column 0's int32 sum wraps
    (as the reference's, modulo 2^32) in each tier's order of summation; two columns (an MVE tail)."""
    depth = 34000
    rng = rng_for("batch_matmul", "wrap")
    a = np.full((1, depth), 127, np.int8)
    b = np.full((depth, 2), 127, np.int8)
    b[rng.integers(0, depth, size=5000), 1] = -128  # column 1: below 2^31, no wrap
    attrs = dict(a_offset=128, b_offset=128, output_offset=3, output_multiplier=quantize_multiplier(2.0**-25)[0],
                 output_shift=quantize_multiplier(2.0**-25)[1], activation_min=-128, activation_max=127)
    return bmm_case(f"wrap_k{depth}", a, b, attrs, (-128, -128))


def cases() -> list[Case]:
    specs = {**CASES, **random_cases()}
    return [case(k, name, *spec) for k, (name, spec) in enumerate(specs.items())] + tie_cases() + [wrap_case()]
