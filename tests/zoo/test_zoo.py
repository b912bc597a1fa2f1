"""The zoo (tests/zoo/architectures.py), the op cases (tests/zoo/op_cases.py) and seeded random
op configurations (tests/zoo/random_cases.py), lowered as written for the Cortex-M55: each
lowers, each op of it is within 1 LSB of PyTorch's quantized model on PyTorch's own inputs, and
the host and the M55 (QEMU) run every program, in one em_run --batch launch each, to the
reference's bytes on every output."""
from __future__ import annotations

import pytest

from tests.zoo.architectures import ARCHITECTURES
from tests.zoo.harness import lower_all, run_on_device
from tests.zoo.op_cases import OP_CASES
from tests.zoo.random_cases import RANDOM_CASES

pytestmark = pytest.mark.slow  # lowers 183 models: minutes (tests/tiers.py)

SETS = {"zoo": ("ARCHITECTURES", ARCHITECTURES), "op": ("OP_CASES", OP_CASES), "random": ("RANDOM_CASES", RANDOM_CASES)}
MODULES = {"zoo": "tests.zoo.architectures", "op": "tests.zoo.op_cases", "random": "tests.zoo.random_cases"}
BOARDS = ["host", "corstone300"]
PARAMS = [(kind, name) for kind, (_, table) in SETS.items() for name in table]


@pytest.fixture(scope="module")
def lowered() -> dict:
    kinds = list(SETS)  # the zoo first: its recurrent models take longest
    return dict(zip(kinds, lower_all([(MODULES[kind], SETS[kind][0]) for kind in kinds])))


@pytest.fixture(scope="module")
def verdicts(lowered, tmp_path_factory) -> dict:
    every = [result for results in lowered.values() for result in results.values()]
    return {board: run_on_device(board, every, tmp_path_factory.mktemp(board)) for board in BOARDS}


@pytest.mark.parametrize("kind,name", PARAMS)
def test_lowers_and_every_op_is_within_one_lsb_of_pytorch(lowered, kind, name):
    result = lowered[kind][name]
    assert result.lowered, result.error
    assert result.op_lsb, "no op of the program could be compared with PyTorch's quantized model"
    assert result.worst_op_lsb <= 1, [row for row in result.op_lsb if row[2] > 1]


@pytest.mark.parametrize("board", BOARDS)
@pytest.mark.parametrize("kind,name", PARAMS)
def test_device_equals_the_reference(lowered, verdicts, board, kind, name):
    result = lowered[kind][name]
    if not result.lowered:
        pytest.skip("did not lower (the test above fails)")
    got = {k: verdict for (case, k), verdict in verdicts[board].items() if case == name}
    assert got and all(v.startswith("EM_OK match") for v in got.values()), got
