"""int8 softmax on rows chosen to break it (cases/softmax.py edge_rows: flat rows,
extremes, one dominant value, long rows): a flat row stays flat in the reference, which every
device matches byte for byte in the conformance suite."""
from __future__ import annotations

import pytest

from compiler import reference
from cases.softmax import EDGE_ROWS, edge_rows


@pytest.mark.parametrize("width,input_scale", EDGE_ROWS)
def test_a_flat_row_stays_flat(width, input_scale):
    rows = edge_rows(width)
    got = reference.softmax_s8(rows, **reference.softmax_parameters(input_scale))
    assert all(len(set(got[k].tolist())) == 1 for k in range(3))  # the rows of 7, of -128 and of 127
