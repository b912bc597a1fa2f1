"""Static bound of a firmware's stack from GCC's call-graph dumps (-fcallgraph-info=su).

Each object's .ci file (VCG text) gives every function's frame size ("N bytes (static)") and
its calls. The bound is the deepest path from the reset handler, plus the worst exception
handler on top of it with the hardware's exception frame. Indirect calls are resolved to the op
adapters' check / eval functions, the only function pointers the runtime calls through (the
registry); a cycle or a dynamically sized frame makes the bound unknown, named as such.
Functions without a dump (newlib, libgcc) count as leaves of 0 bytes and are listed.
An LTO image (lto=1) has one dump, written at link; there and in GCC's clones a function's
symbol may carry a suffix (`em_x_eval.lto_priv.0`, `.constprop.0`), so names are compared
without it. Identical code folding keeps one copy of functions with the same code (LTO folds
the copies of a header's static inline functions, for instance): the others have no node, only
a symbol at the kept copy's address, so given the image's addresses a call to one goes to the
copy kept.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

_NODE = re.compile(r'node: \{ title: "([^"]+)" label: "([^"\\]+)(?:\\n[^"\\]*)?(?:\\n(\d+) bytes \(([^)]+)\))?"')
_EDGE = re.compile(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"')
INDIRECT = "__indirect_call"
ROOT = "Reset_Handler"
# Exception handlers that return to the code they interrupted (bsp/cortex_m/startup.c's vector
# table), so their depth adds to the deepest path's. The fault handler is not one: it moves SP
# back to the top of the stack and never returns.
HANDLERS = ("em_cortex_m_systick_handler",)
# Exception entry frame with the floating-point context (Armv7-M / Armv8-M extended frame: 26
# words), plus the word the hardware skips to align it to 8 bytes (CCR.STKALIGN).
EXCEPTION_FRAME_BYTES = 26 * 4 + 4
INDIRECT_TARGETS = re.compile(r"(_check|_eval)$")
# Kernels that call through function pointers of their own, (caller, targets): their indirect
# calls resolve to those functions, not to the adapters. The float kernels (em_float_*) call
# their elementwise function through a table of em_nn_float_fn_* leaves; the depthwise M = 1
# fast path (em_depthwise_conv2d_m1_s8.c) calls the pixel or block function it chose per layer.
KERNEL_POINTERS: tuple[tuple[re.Pattern, re.Pattern], ...] = (
    (re.compile(r"^em_float_"), re.compile(r"^em_nn_float_fn_")),
    (re.compile(r"^em_nn_(depthwise_m1_s8|dwf_rows_mve)$"), re.compile(r"^em_nn_dwf_(pixel|block)")),
)


# Functions written in assembly (`__attribute__((naked))`): GCC reports their frame as 0 bytes and
# none of their calls, so each one's pushes and `bl` / `b` targets are stated here, {name:
# (bytes, callees)} (a name with several definitions: the most of them);
# tests/apps/test_size_report.py checks this table against the sources' assembly.
ASSEMBLY: dict[str, tuple[int, tuple[str, ...]]] = {
    "em_nn_dot2x3_rows_mve": (9 * 4, ()),                                   # push {r4-r11, lr}
    "em_cortex_m_time_empty": (4 * 4, ("em_bsp_counter_read",)),            # push {r4, r5, r6, lr}
    # push {r4-r8, lr}; its `blx` calls a calibration leaf (bsp/cortex_m/calibrate), never firmware code
    "em_cortex_m_time_call": (6 * 4, ("em_bsp_counter_read",)),
    "em_cortex_m_systick_handler": (0, ("em_cortex_m_fault_handler",)),    # counter_dwt.c: any SysTick is a fault
    "em_cortex_m_fault_handler": (0, ()),                                    # see FRESH_STACK
    "calib_bare_return": (0, ()),                                            # bsp/cortex_m/calibrate
    "calib_loop": (0, ()),
}
# Assembly that moves SP back to the top of the stack before it branches on (the fault handler
# to em_fault_report, never to return): what it calls adds nothing to the depth it was reached at.
FRESH_STACK = frozenset({"em_cortex_m_fault_handler"})


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


def _deepest(graph: CallGraph, start: str, indirect: frozenset[str],
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
        through = next((targets for caller, targets in kernel_indirect if caller.search(_base_name(name))), indirect)
        for callee in graph.calls.get(title, ()):
            for target in (through if callee == INDIRECT else {callee}):
                depth, path = visit(target, stack + (title,))
                if depth > best:
                    best, best_path = depth, path
        memo[title] = (own + best, [graph.name.get(title, title)] + best_path)
        return memo[title]

    depth, path = visit(start, ())
    return depth, path, "", no_dump


def _symbol(title: str) -> str:
    """The symbol a node's title names ("unit.o:f.lto_priv.1" → "f.lto_priv.1")."""
    return title.rsplit(":", 1)[-1]


def _kept_copies(graph: CallGraph, addresses: dict[str, int]) -> dict[int, str]:
    """Address → the node of the function there (of several, the largest frame)."""
    kept: dict[int, str] = {}
    for title, frame in graph.frame.items():
        address = addresses.get(_symbol(title))
        if address is not None and (address not in kept or frame > graph.frame[kept[address]]):
            kept[address] = title
    return kept


def _fold_aliases(graph: CallGraph, addresses: dict[str, int], kept: dict[int, str]) -> None:
    """Calls to a function folded into an identical one (no node; its symbol shares the kept
    copy's address) go to the kept copy."""
    for source, targets in graph.calls.items():
        graph.calls[source] = {t if t in graph.frame else kept.get(addresses.get(_symbol(t), -1), t)
                               for t in targets}


def _base_name(name: str) -> str:
    """A function's name without GCC's clone or LTO suffix ("f.lto_priv.0", "f.isra" → "f")."""
    return name.split(".", 1)[0]


def _add_assembly(graph: CallGraph) -> None:
    """The frames and calls of the ASSEMBLY functions, which their nodes leave out; a callee
    without a node keeps its name (it may be folded: _fold_aliases follows it)."""
    titles: dict[str, list[str]] = {}
    for title, name in graph.name.items():
        if title in graph.frame:
            titles.setdefault(_base_name(name), []).append(title)
    for name, (frame, callees) in ASSEMBLY.items():
        for title in titles.get(name, ()):
            graph.frame[title] = max(graph.frame[title], frame)
            graph.calls.setdefault(title, set()).update(
                target for callee in callees for target in titles.get(callee, [callee]))


def static_bound(ci_files: list[Path], linked: set[str] | None = None,
                 addresses: dict[str, int] | None = None) -> StackBound:
    """`linked`: the functions in the image (ELF symbols); indirect calls resolve only to those.
    `addresses`: their addresses (elf_check.function_addresses), to follow folded functions."""
    graph = parse(ci_files)
    _add_assembly(graph)
    addresses = addresses or {}
    kept = _kept_copies(graph, addresses)
    _fold_aliases(graph, addresses, kept)
    by_name = {name: title for title, name in graph.name.items() if title in graph.frame}
    if ROOT not in by_name:
        return StackBound(None, [], f"no call graph for {ROOT}")
    in_image = None if linked is None else {_base_name(n) for n in linked}

    def named(pattern: re.Pattern, image_only: bool) -> frozenset[str]:
        """Nodes whose function matches `pattern`, and the copies kept for folded ones."""
        nodes = {title for title, name in graph.name.items()
                 if pattern.search(_base_name(name)) and title in graph.frame
                 and not (image_only and in_image is not None and _base_name(name) not in in_image)}
        return frozenset(nodes | {kept[a] for symbol, a in addresses.items()
                                  if pattern.search(_base_name(symbol)) and a in kept})

    indirect = named(INDIRECT_TARGETS, image_only=True)
    kernel_indirect = tuple((caller, named(targets, image_only=False)) for caller, targets in KERNEL_POINTERS)
    try:
        depth, path, _, no_dump = _deepest(graph, by_name[ROOT], indirect, kernel_indirect)
        handlers = [_deepest(graph, by_name[h], indirect, kernel_indirect) for h in HANDLERS if h in by_name]
    except (RecursionError, ValueError) as reason:
        return StackBound(None, [], str(reason))
    worst_handler = max(handlers, key=lambda h: h[0], default=(0, [], "", set()))
    missing = sorted(no_dump.union(*(h[3] for h in handlers)) if handlers else no_dump)
    return StackBound(depth + EXCEPTION_FRAME_BYTES + worst_handler[0], path + ["(exception)"] + worst_handler[1],
                      no_dump=missing)
