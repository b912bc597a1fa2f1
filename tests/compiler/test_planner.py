"""The memory planner: lifetimes, no overlap of live buffers, smallest strategy, clear errors."""
from __future__ import annotations

import numpy as np
import pytest

from compiler.errors import PlanError
from compiler.ir import Graph, Op, Tensor
from compiler.planner import ALIGNMENT, Buffer, Region, lifetimes, peak, plan_memory, verify


def _chain(sizes: list[int]) -> Graph:
    """t0 -> op -> t1 -> op -> ... : a straight line of int8 tensors of the given sizes."""
    tensors = {f"t{i}": Tensor(f"t{i}", "int8", (s,)) for i, s in enumerate(sizes)}
    ops = [Op("relu", [f"t{i}"], [f"t{i + 1}"]) for i in range(len(sizes) - 1)]
    return Graph(tensors, ops, ["t0"], [f"t{len(sizes) - 1}"])


def test_chain_reuses_memory_of_dead_tensors():
    graph = _chain([100, 200, 50, 300])
    plan = plan_memory(graph, Region("sram", 10_000))
    # at most two neighbours are alive at once: the largest neighbouring pair bounds the peak
    assert plan.size == max(112 + 208, 208 + 64, 64 + 304)
    assert graph.arenas[0].size == plan.size and graph.arenas[0].name == "sram"
    assert all(graph.tensors[n].offset % ALIGNMENT == 0 for n in graph.tensors)


def test_random_graphs_never_overlap_live_buffers():
    rng = np.random.default_rng(0)
    for _ in range(50):
        n = int(rng.integers(2, 30))
        bufs = []
        for i in range(n):
            first = int(rng.integers(0, 20))
            bufs.append(Buffer(f"b{i}", int(rng.integers(1, 64)) * 16, first, first + int(rng.integers(0, 8))))
        from compiler.planner import STRATEGIES, _first_fit
        for order in STRATEGIES.values():
            offsets = _first_fit(order(bufs))
            verify(bufs, offsets)
            assert peak(bufs, offsets) <= sum(b.size for b in bufs)


def test_verify_catches_an_overlap():
    a, b = Buffer("a", 32, 0, 2), Buffer("b", 32, 1, 3)
    with pytest.raises(PlanError, match="overlap"):
        verify([a, b], {"a": 0, "b": 16})


def test_plan_that_does_not_fit_names_region_bytes_and_largest_buffers():
    with pytest.raises(PlanError) as error:
        plan_memory(_chain([1000, 4000, 10]), Region("dtcm", 2048))
    message = str(error.value)
    assert "dtcm" in message and "2048" in message and "t1 (4000 B)" in message


def test_outputs_live_to_the_end_and_chart_prints_every_buffer():
    graph = _chain([16, 16, 16, 16])
    graph.outputs = ["t1", "t3"]
    by_name = {b.name: b for b in lifetimes(graph)}
    assert by_name["t1"].last == 2  # read at step 1, kept to the last step as an output
    assert by_name["t0"].last == 0 and by_name["t2"].first == 1
    plan = plan_memory(graph, Region("sram", 1024))
    chart = plan.chart()
    assert all(name in chart for name in graph.tensors)
    data = plan.as_json()
    assert data["size"] == plan.size and {b["name"] for b in data["buffers"]} == set(graph.tensors)
    assert all(b["offset"] + b["size"] <= data["size"] for b in data["buffers"])
