"""float_unary cases: every function (libm ones — exp, log, tanh, erf — within
reference.FLOAT_LIBM_ULPS) on lane-tail sizes, random values, special values (±0, ±inf, NaN,
exp's overflow and underflow, log of negatives, tiny and huge magnitudes), clamp / leaky alpha."""
from __future__ import annotations

import numpy as np

from cases._float import SPECIAL, f32, float_case, randn, rng_for
from compiler import reference
from conformance import Case

OP = "float_unary"
SIZES = [(1,), (3,), (2, 7), (4, 5, 3)]
ATTRS = [{"alpha": 0.125, "min": -0.5, "max": 2.0}, {"alpha": -1.5, "min": 0.0, "max": 6.0},
         {"alpha": 0.0, "min": -np.inf, "max": np.inf}, {"alpha": 3.0, "min": -0.0, "max": 0.0}]
RAMP = np.concatenate([np.linspace(-12.0, 12.0, 49, dtype=np.float32), SPECIAL,
                       np.array([-3.0, 3.0, -2.9999998, 1e-7, -1e-7, 0.5, 2.0, 100.0, -100.0], np.float32)])


def cases() -> list[Case]:
    out = []
    for f, function in enumerate(reference.FLOAT_UNARY_FUNCTIONS):
        libm = function in reference.FLOAT_LIBM_FUNCTIONS
        for k, shape in enumerate(SIZES):
            rng = rng_for(OP, function, k)
            x = randn(rng, shape, 4.0)
            if function in ("log", "sqrt", "rsqrt"):
                x = np.abs(x)
            attrs = {"function": function, **ATTRS[(k + f) % len(ATTRS)]}
            out.append(float_case(OP, [f32("x", shape)], shape, attrs, [x], f"{function}_{'x'.join(map(str, shape))}",
                                  {"input": shape, **attrs}, libm=libm))
        attrs = {"function": function, **ATTRS[f % len(ATTRS)]}
        out.append(float_case(OP, [f32("x", RAMP.shape)], RAMP.shape, attrs, [RAMP], f"{function}_special",
                              {"input": RAMP.shape, **attrs, "values": "ramp -12..12 and special"}, libm=libm))
    return out
