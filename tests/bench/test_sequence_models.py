"""The benchmark's recurrent and attention keyword spotters (apps/kws/sequence_models.py: `crnn`,
`kwt`) lower fully int8 for every tier, with the architectures' MAC counts, and the benchmark's
layer table names every op they lower to. No QEMU here: `./scons bench models=crnn,kwt` runs them."""
from __future__ import annotations

from collections import Counter

import pytest

from compiler.ops import OP_TABLE
from compiler.program import float_fallback_report
from compiler.target import CPUS
from ember_build import bench

TIERS = ("mve", "dsp", "scalar")
# conv 25·5·48·40; GRU 25 steps · 3 gates · 60 · (240 + 60), then · (60 + 60); dense 60·84 + 84·12
CRNN_MACS = 25 * 5 * 48 * 40 + 25 * 3 * 60 * 300 + 25 * 3 * 60 * 120 + 60 * 84 + 84 * 12
# embedding 49·10·64; per block: q, k, v 50·64·192, q·kᵀ and ·v 2 · 2 heads · 50·50·32, output
# 50·64·64, MLP 2 · 50·64·128; head 64·12
KWT_MACS = 49 * 10 * 64 + 3 * (50 * 64 * 192 + 2 * 2 * 50 * 50 * 32 + 50 * 64 * 64 + 2 * 50 * 64 * 128) + 64 * 12
EXPECTED = {"crnn": (CRNN_MACS, {"conv2d": 1, "gru": 2, "fully_connected": 2, "softmax": 1}),
            "kwt": (KWT_MACS, {"fully_connected": 14, "batch_matmul": 6, "softmax": 4, "norm": 7, "lut": 3})}


@pytest.fixture(scope="module", params=list(EXPECTED))
def lowered(request) -> tuple[str, dict]:
    """(model, {tier: program}): quantized once (the slow part), lowered for each tier."""
    name = request.param
    cpus = {tier: next(c.name for c in CPUS.values() if c.best_tier == tier) for tier in TIERS}
    return name, {tier: bench.lower(name, cpus[tier], tier) for tier in TIERS}


def test_they_are_bench_models_without_a_cmsis_nn_figure():
    for name in EXPECTED:
        assert bench.MODELS[name].cmsis_nn == {} and bench.instruction_target(name, "mve") is None
        assert bench.select(name, list(bench.MODELS), "model") == [name]


def test_they_lower_fully_int8_with_the_architectures_macs(lowered):
    name, programs = lowered
    macs, kinds = EXPECTED[name]
    for tier, program in programs.items():
        graph = program.graph
        assert float_fallback_report(graph) == "", (name, tier)
        assert not [op.kind for op in graph.ops if op.kind.startswith("float_")], (name, tier)
        counts = Counter(op.kind for op in graph.ops)
        assert {kind: counts[kind] for kind in kinds} == kinds, (name, tier, counts)
        rows = bench.layer_rows(graph)
        assert sum(row["macs"] for row in rows) == macs, (name, tier)
        assert all(row["op"] in OP_TABLE and " -> " in row["shape"] for row in rows)


def test_the_layer_table_shows_the_rows_folded_into_a_leading_dim(lowered):
    """A linear over 50 tokens is "50x64 -> 50x192", not "64 -> 192"; a GRU's shape names its steps."""
    name, programs = lowered
    rows = bench.layer_rows(programs["mve"].graph)
    shapes = {(row["op"], row["shape"]) for row in rows}
    if name == "kwt":
        assert {("fully_connected", "50x64 -> 50x192"), ("batch_matmul", "2x50x32 -> 2x50x50"),
                ("norm", "50x64 -> 50x64 layer"), ("lut", "50x128 -> 50x128")} <= shapes
    else:
        assert {("gru", "25x240 -> 25x60 T=25"), ("gru", "25x60 -> 25x60 T=25")} <= shapes
    record = {"model": name, "board": "corstone300", "tier": "mve", "unit": "instructions (QEMU)",
              "instructions": 10 * len(rows), "macs": sum(r["macs"] for r in rows), "arena_bytes": 1,
              "code_bytes": 1, "match": True, "layers": [dict(row, instructions=10) for row in rows]}
    text = bench.kernels_md([record])
    assert f"| {bench.MODELS[name].title} | corstone300 | mve | {10 * len(rows):,} | - | - | - |" in text
