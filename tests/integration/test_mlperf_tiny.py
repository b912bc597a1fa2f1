"""The four MLPerf Tiny architectures (DS-CNN, ResNet-8, MobileNetV1-0.25, the autoencoder) lower
and run bit-exact against the reference on one board per tier: corstone300 (mve), mps2_an386
(dsp) and mps2_an385 (scalar). Weights are the benchmark's seeded ones (ember_build/bench.py);
each model is quantized once and lowered once per tier."""
from __future__ import annotations

import numpy as np
import pytest

from ember_build import bench
from ember_build.board import one_board_per_tier
from tests.integration.runners import output_of

BOARDS = [(b.name, b.cpu, b.tier) for b in one_board_per_tier()]  # corstone300, mps2_an386, mps2_an385
# Multiply-accumulates of the reference architectures (MLPerf Tiny: 2.66 M, 12.5 M, 7.5 M, 0.264 M).
MACS = {"ds_cnn": 2_656_768, "resnet8": 12_501_632, "mobilenet_v1_025": 7_489_664, "autoencoder": 264_192}


@pytest.fixture(scope="module", params=list(bench.MLPERF_MODELS))
def lowered(request) -> tuple[str, dict]:
    """(model, {tier: program}): quantized once, lowered for each tier."""
    name = request.param
    return name, {tier: bench.lower(name, cpu, tier) for _, cpu, tier in BOARDS}


def test_architectures_have_the_reference_mac_counts(lowered):
    name, programs = lowered
    for program in programs.values():
        assert sum(row["macs"] for row in bench.layer_rows(program.graph)) == MACS[name]
        # Keras "same" zero pads (apps/common/padding.py) all fold into the convolutions
        assert "pad" not in {op.kind for op in program.graph.ops}, name


@pytest.mark.parametrize("board,cpu,tier", BOARDS)
def test_device_equals_reference(tmp_path, lowered, board, cpu, tier):
    name, programs = lowered
    program = programs[tier]
    x = bench.bench_input(program)
    got = output_of(board, program, [x], tmp_path)
    expected = program.run_reference(x)[0]
    np.testing.assert_array_equal(np.frombuffer(got, expected.dtype).reshape(expected.shape), expected,
                                  err_msg=f"{name} on {board}")


# Issue 5's targets for planned activation + scratch bytes on corstone300 (mve).
ARENA_TARGETS = {"ds_cnn": 12_000, "resnet8": 36_000, "mobilenet_v1_025": 60_000, "autoencoder": 1_300}


def test_every_planner_strategy_verifies_and_the_mve_plan_meets_its_target(lowered):
    from compiler import planner

    name, programs = lowered
    for tier, program in programs.items():
        buffers = planner.lifetimes(program.graph)  # scratch outputs already attached for the tier
        allowed = planner.overlaps(program.graph, buffers)
        sizes = {}
        for strategy, order in planner.STRATEGIES.items():
            offsets = planner._first_fit(order(buffers), allowed)
            planner.verify(buffers, offsets, allowed)
            sizes[strategy] = planner.peak(buffers, offsets)
        assert program.plan.size == min(sizes.values()), (name, tier, sizes)
    assert programs["mve"].plan.size <= ARENA_TARGETS[name], programs["mve"].plan.chart()
