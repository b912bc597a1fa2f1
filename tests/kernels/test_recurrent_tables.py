"""The recurrent kernels' Q0.15 sigmoid and tanh tables (runtime/kernels/em_nn_rnn_s16.c) hold
the reference's entries (compiler/reference.py SIGMOID_Q15_TABLE, TANH_Q15_TABLE), one for one:
the gates' bytes depend on every entry, and the C copy is written out by hand, not generated."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from compiler import reference

SOURCE = Path(__file__).resolve().parents[2] / "runtime" / "kernels" / "em_nn_rnn_s16.c"


def c_table(name: str) -> np.ndarray:
    m = re.search(rf"{name}\[[A-Z_]+\] = \{{(.*?)\}};", SOURCE.read_text(), re.S)
    assert m, f"{name} is not in {SOURCE.name}"
    return np.array([int(v) for v in m.group(1).replace("\n", " ").split(",") if v.strip()])


@pytest.mark.parametrize("name, table", [("em_nn_sigmoid_q15_table", reference.SIGMOID_Q15_TABLE),
                                         ("em_nn_tanh_q15_table", reference.TANH_Q15_TABLE)])
def test_the_c_table_holds_the_references_entries(name, table):
    np.testing.assert_array_equal(c_table(name), np.asarray(table))
