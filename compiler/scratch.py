"""Kernel scratch sizes from the kernels' own C: runtime/kernels/em_nn_buffer_sizes.c, built for
the host once per tier (-DEM_NN_SIZING_TIER, em_nn_tier.h) and called through ctypes, so that the
planner reserves exactly what the tier's kernel asks for.

`attach` gives every op that needs scratch (its kernel's, or room to unpack int4 weights) a second
output: a 1-D int8 tensor "<output>.scratch" of that size, alive only during the op, planned like
any activation; the op's adapter hands it to the kernel (em_op_operands_scratch in
runtime/ops/em_op_support.h). Ops whose record has a `scratch` sizer get one, unless its size is 0. A program for
no particular tier (tier None: conformance programs run on every device) gets the largest size
of the three tiers.

The C comes from `runtime_root()`: the checkout's runtime/ (run from the repository or installed
editable), or the copy an installed wheel carries in compiler/_runtime (pyproject.toml).
The library is cached in `sizing_cache()` (the checkout's build/sizing/, or the user's cache
folder when installed), named by a hash of its sources (the headers it includes, without
comments: a comment or a header the sizing does not include changes nothing), and rebuilt when
they change; the builds lower programs again then too (site_scons/ember_build/lowering.py).
Building needs a host C compiler (`cc`, or $CC).
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import re
import subprocess
import tempfile
from functools import cache
from pathlib import Path

from compiler.errors import EmberCompileError
from compiler import int4
from compiler.ir import Graph, Op, Tensor
from compiler.target import TIERS, Tier  # EM_NN_TIER numbers are the schema's Tier numbers

PACKAGE = Path(__file__).resolve().parent
SIZING_SOURCE = Path("kernels") / "em_nn_buffer_sizes.c"  # relative to runtime_root()
SUFFIX = ".scratch"


class ScratchSizingError(EmberCompileError):
    """The host library of the kernels' sizing functions could not be built or loaded."""


def runtime_root() -> Path:
    """The runtime C the compiler reads: the copy an installed wheel carries (compiler/_runtime:
    present only there, never in the checkout), else the checkout's runtime/ beside compiler/."""
    packaged = PACKAGE / "_runtime"
    return packaged if packaged.is_dir() else PACKAGE.parent / "runtime"


@cache
def sizing_cache() -> Path:
    """A writable folder for the sizing libraries: the checkout's build/sizing/ (beside the other
    build outputs), or, installed, the user's cache ($XDG_CACHE_HOME or ~/.cache)/ember/sizing, as
    site-packages may be read-only and shared. Where that cannot be written, a new temporary folder
    of this process (a shared, predictable one could hold another user's library to load)."""
    if runtime_root() == PACKAGE.parent / "runtime":
        wanted = PACKAGE.parent / "build" / "sizing"
    else:
        wanted = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ember" / "sizing"
    try:
        wanted.mkdir(parents=True, exist_ok=True)
        if os.access(wanted, os.W_OK):
            return wanted
    except OSError:
        pass
    return Path(tempfile.mkdtemp(prefix="ember-sizing-"))


_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)


def _sizing_files(runtime: Path) -> list[Path]:
    """em_nn_buffer_sizes.c and the project headers it includes, directly or not."""
    search = [runtime / "kernels" / "include", runtime / "include"]
    found, todo = [], [runtime / SIZING_SOURCE]
    while todo:
        path = todo.pop()
        if path in found:
            continue
        found.append(path)
        for name in _INCLUDE.findall(path.read_text()):
            todo += [d / name for d in [path.parent, *search] if (d / name).is_file()][:1]
    return sorted(found)


def sources_digest(runtime: Path | None = None) -> str:
    """A hash of the sizing's C (em_nn_buffer_sizes.c and the headers it includes) without its
    comments and blank space: names the cached library, and lets a build re-lower when the sizing
    changes, not when a comment or an unrelated header does. Not cached: it reads files that may
    change (a few milliseconds). `runtime`: runtime_root() unless given."""
    files = _sizing_files(runtime or runtime_root())
    text = "".join(f"{p.name}\n" + " ".join(_COMMENT.sub(" ", p.read_text()).split()) for p in files)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@cache
def library(tier: str) -> ctypes.CDLL:
    """em_nn_buffer_sizes.c built for the host as `tier`'s sizing library (cached on disk)."""
    runtime = runtime_root()
    out = sizing_cache() / f"em_nn_buffer_sizes-{tier}-{sources_digest(runtime)}.so"
    if not out.exists():
        fd, tmp = tempfile.mkstemp(dir=out.parent, suffix=".so")
        os.close(fd)
        command = [os.environ.get("CC", "cc"), "-std=c11", "-O1", "-fPIC", "-shared", f"-DEM_NN_SIZING_TIER={Tier(tier).number}",
                   f"-I{runtime / 'kernels' / 'include'}", f"-I{runtime / 'include'}", str(runtime / SIZING_SOURCE),
                   "-o", tmp]
        try:
            subprocess.run(command, check=True, capture_output=True, text=True)
            os.replace(tmp, out)
        except (OSError, subprocess.CalledProcessError) as error:
            Path(tmp).unlink(missing_ok=True)
            detail = getattr(error, "stderr", "") or str(error)
            raise ScratchSizingError(f"cannot build the kernels' sizing library for tier {tier} "
                                     f"({' '.join(command[:1])}): {detail.strip()}; install a host C compiler "
                                     f"or set CC") from error
    return ctypes.CDLL(str(out))


UNPACKED_ALIGNMENT = 16  # the kernel's own scratch starts aligned after the unpacked weights


def _record(kind: str):
    """The op's record (compiler.ops, which imports torch: imported here on first use, so that the
    build reads sources_digest at start-up without PyTorch)."""
    from compiler.ops import OP_TABLE

    return OP_TABLE.get(kind)


def unpacked_weight_bytes(graph: Graph, op: Op) -> int:
    """Scratch bytes for `op`'s int4 weights unpacked to int8, rounded up to UNPACKED_ALIGNMENT:
    the adapter unpacks them at the scratch's start (em_unpack_s4()) at every run, and the
    kernel's own scratch, if any, follows. All rows, or the rows its record's `int4_rows` asks
    to unpack at a time (a fully connected layer reads each weight once: a block of rows costs
    no more than all of them)."""
    spec = _record(op.kind)
    n = 0
    for name in op.inputs:
        tensor = graph.tensors[name]
        if tensor.dtype == "int4":
            rows, per_row = int4.row_shape(tensor.shape)
            n += per_row * (min(rows, spec.int4_rows(graph, op)) if spec is not None and spec.int4_rows else rows)
    return -(-n // UNPACKED_ALIGNMENT) * UNPACKED_ALIGNMENT


def scratch_bytes(graph: Graph, op: Op, tier: str | None) -> int:
    """Bytes of scratch `op` asks for on `tier` (None: the most of every tier): its int4
    weights unpacked, then what its kernel asks for."""
    spec = _record(op.kind)
    sizer = spec.scratch if spec is not None else None
    kernel = 0 if sizer is None else max(sizer(library(t), graph, op) for t in ([tier] if tier else TIERS))
    return unpacked_weight_bytes(graph, op) + kernel


def attach(graph: Graph, tier: str | None) -> None:
    """Gives each op that takes scratch its scratch output sized for `tier` (again: resized or
    removed)."""
    for op in graph.ops:
        spec = _record(op.kind)
        if spec is None or (spec.scratch is None and not unpacked_weight_bytes(graph, op)):
            continue
        name = op.outputs[0] + SUFFIX
        if name in op.outputs:
            op.outputs.remove(name)
            del graph.tensors[name]
        size = scratch_bytes(graph, op, tier)
        if size > 0:
            graph.add_tensor(Tensor(name, "int8", (size,)))
            op.outputs.append(name)
