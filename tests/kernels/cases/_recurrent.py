"""What the gru and lstm cases share: one recurrent layer with random int8 weights and
requantizations that put the gate pre-activations across (and past) Q3.12's ±8, extreme inputs,
zero points at the ends, the initial state given or zero, both layouts; each configuration is a
case per output (y, h_n, c_n: the harness compares a program's first output; the others are
planned and written all the same)."""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.fixedpoint import quantize_multiplier
from compiler.ir import Graph, Op, Tensor
from compiler.planner import Region, plan_memory
from conformance import ARENA_BYTES, Case, edge_int8, int8_tensor, rng_for, zero_point

GATES = {"gru": 3, "lstm": 4}
OUTPUTS = {"gru": ("y", "h_n"), "lstm": ("y", "h_n", "c_n")}

# name: (B, T, I, H, batch_first, state given)
CONFIGS = {
    "b1_t1_i1_h1": (1, 1, 1, 1, True, False),
    "b1_t5_i3_h3": (1, 5, 3, 3, True, True),
    "b2_t4_i17_h17": (2, 4, 17, 17, True, False),
    "b3_t3_i6_h8_time_first": (3, 3, 6, 8, False, True),
    "b1_t7_i10_h64": (1, 7, 10, 64, True, False),
    "b2_t2_i33_h5_time_first": (2, 2, 33, 5, False, False),
    "b1_t3_i16_h16": (1, 3, 16, 16, True, True),
    "b1_t1_i40_h31": (1, 1, 40, 31, True, True),
}
RANDOM = 4


def _multipliers(rng: np.random.Generator, rows: int, taps: int, spread: float,
                 operand: int = 128) -> tuple[np.ndarray, np.ndarray]:
    """Per-row Q3.12 requantizations: sums of `taps` products of int8 weights and operands of
    magnitude `operand` (int8 x: 128, Q0.15 h: 32768) reach about ±`spread`·2^12."""
    reals = 2.0 ** rng.uniform(-1.5, 1.0, size=rows) * spread * 4096.0 / (128 * operand * np.sqrt(taps))
    pairs = [quantize_multiplier(float(r)) for r in reals]
    return np.array([m for m, _ in pairs], np.int32), np.array([s for _, s in pairs], np.int32)


def _scalar(real: float) -> tuple[int, int]:
    return quantize_multiplier(real)


def config_cases(kind: str, k: int, name: str, batches: int, steps: int, inputs: int, hidden: int,
                 batch_first: bool, given: bool) -> list[Case]:
    rng = rng_for(kind, name)
    rows = GATES[kind] * hidden
    spread = [4.0, 12.0, 1.0][k % 3]  # pre-activations inside, past (saturating) and well inside ±8
    zp_x, zp_h = zero_point(rng, k), zero_point(rng, k + 1)
    x_shape = (batches, steps, inputs) if batch_first else (steps, batches, inputs)
    y_shape = (*x_shape[:2], hidden)
    w_ih = edge_int8(rng, (rows, inputs)).astype(np.int32)
    w_hh = edge_int8(rng, (rows, hidden)).astype(np.int32)
    b_ih = rng.integers(-(2**14), 2**14, size=rows).astype(np.int32)
    b_hh = rng.integers(-(2**14), 2**14, size=rows).astype(np.int32)  # Q3.12 codes: ±4
    if k % 3 == 1:  # the recurrent bias is added after requantization: int32 extremes saturate
        b_hh[0], b_hh[-1] = -(2**31), 2**31 - 1
    in_m, in_s = _multipliers(rng, rows, inputs, spread)
    hidden_bits = [15, 12, 14, reference.HIDDEN_BITS_MIN][k % 4]  # h at 2^-hidden_bits
    rec_m, rec_s = _multipliers(rng, rows, hidden, spread, operand=1 << hidden_bits)
    attrs = {"batch_first": batch_first, "input_multiplier": in_m, "input_shift": in_s,
             "recurrent_multiplier": rec_m, "recurrent_shift": rec_s, "hidden_offset": zp_h,
             "hidden_bits": hidden_bits}
    # y, h_n: int8 views of h (GRU) or of the Q0.30 o·tanh(c) (LSTM), codes of 1/64 .. 1/512
    unit = 2.0 ** (-hidden_bits if kind == "gru" else -30)
    attrs["hidden_multiplier"], attrs["hidden_shift"] = _scalar(unit / float(2.0 ** rng.uniform(-9, -6)))
    attrs["hn_offset"] = zero_point(rng, k + 2)
    attrs["hn_multiplier"], attrs["hn_shift"] = _scalar(unit / float(2.0 ** rng.uniform(-9, -6)))
    zp_state = zero_point(rng, k + 3)
    attrs["state_offset"] = zp_state if given else 0
    # h0 codes of 1/512 .. 1/64 into 2^-hidden_bits: past 2^(15 − hidden_bits) it saturates at ±32767
    attrs["state_multiplier"], attrs["state_shift"] = (
        _scalar(float(2.0 ** (hidden_bits + rng.uniform(-9, -6)))) if given else (0, 0))
    if kind == "lstm":
        bits = int(reference.CELL_BITS_MIN + k % (reference.CELL_BITS_MAX - reference.CELL_BITS_MIN + 1))
        attrs["cell_bits"] = bits
        attrs["cn_offset"] = zero_point(rng, k + 4)
        attrs["cn_multiplier"], attrs["cn_shift"] = _scalar(2.0 ** -bits / float(2.0 ** rng.uniform(-6, -3)))
        attrs["cell_in_offset"] = zero_point(rng, k + 5) if given else 0
        attrs["cell_in_multiplier"], attrs["cell_in_shift"] = (
            _scalar(float(2.0 ** rng.uniform(-6, -2)) * 2.0 ** bits) if given else (0, 0))
    operands = [int8_tensor("x", x_shape, zp_x),
                Tensor("w_ih", "int8", w_ih.shape, data=w_ih), Tensor("w_hh", "int8", w_hh.shape, data=w_hh),
                Tensor("b_ih", "int32", b_ih.shape, data=b_ih), Tensor("b_hh", "int32", b_hh.shape, data=b_hh)]
    values = [edge_int8(rng, x_shape)]
    states = ["h0", "c0"][:GATES[kind] - 2]
    if given:
        for s in states:
            operands.append(int8_tensor(s, (1, batches, hidden) if s == "c0" else (batches, hidden), zp_state))
            values.append(edge_int8(rng, operands[-1].shape))
    outputs = [int8_tensor("y", y_shape, zp_h), int8_tensor("h_n", (1, batches, hidden)),
               int8_tensor("c_n", (batches, hidden))][:len(OUTPUTS[kind])]
    params = {"x": x_shape, "hidden": hidden, "hidden_bits": hidden_bits, "batch_first": batch_first,
              "state": given, "zp_x": zp_x,
              "zp_h": zp_h, "spread": spread, **({"cell_bits": attrs["cell_bits"]} if kind == "lstm" else {})}
    found = []
    for checked in outputs:
        tensors = {t.name: t for t in [*operands, *outputs]}
        tensors = {n: Tensor(t.name, t.dtype, t.shape, t.quant, t.data) for n, t in tensors.items()}
        runtime = [t.name for t in operands if not t.is_constant]
        graph = Graph(tensors, [Op(kind, [t.name for t in operands], [t.name for t in outputs], dict(attrs),
                                   origin=f"{kind}/{name}")], runtime, [checked.name])
        plan_memory(graph, Region("sram", ARENA_BYTES))
        found.append(Case(kind, f"{name}_{checked.name}", {**params, "output": checked.name}, graph, values))
    return found


def random_configs(kind: str) -> dict:
    found = {}
    for i in range(RANDOM):
        rng = rng_for(kind, "random", i)
        b, t, n_in, h = (int(v) for v in rng.integers(1, [3, 6, 24, 24]))
        found[f"random{i}"] = (b, t, n_in, h, bool(i % 2 == 0), bool(i % 3 != 0))
    return found


def cases(kind: str) -> list[Case]:
    configs = {**CONFIGS, **random_configs(kind)}
    return [case for k, (name, spec) in enumerate(configs.items()) for case in config_cases(kind, k, name, *spec)]
