"""Helpers of the float fallback ops' cases (float_*.py): float32 tensors, seeded values with
special ones sprinkled in, and a case builder that gives libm functions their ULP tolerance."""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.ir import Tensor
from conformance import Case, rng_for, single_op

# Values the kernels define (±0, ±inf, NaN, large and tiny magnitudes, exp's overflow / underflow).
SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e30, -1e30, 3.4e38, -3.4e38, 1e-30, -1e-30, 1e-45,
                    88.0, 89.0, -88.0, -104.0, 1.0, -1.0], np.float32)


ABS_LOG2 = int(np.log2(reference.FLOAT_LIBM_ABS))
assert 2.0 ** ABS_LOG2 == reference.FLOAT_LIBM_ABS, "em_run takes the absolute tolerance as a power of two"


def f32(name: str, shape, data=None) -> Tensor:
    return Tensor(name, "float32", tuple(int(d) for d in shape), data=data)


def randn(rng: np.random.Generator, shape, scale: float = 1.0) -> np.ndarray:
    return (rng.standard_normal(tuple(shape)) * scale).astype(np.float32)


def with_specials(rng: np.random.Generator, shape, scale: float = 1.0, share: float = 0.15) -> np.ndarray:
    """randn(shape) * scale with about `share` of the values from SPECIAL (the first two: +0, -0)."""
    x = randn(rng, shape, scale)
    flat = x.reshape(-1)
    picks = rng.random(flat.size) < share
    flat[picks] = rng.choice(SPECIAL, size=int(picks.sum()))
    flat[:2] = SPECIAL[:2][: flat.size]
    return x


def float_case(op: str, operands: list[Tensor], out_shape, attrs: dict, inputs: list[np.ndarray], name: str,
               params: dict, libm: bool = False) -> Case:
    """single_op with a float32 output "y"; `libm`: within reference.FLOAT_LIBM_ULPS or
    FLOAT_LIBM_ABS (expf, logf, tanhf, erff differ between newlib, glibc and NumPy), else bit for bit."""
    return single_op(op, operands, f32("y", out_shape), attrs, inputs, name=name, params=params,
                     ulp=reference.FLOAT_LIBM_ULPS if libm else 0, abs_log2=ABS_LOG2 if libm else None)


def clamp_for(k: int) -> dict:
    """None, ReLU, ReLU6, an asymmetric clamp, a one-sided one, in turn."""
    return [{}, {"activation_min": 0.0}, {"activation_min": 0.0, "activation_max": 6.0},
            {"activation_min": -0.75, "activation_max": 1.25}, {"activation_max": -0.0}][k % 5]


__all__ = ["SPECIAL", "f32", "randn", "with_specials", "float_case", "clamp_for", "rng_for"]
