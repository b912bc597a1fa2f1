"""Placement over several memory regions (compiler/placement.py): random graphs over two or three
regions with caps (the verifier on, and an independent check here), the spill rule, pins, named
errors for bad pins and caps, app.yaml's `memory:` keys, and the program round trip of pinned weights."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from compiler.errors import PlacementError, PlanError
from compiler.ir import Graph, Op, Tensor
from compiler.placement import Memory, check_plan, live_peak, plan_placement
from compiler.planner import Region, plan_memory

FAST, MID, SLOW = Region("dtcm", 4096, 0, 0x20000000), Region("isram", 16384, 1, 0x21000000), Region("ddr", 1 << 20, 4, 0x60000000)


def _random_graph(rng: np.random.Generator, n_ops: int) -> Graph:
    """A DAG of relu / add / reshape ops over int8 tensors of random sizes, with a weighted
    fully_connected layer or two (their constants pinnable)."""
    tensors = {"x": Tensor("x", "int8", (int(rng.integers(1, 400)),))}
    live, ops = ["x"], []
    for i in range(n_ops):
        out = f"t{i}"
        kind = rng.choice(["relu", "add", "reshape", "fully_connected"], p=[0.45, 0.25, 0.15, 0.15])
        a = live[int(rng.integers(max(0, len(live) - 4), len(live)))]
        if kind == "reshape":
            tensors[out] = Tensor(out, "int8", (1, tensors[a].nbytes))
            ops.append(Op("reshape", [a], [out]))
        elif kind == "fully_connected":
            n_out = int(rng.integers(1, 300))
            w = Tensor(f"w{i}", "int8", (n_out, tensors[a].nbytes), data=np.zeros((n_out, tensors[a].nbytes), np.int8))
            tensors[w.name] = w
            tensors[out] = Tensor(out, "int8", (n_out,))
            ops.append(Op("fully_connected", [a, w.name], [out], origin=f"net.fc{i} (Linear) at m.py:{i}"))
        else:
            inputs = [a] if kind == "relu" else [a, live[int(rng.integers(0, len(live)))]]
            tensors[out] = Tensor(out, "int8", (int(rng.integers(1, 1500)),))
            ops.append(Op(kind, inputs, [out]))
        live.append(out)
    outputs = [live[-1]] + ([live[len(live) // 2]] if rng.random() < 0.3 else [])
    return Graph(tensors, ops, ["x"], outputs)


def _independent_check(graph: Graph, plan, memory: Memory) -> None:
    """Without the planner's code: every planned tensor inside its arena, arenas within their
    caps, and two tensors of one arena alive at the same step disjoint unless one is a reshape
    of the other (same root) or an allowed in-place pair."""
    capacity = {r.name: r.capacity for r in memory.ordered()}
    for arena in graph.arenas:
        assert arena.size <= capacity[arena.name]
    assert [a.name for a in graph.arenas] == sorted((a.name for a in graph.arenas), key=[r.name for r in memory.ordered()].index)
    steps: dict[str, tuple[int, int]] = {}
    last = len(graph.ops) - 1
    for s, op in enumerate(graph.ops):
        for t in op.outputs:
            steps.setdefault(t, (s, s))
        for t in op.inputs + op.outputs:
            if t in steps:
                steps[t] = (steps[t][0], max(steps[t][1], s))
    for t in graph.inputs:
        steps[t] = (0, max(steps.get(t, (0, 0))[1], 0))
    for t in graph.outputs:
        steps[t] = (steps[t][0], last)
    for name, region in plan.pinned.items():
        if graph.tensors[name].is_constant:
            steps[name] = (0, last)
    placed = {n: t for n, t in graph.tensors.items() if t.offset is not None}
    for n, t in placed.items():
        assert t.offset % 16 == 0 and t.offset + t.nbytes <= graph.arenas[t.arena].size
    in_place = {k for p in plan.plans for k in p.in_place}
    root = {}
    for op in graph.ops:
        if op.kind == "reshape":
            root[op.outputs[0]] = root.get(op.inputs[0], op.inputs[0])
    names = sorted(placed)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            ta, tb = placed[a], placed[b]
            if ta.arena != tb.arena or root.get(a, a) == root.get(b, b):
                continue
            (fa, la), (fb, lb) = steps[a], steps[b]
            if fa > lb or fb > la:
                continue
            if ta.offset < tb.offset + tb.nbytes and tb.offset < ta.offset + ta.nbytes:
                assert (root.get(a, a), root.get(b, b)) in in_place or (root.get(b, b), root.get(a, a)) in in_place, (a, b)


def test_random_graphs_over_two_or_three_regions_with_caps():
    rng = np.random.default_rng(7)
    planned = spilled = 0
    for case in range(60):
        graph = _random_graph(rng, int(rng.integers(3, 25)))
        regions = (FAST, MID, SLOW)[: int(rng.integers(2, 4))]
        caps = {"dtcm": int(rng.integers(0, 4096))} if rng.random() < 0.7 else {}
        if rng.random() < 0.5:
            caps["isram"] = int(rng.integers(512, 16384))
        pins = {}
        weights = [n for n, t in graph.tensors.items() if t.is_constant]
        if weights and rng.random() < 0.5:
            pins[weights[0]] = regions[-1].name
        if rng.random() < 0.3:
            pins[graph.ops[0].outputs[0]] = regions[1].name
        memory = Memory(regions, pins, caps)
        try:
            plan = plan_memory(graph, memory, None)
        except PlacementError:
            continue
        except PlanError as error:  # only the slowest region may run out, and the message says so
            assert regions[-1].name in str(error) and "largest buffers" in str(error)
            continue
        planned += 1
        spilled += len(graph.arenas) > 1
        check_plan(graph, plan, memory)
        _independent_check(graph, plan, memory)
        for name, region in pins.items():
            target = name
            while graph.producer(target) is not None and graph.producer(target).kind == "reshape":
                target = graph.producer(target).inputs[0]
            assert plan.region_of(target) == region
    assert planned >= 40 and spilled >= 10, (planned, spilled)


def _line(sizes: list[int], reads: dict[int, int] | None = None) -> Graph:
    """t0 -> t1 -> ...; `reads[i]`: t_i is also read by that many extra relu ops at the end."""
    tensors = {f"t{i}": Tensor(f"t{i}", "int8", (s,)) for i, s in enumerate(sizes)}
    ops = [Op("relu", [f"t{i}"], [f"t{i + 1}"]) for i in range(len(sizes) - 1)]
    return Graph(tensors, ops, ["t0"], [f"t{len(sizes) - 1}"])


def test_one_region_without_pins_plans_as_before():
    a, b = _line([100, 2000, 50, 300, 900]), _line([100, 2000, 50, 300, 900])
    old = plan_memory(a, Region("dtcm", 1 << 16))
    new = plan_memory(b, Memory((Region("dtcm", 1 << 16),)))
    assert new.size == old.size and {n: t.offset for n, t in a.tensors.items()} == {n: t.offset for n, t in b.tensors.items()}
    assert [x.name for x in b.arenas] == ["dtcm"]


def test_spill_keeps_the_most_accessed_per_byte_in_the_fast_region():
    # big (4000 B) read once; small (64 B) read by four ops: with room for ~one of them, big leaves
    tensors = {"x": Tensor("x", "int8", (64,)), "big": Tensor("big", "int8", (4000,)),
               "small": Tensor("small", "int8", (64,))}
    ops = [Op("relu", ["x"], ["big"]), Op("relu", ["x"], ["small"])]
    for i in range(4):
        tensors[f"o{i}"] = Tensor(f"o{i}", "int8", (64,))
        ops.append(Op("add", ["small", "big" if i == 0 else f"o{i - 1}"], [f"o{i}"]))
    graph = Graph(tensors, ops, ["x"], ["o3"])
    plan = plan_memory(graph, Memory((Region("dtcm", 1024, 0), Region("sram", 1 << 16, 2))))
    assert plan.region_of("big") == "sram" and plan.region_of("small") == "dtcm"
    assert [a.name for a in graph.arenas] == ["dtcm", "sram"] and graph.tensors["big"].arena == 1
    assert "region dtcm" in plan.chart() and "region sram" in plan.chart()
    data = plan.as_json()
    assert [r["name"] for r in data["regions"]] == ["dtcm", "sram"] and data["regions"][0]["base"] is None


def test_plan_that_does_not_fit_names_region_bytes_and_largest():
    graph = _line([1000, 4000, 10])
    with pytest.raises(PlanError) as error:
        plan_memory(graph, Memory((Region("dtcm", 1024, 0), Region("sram", 2048, 2))))
    message = str(error.value)
    assert "region sram holds 2048" in message and "t1 (4000 B)" in message and "need 4" in message


def _weighted() -> Graph:
    w = np.ones((32, 64), np.int8)
    tensors = {"x": Tensor("x", "int8", (1, 64)), "w": Tensor("w", "int8", (32, 64), data=w),
               "y": Tensor("y", "int8", (1, 32)), "lut": Tensor("lut", "int8", (256,), data=np.zeros(256, np.int8)),
               "z": Tensor("z", "int8", (1, 32))}
    fc = dict(multiplier=np.full(32, 1 << 30, np.int32), shift=np.zeros(32, np.int32), output_offset=0,
              activation_min=-128, activation_max=127)
    ops = [Op("fully_connected", ["x", "w"], ["y"], fc, origin="net.fc (Linear) at m.py:3"),
           Op("lut", ["y", "lut"], ["z"], origin="net.act (Sigmoid) at m.py:4")]
    return Graph(tensors, ops, ["x"], ["z"])


REGIONS = (Region("dtcm", 8192, 0), Region("sram", 1 << 16, 2))


@pytest.mark.parametrize("pins,caps,message", [
    ({"w": "flash"}, {}, "no memory region 'flash'"),
    ({"w": "qspi"}, {}, "region qspi is not RAM"),
    ({}, {"tcm": 100}, "cap: no memory region 'tcm'"),
    ({}, {"dtcm": "lots"}, "give a size in bytes"),
    ({}, {"dtcm": -1}, "give a size in bytes"),
    ({"net.fc2": "dtcm"}, {}, "no tensor or layer of that name.*net.fc"),
    ({"lut": "dtcm"}, {}, "only the weights of"),
    ({"net.act": "dtcm"}, {}, "pin its output tensor by name"),
    ({"w": "dtcm"}, {"dtcm": 1024}, r"pins to region dtcm need 2048 bytes.*w \(2048 B\)"),
])
def test_bad_pins_and_caps_are_named_errors(pins, caps, message):
    with pytest.raises(PlacementError, match=message):
        plan_memory(_weighted(), Memory(REGIONS, pins, caps, not_arena=("qspi",)))


def test_layer_pin_places_its_weights_and_round_trips_through_the_program():
    from compiler.reader import read_program
    from compiler.target import Target
    from compiler.writer import write_program

    graph = _weighted()
    plan = plan_memory(graph, Memory(REGIONS, {"net.fc": "dtcm", "z": "sram"}))
    assert plan.pinned == {"w": "dtcm", "z": "sram"} and plan.region_of("w") == "dtcm"
    assert live_peak(plan.plans[0].buffers)[0] >= 2048  # weights alive over every step
    data = write_program(graph, Target("host"))
    back, _, _ = read_program(data)
    w = back.tensors["w"]
    assert w.is_constant and w.offset == graph.tensors["w"].offset and np.array_equal(w.data, graph.tensors["w"].data)
    assert back.tensors["lut"].offset is None and [a.name for a in back.arenas] == ["dtcm", "sram"]
    from compiler.schema import program_generated as fb

    root = fb.Program.GetRootAs(data, 0)
    by_name = {root.Tensors(i).Name().decode(): root.Tensors(i) for i in range(root.TensorsLength())}
    assert by_name["w"].Buffer() == -1 and by_name["w"].InitialBuffer() >= 0 and by_name["lut"].InitialBuffer() == -1


def test_app_yaml_memory_keys(tmp_path: Path):
    from ember_build.app_build import AppError, app_memory, memory_settings
    from ember_build.board import load_board

    pins, caps = memory_settings({"pin": {"net.fc": "dtcm"}, "cap": {"dtcm": "64 KiB", "isram": 1000}}, tmp_path)
    assert pins == (("net.fc", "dtcm"),) and caps == (("dtcm", 65536), ("isram", 1000))
    for bad in ({"pins": {}}, {"cap": {"dtcm": "big"}}, {"pin": ["x"]}, "dtcm"):
        with pytest.raises(AppError, match="memory"):
            memory_settings(bad, tmp_path)
    memory = app_memory(load_board("corstone300"))
    assert [r.name for r in memory.ordered()] == ["dtcm", "isram", "sram", "ddr"]
    assert memory.ordered()[0].capacity == 0x80000 - 32768 and memory.ordered()[0].base == 0x20000000
    assert "qspi" in memory.not_arena and "itcm" in memory.not_arena
