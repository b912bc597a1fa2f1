"""float_layer_norm cases (sqrtf is correctly rounded: bit for bit): depth 1, lane tails, long
rows, rank 1..4, offsets (mean far from 0), constant rows (variance 0), epsilons, ±0; RMS norm
(rms: no mean) on the same shapes, zero rows among them."""
from __future__ import annotations

import numpy as np

from cases._float import f32, float_case, randn, rng_for
from conformance import Case

OP = "float_layer_norm"
SHAPES = [((1, 1), 1e-5), ((5,), 1e-5), ((5, 33), 1e-5), ((2, 3, 8), 1e-6), ((1, 2, 3, 7), 1e-3), ((3, 130), 1e-5),
          ((2, 16), 0.5)]


def _case(name: str, x: np.ndarray, weight: np.ndarray, bias: np.ndarray, epsilon: float, rms: bool = False) -> Case:
    d = x.shape[-1]
    operands = [f32("x", x.shape), f32("weight", (d,), data=weight), f32("bias", (d,), data=bias)]
    attrs = {"epsilon": float(np.float32(epsilon)), "rms": rms}
    return float_case(OP, operands, x.shape, attrs, [x], name, {"input": x.shape, **attrs})


def cases() -> list[Case]:
    out = []
    for k, (shape, epsilon) in enumerate(SHAPES):
        rng = rng_for(OP, shape, epsilon)
        x = randn(rng, shape, 3.0) + np.float32([0.0, 1.0, -40.0, 1000.0][k % 4])
        out.append(_case(f"{'x'.join(map(str, shape))}_eps{epsilon:g}", x, randn(rng, shape[-1:]),
                         randn(rng, shape[-1:]), epsilon))
        rms = randn(rng, shape, 3.0)
        rms.reshape(-1, shape[-1])[0] = 0.0
        out.append(_case(f"rms_{'x'.join(map(str, shape))}_eps{epsilon:g}", rms, randn(rng, shape[-1:]),
                         randn(rng, shape[-1:]), epsilon, rms=True))
    x = np.array([[2.5] * 6, [0.0, -0.0] * 3, [1e-30, -1e-30] * 3, [1e6, -1e6, 1e6, -1e6, 0.0, 1.0]], np.float32)
    rng = rng_for(OP, "special")
    out.append(_case("constant_and_special_rows", x, randn(rng, (6,)), np.array([-0.0, 0.0, 1.0, -1.0, 0.5, -0.0],
                                                                                 np.float32), 1e-5))
    return out
