"""The norm conformance cases (cases/norm.py) reach what the kernels branch on: every seed
interval of the reciprocal square root, rows with T = 0, the row shift s of both signs and
s <= -31 (every normalised value 0); so a tier that got one of them wrong fails there."""
from __future__ import annotations

import numpy as np

from cases import norm
from compiler import reference


def _rows():
    for case in norm.cases():
        a = case.graph.ops[0].attrs
        q = np.asarray(case.inputs[0], np.int64).reshape(-1, case.inputs[0].shape[-1])
        depth = q.shape[1]
        s, ss = q.sum(1), (q * q).sum(1)
        centre = s if a["mode"] == "layer" else np.full_like(s, depth * a["input_zero_point"])
        total = ((depth * ss - 2 * centre * s + centre * centre) << a["epsilon_shift"]) + (
            (a["epsilon_high"] << 31) + a["epsilon_low"])
        for t in (int(v) for v in total):
            k = (t.bit_length() - 29) // 2
            m = t >> (2 * k) if k >= 0 else t << (-2 * k)
            shift = a["norm_bits"] + a["epsilon_shift"] // 2 - k - reference.norm_input_shift(depth) - 12
            yield t, (m >> 25) - 8, shift


def test_cases_reach_every_branch_of_the_kernels():
    rows = list(_rows())
    assert {seed for t, seed, _ in rows if t} == set(range(len(reference.NORM_RSQRT_SEEDS)))
    assert any(t == 0 for t, _, _ in rows)
    shifts = [s for t, _, s in rows if t]
    assert min(shifts) <= -31 and any(-30 <= s < 0 for s in shifts) and max(shifts) > 0
