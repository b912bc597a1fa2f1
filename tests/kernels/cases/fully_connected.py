"""fully_connected: row tails 0..3 around SMLAD words and 16-lane MVE blocks, 4-row groups plus
1..3, a flattened NHWC input, rows of -128 / 127, shifts > 0, clamps, output offsets at the ends;
int4 weights (A8W4), rows of I around the 32-element blocks of their packing, rows of -8 / 7;
int16 activations (A16W8): rows around Helium's four-row blocks and 8-lane steps, -32768 /
32767 inputs, sums beyond int32, shifts -31..14, ReLU and narrower clamps."""
from __future__ import annotations

import numpy as np

from conformance import (Case, edge_int16, int16_tensor, edge_int4, edge_int8, int8_tensor, requantization, requantization_edges, rng_for,
                         single_op, weight_tensor, zero_point)
from compiler.fixedpoint import quantize_multiplier
from compiler.ir import Tensor
from cases._s16 import activation_s16, requantization_edges_s16, requantization_s16

# input shape ([B, I] or [B, H, W, C]), O
SHAPES = [((1, 1), 1), ((2, 7), 5), ((3, 33), 6), ((1, 640), 13), ((2, 130), 11), ((1, 16), 32),
          ((4, 19), 3), ((1, 3, 5, 7), 9), ((1, 1000), 2),
          # the M3's 4-row / 6-row groups: 0, 1 and many steps of four or eight inputs, tails 1..7
          ((1, 3), 5), ((2, 4), 4), ((1, 7), 9), ((2, 8), 6), ((1, 15), 13),
          # DSP: 16-input passes, 4-input steps, a tail of 3; MVE: 16-lane blocks and their tails
          ((2, 47), 9), ((3, 17), 5), ((3, 16), 128), ((2, 33), 7),
          # the DS-CNN / anomaly classifier sizes: many 4-row groups over long rows
          ((1, 640), 128), ((3, 640), 5)]



def random_shapes(count: int = 10, prefix: str = "random") -> list:
    """Seeded random [B, I] -> O (a quarter of them with a flattened [B, H, W, C] input)."""
    found = []
    for i in range(count):
        rng = rng_for("fully_connected", prefix, i)
        b, n_out = int(rng.integers(1, 5)), int(rng.integers(1, 41))
        x_shape = (b, *(int(d) for d in rng.integers(1, 8, size=3))) if i % 4 == 3 else (b, int(rng.integers(1, 301)))
        found.append((x_shape, n_out))
    return found


SHAPES += random_shapes()

# int4 weights [O, I], unpacked into the scratch at every run: I = 1, 15, 16, 17, 31, 32, 33, 63,
# 64, 65 and longer (blocks of 32 and their tails), odd O, a flattened input, DS-CNN's classifier
INT4_SHAPES = [((1, 1), 1), ((2, 15), 5), ((3, 16), 4), ((1, 17), 9), ((2, 31), 6), ((1, 32), 32),
               ((3, 33), 7), ((1, 63), 13), ((2, 64), 3), ((1, 65), 11), ((4, 100), 19), ((1, 3, 5, 7), 9),
               ((1, 640), 128)] + random_shapes(6, "int4_random")


def cases() -> list[Case]:
    return edge_cases() + [case(k, x_shape, n_out) for k, (x_shape, n_out) in enumerate(SHAPES)] + [
        case(k, x_shape, n_out, "int4") for k, (x_shape, n_out) in enumerate(INT4_SHAPES)] + cases_s16()


def case(k: int, x_shape: tuple, n_out: int, weights: str = "int8") -> Case:
    int4 = weights == "int4"
    rng = rng_for("fully_connected", *(["int4"] if int4 else []), k)
    n_in = int(np.prod(x_shape[1:]))
    w = (edge_int4 if int4 else edge_int8)(rng, (n_out, n_in))
    w[0, :] = -8 if int4 else -128
    if n_out > 2:
        w[-1, ::2] = 7 if int4 else 127
    multiplier, shift = requantization(rng, n_out, n_in, 0.15, gain=16.0 if int4 else 1.0)
    bias = rng.integers(-3000, 3000, size=n_out, dtype=np.int32) // (16 if int4 else 1)
    zp = zero_point(rng, k)
    act = (-128, 127) if k % 3 else (int(rng.integers(-128, -60)), int(rng.integers(60, 128)))
    x = edge_int8(rng, x_shape)
    x[0] = -128
    attrs = dict(multiplier=multiplier, shift=shift, output_offset=zp, activation_min=act[0], activation_max=act[1])
    operands = [int8_tensor("x", x_shape), weight_tensor("w", w, weights), Tensor("b", "int32", (n_out,), data=bias)]
    return single_op(
        "fully_connected", operands, int8_tensor("y", (x_shape[0], n_out), zp), attrs, [x],
        name=f"{'int4_' if int4 else ''}{'x'.join(map(str, x_shape))}_o{n_out}",
        params={"input": x_shape, "out_features": n_out, "weights": weights, "output_offset": zp, "act": act})


def edge_cases() -> list[Case]:
    """Accumulators equal to the bias (x = 0): the requantization's ties and extremes."""
    out = []
    for batches, n_out in ((1, 20), (3, 37)):
        bias, multiplier, shift = requantization_edges(n_out)
        w = edge_int8(rng_for("fully_connected", "edges", n_out), (n_out, 5))
        attrs = dict(multiplier=multiplier, shift=shift, output_offset=0, activation_min=-128, activation_max=127)
        operands = [int8_tensor("x", (batches, 5)), int8_tensor("w", w.shape, data=w), Tensor("b", "int32", (n_out,), data=bias)]
        out.append(single_op("fully_connected", operands, int8_tensor("y", (batches, n_out)), attrs,
                             [np.zeros((batches, 5), np.int8)], name=f"requantize_edges_b{batches}_o{n_out}",
                             params={"input": (batches, 5), "out_features": n_out, "bias": "ties and INT32 extremes"}))
    return out


# ---- int16 activations, int8 weights (A16W8: em_fully_connected_s16) ------------------------
# input shape ([B, I] or [B, H, W, C]), O: rows 1..3 past Helium's four-row blocks and its
# 8-lane steps (I % 8 = 1..7), DSP's 4-input steps, KWS's classifier (64 -> 12), a flattened map
S16_SHAPES = [((1, 1), 1), ((2, 7), 5), ((3, 33), 6), ((1, 64), 12), ((2, 17), 7), ((1, 3, 5, 7), 9),
              ((1, 640), 33), ((4, 19), 3), ((1, 8), 4), ((2, 15), 17), ((1, 16), 64)] + random_shapes(6, "s16_random")


def case_s16(k: int, x_shape: tuple, n_out: int) -> Case:
    rng = rng_for("fully_connected", "s16", k)
    n_in = int(np.prod(x_shape[1:]))
    w = edge_int8(rng, (n_out, n_in))
    w[0, :] = -128
    if n_out > 2:
        w[-1, ::2] = 127
    multiplier, shift = requantization_s16(rng, n_out, n_in, tiny=k % 2 == 1)  # even k: Helium's 32-bit sums
    bias_range = int(2**21 * np.sqrt(n_in))
    bias = rng.integers(-bias_range, bias_range, size=n_out, dtype=np.int64).astype(np.int32)
    act = activation_s16(k)
    x = edge_int16(rng, x_shape)
    attrs = dict(multiplier=multiplier, shift=shift, output_offset=0, activation_min=act[0], activation_max=act[1])
    operands = [int16_tensor("x", x_shape), weight_tensor("w", w), Tensor("b", "int32", (n_out,), data=bias)]
    return single_op("fully_connected", operands, int16_tensor("y", (x_shape[0], n_out), 0.002), attrs, [x],
                     name=f"s16_{'x'.join(map(str, x_shape))}_o{n_out}",
                     params={"input": x_shape, "out_features": n_out, "dtype": "int16", "act": act})


def extreme_cases_s16() -> list[Case]:
    """Sums beyond int32 (every input -32768, rows of -128 / 127 over 1000 inputs: about 2^32),
    shifts on both sides of Helium's vector form (-17); a bias at the int32 ends; inputs 0:
    accumulators = bias, the rounding's ties and extremes (requantization_edges_s16)."""
    out = []
    n_in, n_out = 1000, 7
    w = np.full((n_out, n_in), -128, np.int8)
    w[1::2] = 127
    pairs = [quantize_multiplier(2.0**15 / (n_in * 2.0**22) * f) for f in (0.9, 0.5, 1.7, 0.3, 0.05, 0.01, 1.0)]
    attrs = dict(multiplier=np.array([m for m, _ in pairs], np.int32), shift=np.array([s for _, s in pairs], np.int32),
                 output_offset=0, activation_min=-(2**15), activation_max=2**15 - 1)
    bias = np.array([2**31 - 1, -(2**31), 0, 5, -5, 2**30, 0], np.int32)
    operands = [int16_tensor("x", (2, n_in)), weight_tensor("w", w), Tensor("b", "int32", (n_out,), data=bias)]
    out.append(single_op("fully_connected", operands, int16_tensor("y", (2, n_out), 0.002), attrs,
                         [np.full((2, n_in), -(2**15), np.int16)], name="s16_big_acc_2x1000_o7",
                         params={"input": (2, n_in), "out_features": n_out, "accumulator": "beyond int32"}))
    for batches, n_out, vector in ((1, 20, False), (3, 37, False), (1, 21, True), (2, 38, True)):
        bias, multiplier, shift = requantization_edges_s16(n_out, vector)
        w = edge_int8(rng_for("fully_connected", "s16_edges", n_out), (n_out, 5))
        attrs = dict(multiplier=multiplier, shift=shift, output_offset=0, activation_min=-(2**15),
                     activation_max=2**15 - 1)
        operands = [int16_tensor("x", (batches, 5)), weight_tensor("w", w), Tensor("b", "int32", (n_out,), data=bias)]
        out.append(single_op("fully_connected", operands, int16_tensor("y", (batches, n_out), 0.002), attrs,
                             [np.zeros((batches, 5), np.int16)], name=f"s16_requantize_edges_b{batches}_o{n_out}",
                             params={"input": (batches, 5), "out_features": n_out, "bias": "ties and large biases",
                                     "sum32": vector}))
    return out


def cases_s16() -> list[Case]:
    return [case_s16(k, x_shape, n_out) for k, (x_shape, n_out) in enumerate(S16_SHAPES)] + extreme_cases_s16()
