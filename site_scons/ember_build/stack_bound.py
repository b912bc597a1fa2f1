"""Static bound of a firmware's stack from GCC's call-graph dumps (-fcallgraph-info=su).

Each object's .ci file (VCG text) gives every function's frame size ("N bytes (static)") and
its calls. The bound is the deepest path from the reset handler, plus the worst exception
handler on top of it with the hardware's exception frame. Indirect calls are resolved to the op
adapters' check / eval functions, the only function pointers the runtime calls through (the
registry); a cycle or a dynamically sized frame makes the bound unknown, named as such.
Functions without a dump (newlib, libgcc) count as leaves of 0 bytes and are listed.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

_NODE = re.compile(r'node: \{ title: "([^"]+)" label: "([^"\\]+)(?:\\n[^"\\]*)?(?:\\n(\d+) bytes \(([^)]+)\))?"')
_EDGE = re.compile(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"')
INDIRECT = "__indirect_call"
ROOT = "Reset_Handler"
HANDLERS = ("SysTick_Handler", "HardFault_Handler", "MemManage_Handler", "BusFault_Handler",
            "UsageFault_Handler", "SecureFault_Handler", "NMI_Handler", "Default_Handler")
# Exception entry frame with the floating-point context (Armv7-M / Armv8-M extended frame).
EXCEPTION_FRAME_BYTES = 26 * 4
INDIRECT_TARGETS = re.compile(r"(_check|_eval)$")
# Kernels that call through function pointers of their own, (caller, targets): their indirect
# calls resolve to those functions, not to the adapters. The float kernels (em_float_*) call
# their elementwise function through a table of em_nn_float_fn_* leaves; the depthwise M = 1
# fast path (em_depthwise_conv2d_m1_s8.c) calls the pixel or block function it chose per layer.
KERNEL_POINTERS: tuple[tuple[re.Pattern, re.Pattern], ...] = (
    (re.compile(r"^em_float_"), re.compile(r"^em_nn_float_fn_")),
    (re.compile(r"^em_nn_(depthwise_m1_s8|dwf_rows_mve)$"), re.compile(r"^em_nn_dwf_(pixel|block)")),
)


@dataclass
class CallGraph:
    frame: dict[str, int] = field(default_factory=dict)  # title → bytes
    unbounded: set[str] = field(default_factory=set)  # dynamically sized frames
    calls: dict[str, set[str]] = field(default_factory=dict)
    name: dict[str, str] = field(default_factory=dict)  # title → function name


def parse(paths: list[Path]) -> CallGraph:
    graph = CallGraph()
    for path in paths:
        text = path.read_text(errors="replace")
        for title, name, size, kind in _NODE.findall(text):
            graph.name.setdefault(title, name)
            if size:
                graph.frame[title] = int(size)
                if kind.startswith("dynamic") and "bounded" not in kind:
                    graph.unbounded.add(title)
        for source, target in _EDGE.findall(text):
            graph.calls.setdefault(source, set()).add(target)
    return graph


@dataclass
class StackBound:
    bytes: int | None  # None: unknown (recursion or an unbounded frame on the way)
    path: list[str]
    reason: str = ""
    no_dump: list[str] = field(default_factory=list)


def _deepest(graph: CallGraph, start: str, indirect: set[str],
             kernel_indirect: tuple[tuple[re.Pattern, frozenset[str]], ...] = ()) -> tuple[int, list[str], str, set[str]]:
    memo: dict[str, tuple[int, list[str]]] = {}
    no_dump: set[str] = set()

    def visit(title: str, stack: tuple[str, ...]) -> tuple[int, list[str]]:
        if title in stack:
            raise RecursionError(" → ".join(graph.name.get(t, t) for t in stack + (title,)))
        if title in memo:
            return memo[title]
        if title in graph.unbounded:
            raise ValueError(f"{graph.name.get(title, title)} has a dynamically sized frame")
        if title not in graph.frame:
            no_dump.add(graph.name.get(title, title))
        own = graph.frame.get(title, 0)
        best, best_path = 0, []
        name = graph.name.get(title, title)
        through = next((targets for caller, targets in kernel_indirect if caller.search(name)), indirect)
        for callee in graph.calls.get(title, ()):
            for target in (through if callee == INDIRECT else {callee}):
                depth, path = visit(target, stack + (title,))
                if depth > best:
                    best, best_path = depth, path
        memo[title] = (own + best, [graph.name.get(title, title)] + best_path)
        return memo[title]

    depth, path = visit(start, ())
    return depth, path, "", no_dump


def static_bound(ci_files: list[Path], linked: set[str] | None = None) -> StackBound:
    """`linked`: the functions in the image (ELF symbols); indirect calls resolve only to those."""
    graph = parse(ci_files)
    by_name = {name: title for title, name in graph.name.items() if title in graph.frame}
    if ROOT not in by_name:
        return StackBound(None, [], f"no call graph for {ROOT}")
    indirect = {title for title, name in graph.name.items()
                if INDIRECT_TARGETS.search(name) and title in graph.frame and (linked is None or name in linked)}
    kernel_indirect = tuple((caller, frozenset(title for title, name in graph.name.items()
                                               if targets.search(name) and title in graph.frame))
                            for caller, targets in KERNEL_POINTERS)
    try:
        depth, path, _, no_dump = _deepest(graph, by_name[ROOT], indirect, kernel_indirect)
        handlers = [_deepest(graph, by_name[h], indirect, kernel_indirect) for h in HANDLERS if h in by_name]
    except (RecursionError, ValueError) as reason:
        return StackBound(None, [], str(reason))
    worst_handler = max(handlers, key=lambda h: h[0], default=(0, [], "", set()))
    missing = sorted(no_dump.union(*(h[3] for h in handlers)) if handlers else no_dump)
    return StackBound(depth + EXCEPTION_FRAME_BYTES + worst_handler[0], path + ["(exception)"] + worst_handler[1],
                      no_dump=missing)
