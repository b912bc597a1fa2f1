"""gru: one layer over T steps (tests/kernels/cases/_recurrent.py: sizes 1, 3, 17, 64, T = 1,
both layouts, state given or zero, gate pre-activations past ±8, zero points at the ends), each
output (y, h_n) checked byte for byte."""
from __future__ import annotations

from cases._recurrent import cases as recurrent_cases
from conformance import Case


def cases() -> list[Case]:
    return recurrent_cases("gru")
