"""Placement over several memory regions: which region each buffer lives in, then one arena per region.

A board offers several RAM regions (board.yaml `memory:` entries with `arena: true`: DTCM, SRAM,
DDR …), each with a speed rank (0 = fastest). An app may pin tensors, or the weights of named
layers, to a region and cap how much of a region the plan may use (app.yaml `memory:`, see
README.md). Step by step:

1. Lifetimes as in compiler/planner.py (reshape outputs merged into their input's buffer, kernel
   scratch as `<output>.scratch`). A pinned constant (weights) becomes a buffer alive over every
   step and across invocations: the loader copies it there once (em_program_copy_constants) and
   nothing may ever overwrite it.
2. Start: every pinned buffer in its region, every other buffer in the fastest region.
3. Regions in speed order (ties: board.yaml order). While the region's buffers do not fit its
   capacity (the board's size, less the stack when it shares the region, or the app's cap), one
   unpinned buffer moves on to the next region by speed. The one moved is alive at the step with
   the largest live footprint (moving any other cannot lower the peak) and, of those, the one
   with the fewest reads and writes per byte (ops that use it / its size), ties the largest:
   big feature maps touched by two ops leave first, small hot buffers stay fast. Kernel scratch
   (re-read for every output pixel) leaves last. Then the buffers that left are tried back, most
   accessed per byte first, each staying if it fits the holes. Each region is planned by the six
   strategies of compiler/planner.py, the smallest verified plan winning (verifier always on).
   In-place pairs (OpSpec.margin) stay allowed only when both buffers share a region.
4. Fit: the slowest region over its capacity is a PlanError naming it, the bytes needed and the
   largest buffers; a region that cannot hold its pins is a PlacementError naming the pins.
5. Arenas: one per region that holds a buffer, fastest first (graph.arenas); each tensor gets its
   arena index and offset. The firmware declares each arena in the section `.em_arena.<region>`
   of the board's linker script.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from compiler import scratch
from compiler.errors import PlacementError, PlanError
from compiler.ir import Arena, Graph
from compiler.layers import layer_name
from compiler.ops import OP_TABLE
from compiler.planner import (Buffer, Overlaps, Plan, Region, _align, aliases, best_offsets, does_not_fit,
                              lifetimes, overlaps)

# Ops whose constant inputs (weights, bias) only their kernels read, at run time: those may be
# copied to RAM. Other ops' constants (LUT tables, the audio front end's tables) are read by
# their check() at load, before any copy, so they stay in the program.
PINNABLE_KINDS = frozenset(spec.kind for spec in OP_TABLE.values() if spec.weighted)


@dataclass(frozen=True)
class Memory:
    """What the planner may use: `regions` (the board's arena regions), `pins` (tensor or layer
    name → region name), `caps` (region name → most bytes the plan may use there) and the names
    of the board's other regions (flash, ITCM: named in errors, never planned)."""

    regions: tuple[Region, ...]
    pins: Mapping[str, str] = field(default_factory=dict)
    caps: Mapping[str, int] = field(default_factory=dict)
    not_arena: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.regions:
            raise PlacementError("no memory region to plan into: the board needs a region with arena: true")
        for name, cap in self.caps.items():
            self.region(name, "cap")
            if isinstance(cap, bool) or not isinstance(cap, int) or cap < 0:
                raise PlacementError(f"cap of region {name} is {cap!r}: give a size in bytes (an integer >= 0)")
        for tensor, name in self.pins.items():
            self.region(name, f"pin of {tensor}")

    def region(self, name: str, what: str) -> Region:
        """The region called `name`, or a PlacementError saying which names exist."""
        for region in self.regions:
            if region.name == name:
                return region
        known = ", ".join(r.name for r in self.ordered())
        if name in self.not_arena:
            raise PlacementError(f"{what}: region {name} is not RAM the planner may use (arena: false in "
                                 f"board.yaml: code or flash); arena regions: {known}")
        raise PlacementError(f"{what}: no memory region {name!r} on this board; arena regions: {known}")

    def ordered(self) -> list[Region]:
        """The regions fastest first (stable: board.yaml order among equal speeds), capped."""
        ranked = sorted(self.regions, key=lambda r: r.speed)
        return [Region(r.name, min(r.capacity, self.caps.get(r.name, r.capacity)), r.speed, r.base) for r in ranked]


@dataclass
class MemoryPlan:
    """One Plan per region used (fastest first), the regions offered, and the pins honoured."""

    plans: list[Plan]
    regions: list[Region]
    pinned: dict[str, str]  # tensor (a buffer's root, or a constant) -> region
    steps: int

    @property
    def size(self) -> int:
        return sum(p.size for p in self.plans)

    @property
    def region(self) -> str:
        return self.plans[0].region if self.plans else self.regions[0].name

    @property
    def strategy(self) -> str:
        return "+".join(p.strategy for p in self.plans)

    @property
    def buffers(self) -> list[Buffer]:
        return [b for p in self.plans for b in p.buffers]

    @property
    def offsets(self) -> dict[str, int]:
        return {name: off for p in self.plans for name, off in p.offsets.items()}

    def region_of(self, name: str) -> str:
        for p in self.plans:
            if name in p.offsets:
                return p.region
        raise KeyError(name)

    def as_json(self) -> dict:
        """Total bytes, the pins, and per region used: base, speed, capacity, size, strategy and
        the buffers (as Plan.as_json; `pinned_constant` for weights copied there at load)."""
        by_name = {r.name: r for r in self.regions}
        regions = []
        for plan in self.plans:
            r = by_name[plan.region]
            data = plan.as_json()
            for b in data["buffers"]:
                if b["name"] in self.pinned:
                    b["pinned"] = self.pinned[b["name"]]
            regions.append({"name": r.name, "base": r.base, "speed": r.speed, "capacity": r.capacity, **data})
        return {"size": self.size, "pinned": dict(self.pinned), "regions": regions}

    def chart(self, width: int = 60) -> str:
        """ASCII chart per region: one row per buffer, '#' over the op steps it is alive."""
        by_name = {r.name: r for r in self.regions}
        parts = []
        for plan in self.plans:
            r = by_name[plan.region]
            base = f"base 0x{r.base:08x}, " if r.base is not None else ""
            head = f"region {r.name} ({base}speed {r.speed}, capacity {r.capacity} B)"
            marks = {n: f"pinned to {reg}" for n, reg in self.pinned.items()}
            parts.append(head + "\n" + plan.chart(width, steps=self.steps, notes=marks))
        return "\n\n".join(parts)


def _pinnable(graph: Graph, name: str) -> bool:
    consumers = graph.consumers(name)
    return bool(consumers) and all(op.kind in PINNABLE_KINDS for op in consumers) and name not in graph.outputs


def resolve_pins(graph: Graph, memory: Memory) -> dict[str, str]:
    """Pins as planned names: an activation's buffer (its root, for a reshape's output), or a
    constant (the weights of a named layer, or a constant named directly) → region."""
    root = aliases(graph)
    layers: dict[str, list] = {}
    for op in graph.ops:
        layers.setdefault(layer_name(op), []).append(op)
    pinned: dict[str, str] = {}

    def pin(name: str, region: str, what: str) -> None:
        if pinned.get(name, region) != region:
            raise PlacementError(f"{what}: tensor {name} is pinned to both {pinned[name]} and {region}; keep one pin")
        pinned[name] = region

    for key, region in memory.pins.items():
        if key in graph.tensors:
            tensor = graph.tensors[key]
            if tensor.is_constant and not _pinnable(graph, key):
                kinds = sorted({op.kind for op in graph.consumers(key)})
                raise PlacementError(
                    f"pin of {key}: a constant read by {', '.join(kinds) or 'no op'}; only the weights of "
                    f"{', '.join(sorted(PINNABLE_KINDS))} may be copied to RAM (the others are checked at load)")
            pin(root.get(key, key), region, f"pin of {key}")
        elif key in layers:
            constants = [t for op in layers[key] for t in op.inputs
                         if graph.tensors[t].is_constant and _pinnable(graph, t)]
            if not constants:
                kinds = sorted({op.kind for op in layers[key]})
                raise PlacementError(
                    f"pin of layer {key}: its ops ({', '.join(kinds)}) have no weights that may be copied to RAM "
                    f"(only {', '.join(sorted(PINNABLE_KINDS))}); pin its output tensor by name instead")
            for name in dict.fromkeys(constants):
                pin(name, region, f"pin of layer {key}")
        else:
            weighted = [n for n, ops in layers.items() if any(op.kind in PINNABLE_KINDS for op in ops)]
            raise PlacementError(
                f"pin of {key}: no tensor or layer of that name in the model; layers with weights: "
                f"{', '.join(weighted[:12]) or 'none'}{' …' if len(weighted) > 12 else ''} "
                f"(tensor and layer names as plan.txt shows them)")
    return pinned


def uses(graph: Graph) -> dict[str, int]:
    """Ops that read or write each planned buffer (aliases counted on their root)."""
    root = aliases(graph)
    count: dict[str, int] = {}
    for op in graph.ops:
        for name in dict.fromkeys(op.inputs + op.outputs):
            key = root.get(name, name)
            count[key] = count.get(key, 0) + 1
    return count


def live_peak(buffers: list[Buffer]) -> tuple[int, int]:
    """(bytes, step) of the step where the buffers alive together are largest: no plan is smaller."""
    steps = {s for b in buffers for s in (b.first, b.last)}
    best = (0, 0)
    for s in sorted(steps):
        total = sum(b.size for b in buffers if b.first <= s <= b.last)
        best = max(best, (total, -s))
    return best[0], -best[1]


def _victim(mine: list[Buffer], pinned: Mapping[str, str], count: Mapping[str, int]) -> Buffer | None:
    """The buffer that leaves a full region (see the module's step 3), None if all are pinned."""
    _, step = live_peak(mine)
    movable = [b for b in mine if b.name not in pinned]
    at_peak = [b for b in movable if b.first <= step <= b.last] or movable
    if not at_peak:
        return None
    return min(at_peak, key=lambda b: (b.name.endswith(scratch.SUFFIX), count.get(b.name, 1) / b.size, -b.size))


def plan_placement(graph: Graph, memory: Memory, tier: str | None = None) -> MemoryPlan:
    """Places every planned buffer of `graph` in a region and at an offset (in place: tensors'
    `arena` and `offset`, graph.arenas) and returns the MemoryPlan. Constants pinned to RAM get an
    offset too: the writer marks them to be copied there at load."""
    scratch.attach(graph, tier)
    regions = memory.ordered()
    pinned = resolve_pins(graph, memory)
    last_step = max(len(graph.ops) - 1, 0)
    activations = lifetimes(graph)
    constants = [Buffer(n, _align(graph.tensors[n].nbytes), 0, last_step) for n in pinned if graph.tensors[n].is_constant]
    buffers = activations + constants
    allowed_all: Overlaps = overlaps(graph, activations)
    count = uses(graph)
    where = {b.name: pinned.get(b.name, regions[0].name) for b in buffers}
    plans: list[Plan] = []
    def attempt(region: Region) -> Plan | None:
        """The best plan of the buffers now in `region`, None if it is over capacity."""
        mine = [b for b in buffers if where[b.name] == region.name]
        allowed = {k: m for k, m in allowed_all.items() if where[k[0]] == region.name == where[k[1]]}
        if live_peak(mine)[0] > region.capacity:
            return None
        size, strategy, offsets = best_offsets(mine, allowed)
        return Plan(strategy, mine, offsets, size, region.name, allowed) if size <= region.capacity else None

    for i, region in enumerate(regions):
        plan, evicted = None, []
        while True:
            mine = [b for b in buffers if where[b.name] == region.name]
            if not mine:
                break
            plan = attempt(region)
            if plan is not None:
                break
            allowed = {k: m for k, m in allowed_all.items() if where[k[0]] == region.name == where[k[1]]}
            bound, step = live_peak(mine)
            victim = _victim(mine, pinned, count)
            if victim is None:
                held = sorted((b for b in mine if b.first <= step <= b.last), key=lambda b: -b.size)
                raise PlacementError(
                    f"pins to region {region.name} need {bound} bytes at op step {step} but it holds "
                    f"{region.capacity}: {', '.join(f'{b.name} ({b.size} B)' for b in held[:4])}; "
                    f"pin fewer tensors there, or raise its cap in app.yaml (memory: cap:)")
            if i == len(regions) - 1:
                size = best_offsets(mine, allowed)[0] if bound <= region.capacity else bound
                what = "activations" if len(regions) == 1 else "buffers spilled this far"
                raise does_not_fit(region.name, size, region.capacity, mine, what)
            where[victim.name] = regions[i + 1].name
            evicted.append(victim)
        # Refill: an evicted buffer comes back when it fits in the holes the others left (the
        # most accessed per byte tried first), so that the fast region is used up to its capacity.
        for b in sorted(evicted, key=lambda b: (not b.name.endswith(scratch.SUFFIX), -count.get(b.name, 1) / b.size)):
            where[b.name] = region.name
            again = attempt(region)
            if again is None:
                where[b.name] = regions[i + 1].name
            else:
                plan = again
        if plan is not None:
            plans.append(plan)
    _apply(graph, plans, regions)
    plan = MemoryPlan(plans, regions, pinned, last_step + 1)
    check_plan(graph, plan, memory)  # the verifier, on the tensors as the writer will see them
    return plan


def _apply(graph: Graph, plans: list[Plan], regions: list[Region]) -> None:
    """Tensors' arena index and offset, aliases on their root's, and one Arena per plan."""
    root = aliases(graph)
    if not plans:
        graph.arenas = [Arena(regions[0].name, 0)]
        return
    graph.arenas = [Arena(p.region, p.size) for p in plans]
    placed: dict[str, tuple[int, int]] = {}
    for index, plan in enumerate(plans):
        for name, offset in plan.offsets.items():
            placed[name] = (index, offset)
    for name, r in root.items():
        placed[name] = placed[r]
    for name, (index, offset) in placed.items():
        graph.tensors[name].arena = index
        graph.tensors[name].offset = offset


def check_plan(graph: Graph, plan: MemoryPlan, memory: Memory) -> None:
    """Independent check of a placed graph: each region's arena within its capacity, every planned
    tensor inside its arena, and tensors alive together in one arena byte-disjoint (or an allowed
    in-place pair). Raises PlanError: a failure is a compiler bug."""
    from compiler.planner import verify

    capacity = {r.name: r.capacity for r in memory.ordered()}
    for index, arena in enumerate(graph.arenas):
        if arena.size > capacity[arena.name]:
            raise PlanError(f"planner bug: arena {arena.name} of {arena.size} B over its capacity {capacity[arena.name]}")
    for p in plan.plans:
        verify(p.buffers, p.offsets, p.in_place)
        index = [a.name for a in graph.arenas].index(p.region)
        for b in p.buffers:
            t = graph.tensors[b.name]
            if t.arena != index or t.offset != p.offsets[b.name] or t.offset + t.nbytes > graph.arenas[index].size:
                raise PlanError(f"planner bug: tensor {b.name} not inside arena {p.region}")
