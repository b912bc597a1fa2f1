"""quantize (float32 -> int8): rounding ties both ways, saturation, NaN / ±inf / -0.0, zero
points at the ends, lengths around the 4-lane float vectors of MVE; products that tie only at
float32's 24th bit (the integer path of FPU-less targets rounds the product itself), any bit
pattern, denormal x against inv_scale 2^126."""
from __future__ import annotations

import numpy as np

from conformance import Case, int8_tensor, rng_for, single_op, zero_point
from compiler.ir import Tensor

SHAPES = [(1, 1), (1, 7), (2, 17), (1, 3, 5, 33), (1, 1003)]

SHAPES += [tuple(int(d) for d in rng_for("quantize", "random", i).integers(1, 40, size=1 + i % 4)) for i in range(5)]


def cases() -> list[Case]:
    out = []
    for k, shape in enumerate(SHAPES):
        rng = rng_for("quantize", k)
        inv_scale = np.float32(2.0 ** int(rng.integers(-3, 6)))  # powers of 2: exact .5 ties
        zp = zero_point(rng, k)
        n = int(np.prod(shape))
        codes = rng.integers(-300, 300, size=n) + rng.choice([0.0, 0.5, -0.5, 0.25, 0.75], size=n)
        x = (codes / inv_scale).astype(np.float32)
        specials = np.array([np.nan, np.inf, -np.inf, -0.0, 1e30, -1e30, 0.5 / inv_scale, -0.5 / inv_scale],
                            np.float32)
        x[: min(n, specials.size)] = specials[: min(n, specials.size)]
        out.append(single_op(
            "quantize", [Tensor("x", "float32", shape)], int8_tensor("q", shape, zp, float(1 / inv_scale)),
            {"inv_scale": inv_scale, "zero_point": zp}, [x],
            name=f"{'x'.join(map(str, shape))}_zp{zp}", params={"shape": shape, "inv_scale": float(inv_scale), "zp": zp}))
    out += [bit_pattern_case(k) for k in range(3)]
    return out


def float32_ties(inv_scale: np.float32) -> np.ndarray:
    """x with x * inv_scale exactly k + 1/2 ± 2^-18 (k in 64..127) for inv_scale 1.5 · 2^-e:
    the float32 product's rounding to even decides nearbyint's."""
    e = -int(np.log2(float(inv_scale) / 1.5))
    xs = [((2 * k + 1) * 2**17 + s) // 3 * 2.0 ** (-17 + e)
          for k in range(64, 128) for s in (-1, 1) if ((2 * k + 1) * 2**17 + s) % 3 == 0]
    return np.array(xs + [-v for v in xs], np.float32)


def bit_pattern_case(k: int) -> Case:
    rng = rng_for("quantize", "bits", k)
    inv_scale = np.float32([1.5 * 2.0**-3, 1.5 * 2.0**4, 2.0**126][k])
    zp = [0, -128, 127][k]
    x = rng.integers(0, 2**32, size=301, dtype=np.uint64).astype(np.uint32).view(np.float32).copy()
    if k < 2:
        ties = float32_ties(inv_scale)
        x[: ties.size] = ties
    else:  # denormals: |x * 2^126| up to 2^3
        x[:200] = (rng.integers(0, 2**23, size=200, dtype=np.uint32) | (np.arange(200, dtype=np.uint32) % 2 << 31)).view(np.float32)
    shape = (1, x.size)
    return single_op(
        "quantize", [Tensor("x", "float32", shape)], int8_tensor("q", shape, zp, float(1 / inv_scale)),
        {"inv_scale": inv_scale, "zero_point": zp}, [x],
        name=f"bits{k}_zp{zp}", params={"shape": shape, "inv_scale": float(inv_scale), "zp": zp})
