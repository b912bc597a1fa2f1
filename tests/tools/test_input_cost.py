"""tools/input_cost.py: planning with the inputs kept costs what the plan had put over them, and
nothing where the plan kept them anyway."""
from __future__ import annotations

import copy

from compiler.ir import Graph, Op, Tensor
from compiler.planner import Region, inputs_kept, plan_memory
from tools.input_cost import kept_arena


def _chain(sizes: list[int]) -> Graph:
    tensors = {f"t{i}": Tensor(f"t{i}", "int8", (s,)) for i, s in enumerate(sizes)}
    ops = [Op("relu", [f"t{i}"], [f"t{i + 1}"]) for i in range(len(sizes) - 1)]
    return Graph(tensors, ops, ["t0"], [f"t{len(sizes) - 1}"])


def test_kept_inputs_cost_the_bytes_the_plan_had_reused_and_nothing_else():
    graph = _chain([96, 32, 32, 32])  # t2 and t3 land on t0's bytes once it is dead
    planned = copy.deepcopy(graph)
    assert plan_memory(planned, Region("sram", 1 << 20)).size == 96 + 32 and inputs_kept(planned) == [False]
    assert kept_arena(copy.deepcopy(graph), "scalar") == 96 + 32 + 32
    graph.outputs = ["t0", "t3"]  # an output too: the plan keeps it already
    planned = copy.deepcopy(graph)
    size = plan_memory(planned, Region("sram", 1 << 20)).size
    assert inputs_kept(planned) == [True] and kept_arena(copy.deepcopy(graph), "scalar") == size
