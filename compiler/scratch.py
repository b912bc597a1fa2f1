"""Kernel scratch sizes from the kernels' own C: runtime/kernels/em_nn_buffer_sizes.c, built for
the host once per tier (-DEM_NN_SIZING_TIER, em_nn_tier.h) and called through ctypes, so that the
planner reserves exactly what the tier's kernel asks for.

`attach` gives every op that needs scratch a second output: a 1-D int8 tensor "<output>.scratch"
of that size, alive only during the op, planned like any activation; the op's adapter hands it to
the kernel (em_op_operands_scratch in runtime/ops/em_op_support.h). Ops in SIZERS whose size is 0 get none. A program for
no particular tier (tier None: conformance programs run on every device) gets the largest size
of the three tiers.

The library is cached under build/sizing/, named by a hash of its sources (the headers it
includes, without comments: a comment or a header the sizing does not include changes nothing),
and rebuilt when they change; the builds lower programs again then too
(site_scons/ember_build/lowering.py). Building needs a host C compiler (`cc`, or $CC).
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import re
import subprocess
import tempfile
from collections.abc import Callable
from functools import cache
from pathlib import Path

from compiler.errors import EmberCompileError
from compiler.ir import Graph, Op, Tensor
from compiler.target import TIERS, Tier  # EM_NN_TIER numbers are the schema's Tier numbers

REPO = Path(__file__).resolve().parents[1]
KERNELS = REPO / "runtime" / "kernels"
SIZING_SOURCE = KERNELS / "em_nn_buffer_sizes.c"
SUFFIX = ".scratch"


class ScratchSizingError(EmberCompileError):
    """The host library of the kernels' sizing functions could not be built or loaded."""


class ConvDims(ctypes.Structure):  # em_conv_dims (em_nn_types.h), field for field
    _fields_ = [(n, ctypes.c_int32) for n in ("batches", "input_h", "input_w", "input_c", "kernel_h", "kernel_w",
                                               "output_h", "output_w", "output_c")]


class ConvParams(ctypes.Structure):  # em_conv_params (em_nn_types.h), field for field
    _fields_ = [(n, ctypes.c_int32) for n in ("stride_h", "stride_w", "dilation_h", "dilation_w", "pad_top",
                                               "pad_bottom", "pad_left", "pad_right", "groups", "depth_multiplier",
                                               "input_zero_point", "output_offset", "activation_min",
                                               "activation_max")]


_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)


def _sizing_files(runtime: Path) -> list[Path]:
    """em_nn_buffer_sizes.c and the project headers it includes, directly or not."""
    search = [runtime / "kernels" / "include", runtime / "include"]
    found, todo = [], [runtime / "kernels" / SIZING_SOURCE.name]
    while todo:
        path = todo.pop()
        if path in found:
            continue
        found.append(path)
        for name in _INCLUDE.findall(path.read_text()):
            todo += [d / name for d in [path.parent, *search] if (d / name).is_file()][:1]
    return sorted(found)


def sources_digest(runtime: Path = REPO / "runtime") -> str:
    """A hash of the sizing's C (em_nn_buffer_sizes.c and the headers it includes) without its
    comments and blank space: names the cached library, and lets a build re-lower when the sizing
    changes, not when a comment or an unrelated header does. Not cached: it reads files that may
    change (a few milliseconds)."""
    text = "".join(f"{p.name}\n" + " ".join(_COMMENT.sub(" ", p.read_text()).split()) for p in _sizing_files(runtime))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@cache
def library(tier: str) -> ctypes.CDLL:
    """em_nn_buffer_sizes.c built for the host as `tier`'s sizing library (cached on disk)."""
    digest = sources_digest()
    out = REPO / "build" / "sizing" / f"em_nn_buffer_sizes-{tier}-{digest}.so"
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=out.parent, suffix=".so")
        os.close(fd)
        command = [os.environ.get("CC", "cc"), "-std=c11", "-O1", "-fPIC", "-shared", f"-DEM_NN_SIZING_TIER={Tier(tier).number}",
                   f"-I{KERNELS / 'include'}", f"-I{REPO / 'runtime' / 'include'}", str(SIZING_SOURCE), "-o", tmp]
        try:
            subprocess.run(command, check=True, capture_output=True, text=True)
            os.replace(tmp, out)
        except (OSError, subprocess.CalledProcessError) as error:
            Path(tmp).unlink(missing_ok=True)
            detail = getattr(error, "stderr", "") or str(error)
            raise ScratchSizingError(f"cannot build the kernels' sizing library for tier {tier} "
                                     f"({' '.join(command[:1])}): {detail.strip()}; install a host C compiler "
                                     f"or set CC") from error
    lib = ctypes.CDLL(str(out))
    for name in ("em_conv2d_s8_get_buffer_size", "em_depthwise_conv2d_s8_get_buffer_size"):
        getattr(lib, name).restype = ctypes.c_int32
        getattr(lib, name).argtypes = [ctypes.POINTER(ConvParams), ctypes.POINTER(ConvDims)]
    return lib


def _conv_args(graph: Graph, op: Op, kernel: tuple[int, int]) -> tuple[ConvParams, ConvDims]:
    x, y = graph.tensors[op.inputs[0]].shape, graph.tensors[op.outputs[0]].shape
    a = op.attrs
    dims = ConvDims(x[0], x[1], x[2], x[3], *kernel, y[1], y[2], y[3])
    params = ConvParams(*a["stride"], *a["dilation"], *a["padding"], a.get("groups", 1), a.get("depth_multiplier", 1),
                        a["input_zero_point"], a["output_offset"], a["activation_min"], a["activation_max"])
    return params, dims


def _ranks(graph: Graph, op: Op, *ranks: int) -> bool:
    """True when op's input, weights and output have these ranks (else no scratch: the
    runtime refuses a malformed op at load anyway)."""
    names = (op.inputs[0], op.inputs[1], op.outputs[0])
    return all(len(graph.tensors[n].shape) == r for n, r in zip(names, ranks))


def _conv2d(lib: ctypes.CDLL, graph: Graph, op: Op) -> int:
    if not _ranks(graph, op, 4, 4, 4):
        return 0
    _, kh, kw, _ = graph.tensors[op.inputs[1]].shape  # [C_OUT, KH, KW, C_IN / groups]
    params, dims = _conv_args(graph, op, (kh, kw))
    return int(lib.em_conv2d_s8_get_buffer_size(ctypes.byref(params), ctypes.byref(dims)))


def _depthwise_conv2d(lib: ctypes.CDLL, graph: Graph, op: Op) -> int:
    if not _ranks(graph, op, 4, 3, 4):
        return 0
    kh, kw, _ = graph.tensors[op.inputs[1]].shape  # [KH, KW, C · M]
    params, dims = _conv_args(graph, op, (kh, kw))
    return int(lib.em_depthwise_conv2d_s8_get_buffer_size(ctypes.byref(params), ctypes.byref(dims)))


# Ops whose adapter takes a scratch output: op kind -> (sizing library, graph, op) -> bytes.
SIZERS: dict[str, Callable[[ctypes.CDLL, Graph, Op], int]] = {"conv2d": _conv2d, "depthwise_conv2d": _depthwise_conv2d}


def scratch_bytes(graph: Graph, op: Op, tier: str | None) -> int:
    """Bytes of scratch `op`'s kernel asks for on `tier` (None: the most of every tier)."""
    sizer = SIZERS.get(op.kind)
    if sizer is None:
        return 0
    return max(sizer(library(t), graph, op) for t in ([tier] if tier else TIERS))


def attach(graph: Graph, tier: str | None) -> None:
    """Gives each op of SIZERS its scratch output sized for `tier` (again: resized or removed)."""
    for op in graph.ops:
        if op.kind not in SIZERS:
            continue
        name = op.outputs[0] + SUFFIX
        if name in op.outputs:
            op.outputs.remove(name)
            del graph.tensors[name]
        size = scratch_bytes(graph, op, tier)
        if size > 0:
            graph.add_tensor(Tensor(name, "int8", (size,)))
            op.outputs.append(name)
