"""Limits an adapter enforces that the compiler must respect when it lowers."""
from __future__ import annotations

import re

from build_host import REPO


def test_the_concatenation_input_limit_is_the_adapters():
    from compiler.ops.concatenation import MAX_INPUTS

    source = (REPO / "runtime/ops/em_op_concatenation.c").read_text()
    assert re.search(r"#define EM_CONCAT_MAX_INPUTS (\d+)u", source).group(1) == str(MAX_INPUTS)
