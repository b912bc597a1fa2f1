"""norm (layer norm and RMS norm over the last axis, then the per-channel affine): depths 1, 2,
3, 17, 64 (KWT's rows), 255, 513 around the SIMD widths (16 int8 lanes for the sums, 4 int32
lanes for the output, 4-byte SMLAD words); rows of one value (variance 0: only epsilon is left;
with epsilon 0 the whole T is 0), rows at -128 / 127 and alternating between them, every row at
the zero point (RMS: all real 0); zero points at both ends; epsilons from 0 to 10 (large: epsilon
dominates the variance); gamma with negative and zero entries, large gamma / output scale (small
output shift), large beta (biases near the bound), weight-less forms; a sweep of two-value rows
whose variances reach every seed interval of the reciprocal square root; in place (the output
over the input, as compiler/ops/overlap.py allows: a row is read whole before it is written); and
fields the compiler never picks but check() admits (norm_bits 0 and 10 with epsilon_shift 0: the
row's shift s down to -31 and below, where every normalised value is 0; output_shift 1 and 24;
multipliers and biases over all of int32, so the saturating sum saturates)."""
from __future__ import annotations

import numpy as np

from compiler.ir import Tensor
from compiler.ops.norm import norm_parameters
from conformance import Case, edge_int8, int8_tensor, rng_for, single_op, zero_point

# shape, mode, input scale, output scale, epsilon
SHAPES = [((1, 1), "layer", 0.05, 0.02, 1e-5), ((1, 1), "rms", 0.05, 0.02, 1e-5), ((3, 2), "layer", 0.1, 0.03, 1e-5),
          ((2, 3), "rms", 0.02, 0.01, 1e-6), ((4, 17), "layer", 0.05, 0.04, 1e-5), ((3, 17), "rms", 0.3, 0.02, 1e-2),
          ((49, 64), "layer", 0.04, 0.03, 1e-5), ((7, 64), "rms", 0.04, 0.03, 1.1920929e-07),
          ((2, 255), "layer", 0.01, 0.05, 1e-5), ((2, 255), "rms", 0.5, 0.01, 10.0), ((1, 2, 3, 16), "layer", 0.2, 0.02, 1.0),
          ((1, 513), "rms", 0.001, 0.05, 1e-5), ((5, 31), "layer", 0.0005, 0.1, 1e-5), ((3, 100), "layer", 0.1, 0.02, 0.0)]


def random_shapes(count: int = 8) -> list:
    found = []
    for i in range(count):
        rng = rng_for("norm", "random", i)
        shape = (int(rng.integers(1, 5)), int(rng.integers(1, 200)))
        found.append((shape, ("layer", "rms")[i % 2], float(2.0 ** rng.uniform(-10, 0)), float(2.0 ** rng.uniform(-8, -2)),
                      float(10.0 ** rng.uniform(-7, 0))))
    return found


SHAPES += random_shapes()


def _case(name: str, x: np.ndarray, mode: str, scales: tuple[float, float], zps: tuple[int, int], gamma: np.ndarray,
          beta: np.ndarray, eps: float) -> Case:
    depth = x.shape[-1]
    multiplier, bias, attrs = norm_parameters(depth, scales[0], scales[1], zps[1], gamma, beta, eps)
    attrs |= {"mode": mode, "input_zero_point": zps[0]}
    operands = [int8_tensor("x", x.shape, zps[0], scales[0]), Tensor("multiplier", "int32", (depth,), data=multiplier),
                Tensor("bias", "int32", (depth,), data=bias)]
    return single_op("norm", operands, int8_tensor("y", x.shape, zps[1], scales[1]), attrs, [x], name=name,
                     params={"shape": x.shape, "scales": scales, "zero_points": zps, "eps": eps, **attrs})


def _edge_rows(rng: np.random.Generator, depth: int, zp: int) -> np.ndarray:
    rows = [np.full(depth, -128), np.full(depth, 127), np.full(depth, zp), np.full(depth, 5),
            np.where(np.arange(depth) % 2 == 0, -128, 127), np.where(np.arange(depth) == depth // 2, 127, -128),
            np.where(np.arange(depth) == 0, zp + 1 if zp < 127 else zp - 1, zp), rng.integers(-128, 128, depth)]
    return np.stack(rows).astype(np.int8)


def cases() -> list[Case]:
    out = []
    for k, (shape, mode, s_in, s_out, eps) in enumerate(SHAPES):
        rng = rng_for("norm", k)
        depth = shape[-1]
        x = edge_int8(rng, shape)
        rows = x.reshape(-1, depth)
        if rows.shape[0] > 2:
            rows[1] = rows[1, 0]  # a constant row
            rows[2] = zero_point(rng, k)  # every value at the zero point
        zps = (zero_point(rng, k), zero_point(rng, k + 1))
        gamma = rng.normal(1.0, 0.6, depth)
        gamma[rng.random(depth) < 0.1] = 0.0
        beta = rng.normal(0.0, 0.5, depth) if k % 3 else np.zeros(depth)
        out.append(_case(f"{'x'.join(map(str, shape))}_{mode}_eps{eps:g}", x, mode, (s_in, s_out), zps, gamma, beta, eps))
    for depth, mode, zps, eps in ((1, "rms", (127, -128), 1e-5), (4, "layer", (-128, 127), 0.0), (16, "rms", (-128, 0), 1e-5),
                                  (19, "layer", (3, -128), 10.0), (67, "rms", (127, 127), 0.0)):
        rng = rng_for("norm", "edges", depth)
        x = _edge_rows(rng, depth, zps[0])
        for weights in ("affine", "none"):
            gamma, beta = ((rng.normal(0.0, 2.0, depth), rng.normal(0.0, 1.0, depth)) if weights == "affine"
                           else (np.ones(depth), np.zeros(depth)))
            out.append(_case(f"edges_{depth}_{mode}_{weights}_eps{eps:g}", x, mode, (0.03, 0.02), zps, gamma, beta, eps))
    # large gamma / output scale: output_shift small; beta near the bias bound
    rng = rng_for("norm", "extreme")
    x = edge_int8(rng, (3, 40))
    out.append(_case("large_gamma", x, "layer", (0.05, 1e-4), (0, -128), rng.normal(0, 3.0, 40), np.zeros(40), 1e-5))
    out.append(_case("large_beta", x, "rms", (0.05, 0.01), (-128, 127), rng.normal(0, 1.0, 40),
                     np.full(40, -500.0), 1e-5))
    # two-value rows (0, j) and (j, -j): variances from 0 to 2^16, every seed interval of the rsqrt
    for mode in ("layer", "rms"):
        j = np.arange(-128, 128)
        x = np.stack([np.zeros_like(j), j], axis=1) if mode == "layer" else np.stack([j, np.full_like(j, 3)], axis=1)
        out.append(_case(f"variance_sweep_{mode}", x.astype(np.int8), mode, (0.07, 0.02), (3, -5),
                         np.array([1.3, -0.7]), np.array([0.1, 0.0]), 1e-3))
    for norm_bits, output_shift, epsilon_high in ((0, 1, 2**29), (10, 24, 0), (0, 24, 1)):  # s about -45, -18, -30
        rng = rng_for("norm", "fields", norm_bits, output_shift)
        x = edge_int8(rng, (6, 64))
        x[1] = 3
        attrs = {"mode": ("layer", "rms")[output_shift % 2], "input_zero_point": -7, "epsilon_high": epsilon_high,
                 "epsilon_low": 5,
                 "epsilon_shift": 0, "norm_bits": norm_bits, "output_shift": output_shift}
        multiplier = rng.integers(-(2**31), 2**31, 64).astype(np.int32)
        bias = rng.integers(-(2**31), 2**31, 64).astype(np.int32)
        bias[:4] = (-(2**31), 2**31 - 1, 0, -1)
        operands = [int8_tensor("x", x.shape, -7, 0.05), Tensor("multiplier", "int32", (64,), data=multiplier),
                    Tensor("bias", "int32", (64,), data=bias)]
        out.append(single_op("norm", operands, int8_tensor("y", x.shape, 0, 0.05), attrs, [x],
                             name=f"fields_n{norm_bits}_h{output_shift}", params=attrs))
    # in place: rows of 37 (Helium: 2 full 16-lane sum steps and a tail, 9 output steps and a tail)
    from cases.in_place import tightest

    for mode in ("layer", "rms"):
        rng = rng_for("norm", "in_place", mode)
        x = edge_int8(rng, (6, 37))
        out.append(tightest(_case(f"6x37_{mode}", x, mode, (0.05, 0.03), (-128, 127), rng.normal(1, 0.5, 37),
                                  rng.normal(0, 0.5, 37), 1e-5)))
    return out
