"""quantize (float32 -> int8): rounding ties both ways, saturation, NaN / ±inf / -0.0, zero
points at the ends, lengths around the 4-lane float vectors of MVE; products that tie only at
float32's 24th bit (the integer path of FPU-less targets rounds the product itself), any bit
pattern, denormal x against inv_scale 2^126. int16 (A16W8, output_type INT16, zero point 0): the
same forms with codes past ±32768 (saturation), ties near 2^14 at float32's 24th bit, lengths
around MVE's 4 lanes and odd sizes."""
from __future__ import annotations

import numpy as np

from conformance import Case, int16_tensor, int8_tensor, rng_for, single_op, zero_point
from compiler.ir import Tensor
from compiler.schema import program_generated as fb

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
    return out + int16_cases()


def float32_ties(inv_scale: np.float32, low: int = 64, bits: int = 17) -> np.ndarray:
    """x with x * inv_scale exactly k + 1/2 ± 2^-(bits + 1) (k in low..2·low − 1) for inv_scale
    1.5 · 2^-e: the float32 product's rounding to even decides nearbyint's (k of 7 bits with
    bits 17, of 15 bits with bits 9: 25 significant bits either way)."""
    e = -int(np.log2(float(inv_scale) / 1.5))
    xs = [((2 * k + 1) * 2**bits + s) // 3 * 2.0 ** (-bits + e)
          for k in range(low, 2 * low) for s in (-1, 1) if ((2 * k + 1) * 2**bits + s) % 3 == 0]
    return np.array(xs + [-v for v in xs], np.float32)


INT16_SHAPES = [(1, 1), (1, 3), (1, 7), (2, 17), (1, 3, 5, 33), (1, 1001)]
INT16_SHAPES += [tuple(int(d) for d in rng_for("quantize", "int16", i).integers(1, 14, size=1 + i % 4)) for i in range(5)]


def int16_case(name: str, x: np.ndarray, inv_scale: np.float32, params: dict) -> Case:
    shape = x.shape
    return single_op("quantize", [Tensor("x", "float32", shape)], int16_tensor("q", shape, float(1 / inv_scale)),
                     {"inv_scale": inv_scale, "zero_point": 0, "output_type": fb.DType.INT16}, [x],
                     name=f"int16_{name}", params={"shape": shape, "inv_scale": float(inv_scale), "dtype": "int16", **params})


def int16_cases() -> list[Case]:
    """float32 -> int16: codes within ±40000 (past both ends) with exact .5 / .25 fractions and
    the specials; every bit pattern; ties at float32's 24th bit near 2^14 and 2^15 (the integer
    path's rounding of the product, and its saturation threshold 2^17); denormals at 2^126."""
    out = []
    for k, shape in enumerate(INT16_SHAPES):
        rng = rng_for("quantize", "int16", k)
        inv_scale = np.float32(2.0 ** int(rng.integers(-3, 9)))
        n = int(np.prod(shape))
        codes = rng.integers(-40000, 40000, size=n) + rng.choice([0.0, 0.5, -0.5, 0.25, 0.75], size=n)
        x = (codes / inv_scale).astype(np.float32)
        specials = np.array([np.nan, np.inf, -np.inf, -0.0, 1e30, -1e30, 32767.5 / inv_scale, -32768.5 / inv_scale,
                             32766.5 / inv_scale, 131072.0 / inv_scale, -131071.0 / inv_scale], np.float32)
        x.reshape(-1)[: min(n, specials.size)] = specials[: min(n, specials.size)]
        out.append(int16_case(f"{'x'.join(map(str, shape))}", x.reshape(shape), inv_scale, {}))
    for k, inv_scale in enumerate([1.5 * 2.0**-3, 1.5 * 2.0**4, 2.0**126, 1.5 * 2.0**-9]):
        rng = rng_for("quantize", "int16 bits", k)
        inv_scale = np.float32(inv_scale)
        x = rng.integers(0, 2**32, size=403, dtype=np.uint64).astype(np.uint32).view(np.float32).copy()
        if k in (0, 1):
            ties = np.concatenate([float32_ties(inv_scale, 1 << 14, 9)[::97], float32_ties(inv_scale)[::3]])
            x[: ties.size] = ties
        elif k == 2:  # denormals: |x * 2^126| up to 2^3
            x[:200] = (rng.integers(0, 2**23, size=200, dtype=np.uint32) | (np.arange(200, dtype=np.uint32) % 2 << 31)).view(np.float32)
        else:  # products around the saturation and the int path's 2^17 threshold
            mags = np.concatenate([np.arange(32760, 32776), [65535.5, 65536, 131071, 131072, 131073, 2.0**20]])
            x[: 2 * mags.size] = np.concatenate([mags, -mags]) / float(inv_scale)
        out.append(int16_case(f"bits{k}", x.reshape(1, -1), inv_scale, {"bit_patterns": True}))
    return out


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
