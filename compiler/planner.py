"""Static memory planner: every activation gets a fixed arena offset before the firmware exists.

Step by step:
1. Lifetimes. Ops run in list order; op i is step i. A tensor lives from the step that writes it
   (program inputs: step 0) to the last step that reads it (program outputs: the last step).
   Constants live in the program's flash buffers and are not planned. Persistent tensors (state:
   passes/bind_state.py) live over every step; their next values to the last step, unless they
   are written over the state itself (a next value made after the state's last read shares its
   bytes, like a reshape: no copy at the end of the invoke).
2. Placement. Each strategy visits the tensors in its own order and puts each one at the lowest
   16-byte-aligned offset where it overlaps no already placed tensor that is alive at the same
   time (first fit over the gaps). Strategies (STRATEGIES): largest first, kernel scratch
   then largest, earliest first, latest first (chains of in-place ops stack downwards),
   longest-lived first, and by breadth
   (the steps with the largest live footprint first, their largest buffers first).
3. Choice. The plan with the smallest peak (arena size) wins.
4. Verification. Every pair of tensors alive at the same time is checked for disjoint bytes,
   independently of how the plan was made; a failure is a compiler bug and raises PlanError.
   A reshape's output (an op whose OpSpec says `output_aliases_input`) is no buffer of its own:
   it shares its input's bytes, so the two are planned as one buffer alive over both lifetimes.
   In place (compiler/ops/overlap.py): an op's output may overlap an input that dies at that op when
   it starts at least the kernel's margin below it; such a pair is an `Overlap`, allowed by the
   placement and by the verifier and by nothing else.
5. Scratch. Kernel scratch (compiler/scratch.py, sized by the kernels' own C for the tier) is an
   extra output of its op: a buffer alive during that one step.
6. Fit. A plan larger than the region's capacity raises PlanError naming the region, the bytes
   needed and the largest buffers.
7. Several regions (DTCM, SRAM, DDR …), pins and caps: compiler/placement.py decides which
   region each buffer lives in (fastest first, spilling by speed) and plans each region with
   the strategies above; plan_memory hands it a compiler.placement.Memory.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from compiler import scratch
from compiler.errors import PlanError
from compiler.ir import Graph, State

if TYPE_CHECKING:
    from compiler.placement import Memory, MemoryPlan

ALIGNMENT = 16


@dataclass(frozen=True)
class Buffer:
    name: str
    size: int
    first: int  # first step alive
    last: int  # last step alive

    def overlaps_in_time(self, other: "Buffer") -> bool:
        return self.first <= other.last and other.first <= self.last


@dataclass(frozen=True)
class Region:
    """A memory region the planner may fill: name, capacity in bytes, speed rank (0 = fastest,
    board.yaml's `speed`) and base address (None: unknown, e.g. the host)."""

    name: str
    capacity: int
    speed: int = 0
    base: int | None = None


def _align(n: int) -> int:
    return (n + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT


def aliases(graph: Graph) -> dict[str, str]:
    """Tensor → the planned tensor whose bytes it shares (outputs of reshapes, transitively; and
    a state's next value written over the state itself, see `writes_over_state`)."""
    from compiler.ops import OP_TABLE

    root: dict[str, str] = {}
    for op in graph.ops:
        spec = OP_TABLE.get(op.kind)
        if spec is not None and spec.output_aliases_input and not graph.tensors[op.inputs[0]].is_constant:
            root[op.outputs[0]] = root.get(op.inputs[0], op.inputs[0])
    for state in graph.state:
        if writes_over_state(graph, state, root):
            root = {name: state.tensor if r == state.next else r for name, r in root.items()}
            root[state.next] = state.tensor
    return root


def writes_over_state(graph: Graph, state: State, root: dict[str, str]) -> bool:
    """Whether `state`'s next value may be planned on the state's own bytes, so that no copy is
    needed at the end of an invoke: it is a buffer of its own (not a reshape of another) made
    after the last step that reads the state (or a reshape of it)."""
    if state.next == state.tensor or state.next in root:
        return False
    made = next((step for step, op in enumerate(graph.ops) if state.next in op.outputs), None)
    reads = [step for step, op in enumerate(graph.ops)
             if any(root.get(name, name) == state.tensor for name in op.inputs)]
    return made is not None and made > max(reads, default=-1)


def inputs_kept(graph: Graph) -> list[bool]:
    """For each program input of a planned `graph`: whether its bytes survive an invoke, i.e. no
    other planned tensor (an activation, a scratch, a pinned constant) shares any of them besides
    the input's own aliases (reshapes of it, which write nothing). A reused input is the plan's
    saving, not a bug: keeping every input alive costs the four MLPerf models +4 % (DS-CNN) to
    +83 % (the autoencoder) of arena (runtime/README.md), so the program records which inputs are
    consumed and the serial link refuses a RUN that would read one (em_link.h)."""
    root = aliases(graph)
    placed = [(name, t) for name, t in graph.tensors.items() if t.offset is not None]
    kept = []
    for name in graph.inputs:
        x = graph.tensors[name]
        if x.offset is None:  # not planned (yet): nothing says it survives
            kept.append(False)
            continue
        start, end = x.offset, x.offset + x.nbytes
        kept.append(not any(t.arena == x.arena and t.offset < end and start < t.offset + t.nbytes and t.nbytes > 0
                            for other, t in placed if other != name and root.get(other, other) != root.get(name, name)))
    return kept


def lifetimes(graph: Graph) -> list[Buffer]:
    """One buffer per planned tensor, aliases (see `aliases`) merged into their root's."""
    root = aliases(graph)
    merged: dict[str, Buffer] = {}
    for buf in _own_lifetimes(graph):
        name = root.get(buf.name, buf.name)
        other = merged.get(name)
        merged[name] = buf if other is None else Buffer(name, max(buf.size, other.size), min(buf.first, other.first),
                                                         max(buf.last, other.last))
    return [Buffer(name, b.size, b.first, b.last) for name, b in merged.items()]


def _own_lifetimes(graph: Graph) -> list[Buffer]:
    last_step = max(len(graph.ops) - 1, 0)
    first: dict[str, int] = {name: 0 for name in graph.inputs}
    last: dict[str, int] = {name: 0 for name in graph.inputs}
    for state in graph.state:  # the bytes survive the invoke: alive over every step, as is the next
        first[state.tensor], last[state.tensor] = 0, last_step  # value until it is copied over them
    for step, op in enumerate(graph.ops):
        for name in op.outputs:
            first.setdefault(name, step)
            last[name] = max(last.get(name, step), step)
        for name in op.inputs:
            if not graph.tensors[name].is_constant:
                last[name] = max(last.get(name, step), step)
    for name in [*graph.outputs, *(state.next for state in graph.state)]:
        last[name] = last_step
    return [Buffer(n, _align(graph.tensors[n].nbytes), first[n], last[n]) for n in first]


# (output buffer, input buffer) -> margin: the output may overlap the input when
# offset(input) - offset(output) >= margin (OpSpec.margin, compiler/ops/overlap.py).
Overlaps = dict[tuple[str, str], int]


def overlaps(graph: Graph, buffers: list[Buffer]) -> Overlaps:
    """The in-place pairs of `graph`: an op's output and an input that dies at that op (after
    aliases merged: a reshape read later keeps its root alive) with the kernel's margin."""
    from compiler.ops import OP_TABLE

    root = aliases(graph)
    by_name = {b.name: b for b in buffers}
    allowed: Overlaps = {}
    for step, op in enumerate(graph.ops):
        out = by_name.get(root.get(op.outputs[0], op.outputs[0]))  # the result, not a scratch output
        for index, name in enumerate(op.inputs):
            x = by_name.get(root.get(name, name))
            if out is None or x is None or x is out or out.first != step or x.last != step:
                continue
            spec = OP_TABLE.get(op.kind)
            margin = spec.margin(graph, op, index) if spec is not None else None
            if margin is not None:
                key = (out.name, x.name)
                allowed[key] = max(margin, allowed.get(key, margin))
    return allowed


def _forbidden(buf: Buffer, other: Buffer, at: int, allowed: Overlaps) -> tuple[int, int]:
    """Offsets o with lo < o < hi where `buf` may not start, given `other` placed at `at`."""
    lo, hi = at - buf.size, at + other.size  # any byte in common
    if (buf.name, other.name) in allowed:  # buf is the output: o <= at - margin is allowed
        lo = max(lo, at - allowed[buf.name, other.name])
    if (other.name, buf.name) in allowed:  # buf is the input: o >= at + margin is allowed
        hi = min(hi, at + allowed[other.name, buf.name])
    return lo, hi


def alive_together(buffers: list[Buffer]) -> dict[str, list[Buffer]]:
    """Each buffer's name → the other buffers alive at some step it is (a sweep over the steps:
    as many pairs as are alive together, not every pair)."""
    together: dict[str, list[Buffer]] = {b.name: [] for b in buffers}
    active: list[Buffer] = []
    for buf in sorted(buffers, key=lambda b: b.first):
        active = [a for a in active if a.last >= buf.first]
        for other in active:
            together[buf.name].append(other)
            together[other.name].append(buf)
        active.append(buf)
    return together


def _first_fit(order: list[Buffer], allowed: Overlaps | None = None,
               together: dict[str, list[Buffer]] | None = None) -> dict[str, int]:
    """Each buffer, in `order`, at the lowest aligned offset clear of the placed live buffers."""
    allowed = allowed or {}
    together = together if together is not None else alive_together(order)
    offsets: dict[str, int] = {}
    for buf in order:
        spans = sorted(_forbidden(buf, b, offsets[b.name], allowed) for b in together[buf.name] if b.name in offsets)
        offset, moved = 0, True
        while moved:  # the lowest offset in no open span (lo, hi): each pass only moves it up
            moved = False
            for lo, hi in spans:
                if lo < offset < hi:
                    offset, moved = _align(hi), True
        offsets[buf.name] = offset
    return offsets


def _by_breadth(bufs: list[Buffer]) -> list[Buffer]:
    """The buffers of the step with the largest live footprint first (largest buffer first, ties
    latest first), then those of the next largest step not yet taken, and so on."""
    steps = range(max((b.last for b in bufs), default=-1) + 1)
    live = {s: [b for b in bufs if b.first <= s <= b.last] for s in steps}
    order: dict[str, Buffer] = {}
    for s in sorted(steps, key=lambda s: -sum(b.size for b in live[s])):
        for b in sorted(live[s], key=lambda b: (-b.size, -b.first)):
            order.setdefault(b.name, b)
    return list(order.values())


STRATEGIES: dict[str, Callable[[list[Buffer]], list[Buffer]]] = {
    # ties latest first: an in-place output lands before its input, which then sits just above it
    "largest_first": lambda bufs: sorted(bufs, key=lambda b: (-b.size, -b.first)),
    "earliest_first": lambda bufs: sorted(bufs, key=lambda b: (b.first, -b.size)),
    # kernel scratch low, out of the way of in-place chains above it
    "scratch_then_largest": lambda bufs: sorted(bufs, key=lambda b: (not b.name.endswith(scratch.SUFFIX), -b.size,
                                                                     -b.first)),
    "latest_first": lambda bufs: sorted(bufs, key=lambda b: (-b.last, -b.first, -b.size)),
    "longest_lived_first": lambda bufs: sorted(bufs, key=lambda b: (b.first - b.last, -b.size)),
    "by_breadth": _by_breadth,
}


def peak(buffers: list[Buffer], offsets: dict[str, int]) -> int:
    return max((offsets[b.name] + b.size for b in buffers), default=0)


def verify(buffers: list[Buffer], offsets: dict[str, int], allowed: Overlaps | None = None,
           together: dict[str, list[Buffer]] | None = None) -> None:
    """Raises PlanError unless every buffer is aligned and every two buffers alive at the same
    time are byte-disjoint, or an allowed in-place pair at least its margin apart."""
    allowed = allowed or {}
    together = together if together is not None else alive_together(buffers)
    for a in buffers:
        if offsets[a.name] % ALIGNMENT or offsets[a.name] < 0:
            raise PlanError(f"buffer {a.name} at offset {offsets[a.name]} is not {ALIGNMENT}-byte aligned")
        for b in together[a.name]:
            a0, b0 = offsets[a.name], offsets[b.name]
            if not (a0 < b0 + b.size and b0 < a0 + a.size):
                continue
            if (a.name, b.name) in allowed and b0 - a0 >= allowed[a.name, b.name]:
                continue
            if (b.name, a.name) in allowed and a0 - b0 >= allowed[b.name, a.name]:
                continue
            raise PlanError(f"planner bug: {a.name} and {b.name} overlap while both alive")


@dataclass
class Plan:
    strategy: str
    buffers: list[Buffer]
    offsets: dict[str, int]
    size: int
    region: str
    in_place: Overlaps = field(default_factory=dict)  # the allowed pairs (see `overlaps`)

    def _over(self, name: str) -> str | None:
        """The input whose bytes buffer `name` actually overlaps in place, if any."""
        for (out, x), _ in self.in_place.items():
            a, b = self.offsets[out], self.offsets[x]
            sizes = {buf.name: buf.size for buf in self.buffers if buf.name in (out, x)}
            if out == name and a < b + sizes[x] and b < a + sizes[out]:
                return x
        return None

    def as_json(self) -> dict:
        """The plan as data: region, size, winning strategy, and each buffer's bytes and steps
        (and `in_place_over`: the input it overwrites while it is written)."""
        return {
            "region": self.region,
            "size": self.size,
            "strategy": self.strategy,
            "buffers": [
                {"name": b.name, "offset": self.offsets[b.name], "size": b.size, "first_step": b.first,
                 "last_step": b.last, **({"in_place_over": self._over(b.name)} if self._over(b.name) else {})}
                for b in sorted(self.buffers, key=lambda b: (self.offsets[b.name], b.first))
            ],
        }

    def chart(self, width: int = 60, steps: int | None = None, notes: dict[str, str] | None = None) -> str:
        """ASCII chart: one row per buffer (offset, bytes), '#' over the op steps it is alive
        (`steps` columns, default up to the last step here); `notes`: text after a buffer's name."""
        steps = steps or max((b.last for b in self.buffers), default=0) + 1
        notes = notes or {}
        rows = [f"arena {self.region}: {self.size} bytes (strategy {self.strategy})"]
        for b in sorted(self.buffers, key=lambda b: self.offsets[b.name]):
            bar = "".join("#" if b.first <= s <= b.last else "." for s in range(steps))[:width]
            over = self._over(b.name)
            extra = [f"over {over}"] if over else []
            extra += [notes[b.name]] if b.name in notes else []
            rows.append(f"{self.offsets[b.name]:>8} {b.size:>8}  {bar}  {b.name}" + (f" ({'; '.join(extra)})" if extra else ""))
        return "\n".join(rows)


def best_offsets(buffers: list[Buffer], allowed: Overlaps) -> tuple[int, str, dict[str, int]]:
    """(peak, strategy, offsets) of the smallest verified plan of `buffers` over all STRATEGIES."""
    candidates = []
    together = alive_together(buffers)
    for name, order in STRATEGIES.items():
        offsets = _first_fit(order(buffers), allowed, together)
        verify(buffers, offsets, allowed, together)
        candidates.append((peak(buffers, offsets), name, offsets))
    return min(candidates, key=lambda c: c[0])


def does_not_fit(region: str, needed: int, capacity: int, buffers: list[Buffer], what: str = "activations") -> PlanError:
    """The error of a plan over capacity: the region, the bytes needed and the largest buffers."""
    largest = sorted(buffers, key=lambda b: -b.size)[:3]
    return PlanError(
        f"{what} need {needed} bytes but region {region} holds {capacity}; "
        f"largest buffers: {', '.join(f'{b.name} ({b.size} B)' for b in largest)}. Raise the region's cap in "
        f"app.yaml (memory: cap:), let buffers spill to a slower region (board.yaml arena: true), or shrink the model"
    )


def plan_memory(graph: Graph, region: "Region | Memory", tier: str | None = None) -> "Plan | MemoryPlan":
    """Assigns arena offsets to every non-constant tensor of `graph` (in place) and returns the plan.
    Ops whose kernels need scratch get it as an extra output sized for `tier` (compiler/scratch.py;
    None: the most any tier asks for), planned like the activations. `region` may be a
    compiler.placement.Memory (several regions, pins, caps): the plan is then a MemoryPlan."""
    from compiler.placement import Memory, plan_placement

    if isinstance(region, Memory):
        return plan_placement(graph, region, tier)
    scratch.attach(graph, tier)
    buffers = lifetimes(graph)
    allowed = overlaps(graph, buffers)
    size, strategy, offsets = best_offsets(buffers, allowed)
    if size > region.capacity:
        raise does_not_fit(region.name, size, region.capacity, buffers)
    offsets = {**offsets, **{name: offsets[root] for name, root in aliases(graph).items()}}
    for name, offset in offsets.items():
        graph.tensors[name].offset = offset
        graph.tensors[name].arena = 0
    graph.arenas[0].name = region.name
    graph.arenas[0].size = size
    return Plan(strategy, buffers, offsets, size, region.name, allowed)
