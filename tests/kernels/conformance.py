"""The kernel conformance suite's machinery: single-op cases, the devices they run on, and one
batched launch of em_run per device.

A `Case` is one op of the compiler's operator table in a program of its own (compiler IR ->
planner -> writer, no torch), its program inputs and, from compiler.reference, the bytes its
output must equal. tests/kernels/cases/<op>.py generates an op's cases (see the README there);
`all_cases()` collects every file. `run_batch()` writes each case's program, inputs and expected
output to files, lists them in a manifest and runs `em_run --batch` once (or once per manifest
of at most em_run's EM_RUN_MANIFEST_CAPACITY bytes, split_manifest): natively for the host, in
QEMU (files through semihosting) for a board. The runner prints one verdict per case, then
exits 0 only if every case matched (else EXIT_CASES_FAILED): tests read each case's verdict.
"""
from __future__ import annotations

import importlib
import pkgutil
import re
import subprocess
import sys
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from compiler import reference
from compiler.fixedpoint import quantize_multiplier
from compiler.ir import NUMPY_DTYPES, Graph, Op, Quant, Tensor
from compiler.ops import OP_TABLE
from compiler.planner import Region, plan_memory
from compiler.target import TIERS, Target
from build_host import scons_em_run

REPO = Path(__file__).resolve().parents[2]
CASES_PACKAGE = "cases"
CASES_DIR = Path(__file__).parent / CASES_PACKAGE
ARENA_BYTES = 256 * 1024  # em_run's pool is 512 KiB: every case must plan into this
RUN_TIMEOUT_S = 300.0
EXIT_CASES_FAILED = 65  # em_run --batch's exit status once a case did not match (tools/em_run/em_run.c)


# ---- cases ------------------------------------------------------------------------------------

@dataclass
class Case:
    """One single-op program. `params` is what a failure prints (shapes, attrs that matter)."""

    op: str
    name: str
    params: dict
    graph: Graph
    inputs: list[np.ndarray]  # one per graph input, in order
    ulp: int = 0  # > 0: a float32 output within this many ULPs (NaN / ±inf exact); 0: bytes equal
    abs_log2: int | None = None  # with ulp: or within 2**abs_log2 absolute (where a formula cancels)
    _expected: bytes | None = field(default=None, repr=False)

    @property
    def id(self) -> str:
        return f"{self.op}/{self.name}"

    @property
    def output(self) -> Tensor:
        return self.graph.tensors[self.graph.outputs[0]]

    def expected(self) -> bytes:
        """The reference's output bytes (computed once)."""
        if self._expected is None:
            out = reference.run(self.graph, self.inputs)[self.graph.outputs[0]]
            self._expected = np.ascontiguousarray(out, NUMPY_DTYPES[self.output.dtype]).tobytes()
        return self._expected

    def tolerance_words(self) -> list[str]:
        """em_run --batch's manifest words for the comparison: none (bytes equal) for integer
        outputs; `f32` for float32 ones (any NaN equals any NaN: FPUs differ in NaN sign and
        payload), with the ULP / absolute tolerance if any."""
        if self.output.dtype != "float32":
            return []
        return ["f32"] + [f"ulp={self.ulp}" for _ in [0] if self.ulp] + \
            [f"abs_log2={self.abs_log2}" for _ in [0] if self.ulp and self.abs_log2 is not None]

    def input_bytes(self) -> list[bytes]:
        return [np.ascontiguousarray(x, NUMPY_DTYPES[self.graph.tensors[n].dtype]).tobytes()
                for n, x in zip(self.graph.inputs, self.inputs)]


def rng_for(*words: object) -> np.random.Generator:
    """A generator seeded from the case's names: stable across runs and case lists."""
    return np.random.default_rng(zlib.crc32(repr(words).encode()))


def int8_tensor(name: str, shape, zero_point: int = 0, scale: float = 0.05, data=None) -> Tensor:
    return Tensor(name, "int8", tuple(shape), Quant.per_tensor(scale, zero_point), data=data)


def int16_tensor(name: str, shape, scale: float = 0.001, data=None) -> Tensor:
    """An A16W8 activation: int16, symmetric (zero point 0)."""
    return Tensor(name, "int16", tuple(shape), Quant.per_tensor(scale, 0), data=data)


def edge_int16(rng: np.random.Generator, shape, ends: float = 0.1) -> np.ndarray:
    """Random int16 with about `ends` of the values at -32768 or 32767, the first -32768, the last 32767."""
    x = rng.integers(-(2**15), 2**15, size=shape, dtype=np.int64).astype(np.int16)
    flat = x.reshape(-1)
    at_ends = rng.random(flat.size) < ends
    flat[at_ends] = rng.choice(np.array([-(2**15), 2**15 - 1], np.int16), size=int(at_ends.sum()))
    flat[0], flat[-1] = -(2**15), 2**15 - 1
    return x


def edge_int8(rng: np.random.Generator, shape, ends: float = 0.1) -> np.ndarray:
    """Random int8 with about `ends` of the values at -128 or 127, the first -128, the last 127."""
    x = rng.integers(-128, 128, size=shape, dtype=np.int8)
    flat = x.reshape(-1)
    at_ends = rng.random(flat.size) < ends
    flat[at_ends] = rng.choice(np.array([-128, 127], np.int8), size=int(at_ends.sum()))
    flat[0], flat[-1] = -128, 127
    return x


def edge_int4(rng: np.random.Generator, shape, ends: float = 0.15) -> np.ndarray:
    """Random int4 weights (int8 values -8..7, as the IR holds them) with about `ends` of them at
    -8 or 7, the first -8, the last 7."""
    x = rng.integers(-8, 8, size=shape).astype(np.int8)
    flat = x.reshape(-1)
    at_ends = rng.random(flat.size) < ends
    flat[at_ends] = rng.choice(np.array([-8, 7], np.int8), size=int(at_ends.sum()))
    flat[0], flat[-1] = -8, 7
    return x


def weight_tensor(name: str, values: np.ndarray, dtype: str = "int8") -> Tensor:
    """Constant weights: int8, or int4 (A8W4: values -8..7, packed by the writer, unpacked by the
    adapter into the op's scratch at every run)."""
    return Tensor(name, dtype, values.shape, Quant.per_tensor(0.05, 0), data=values)


def typed_tensor(name: str, dtype: str, shape, data=None) -> Tensor:
    """An int8 (quantized, zero point 0), int16, int32 or float32 (unquantized) tensor: the dtypes
    the dtype-generic data-movement ops take (int16: a streamed front end's raw audio)."""
    if dtype == "int8":
        return int8_tensor(name, shape, data=data)
    return Tensor(name, dtype, tuple(shape), data=data)


def edge_values(rng: np.random.Generator, dtype: str, shape) -> np.ndarray:
    """Random values of `dtype` with its extremes sprinkled in (int8: edge_int8; int32: INT32_MIN /
    MAX; int16 likewise; float32: ±0, ±inf, NaN, subnormals, the largest finite), first and last at the ends."""
    if dtype == "int8":
        return edge_int8(rng, shape)
    if dtype == "int32":
        x = rng.integers(-(2**31), 2**31, size=shape, dtype=np.int64).astype(np.int32)
        ends = np.array([-(2**31), 2**31 - 1, 0, -1], np.int32)
    elif dtype == "int16":
        x = rng.integers(-(2**15), 2**15, size=shape, dtype=np.int64).astype(np.int16)
        ends = np.array([-(2**15), 2**15 - 1, 0, -1], np.int16)
    else:
        x = (rng.standard_normal(size=shape) * 100).astype(np.float32)
        ends = np.array([-0.0, np.inf, -np.inf, np.nan, 1e-45, -3.4028235e38, 3.4028235e38], np.float32)
    flat = x.reshape(-1)
    at_ends = rng.random(flat.size) < 0.1
    flat[at_ends] = rng.choice(ends, size=int(at_ends.sum()))
    flat[0], flat[-1] = ends[0], ends[1]
    return x


def zero_point(rng: np.random.Generator, k: int) -> int:
    """Zero points at both ends, zero and random ones in turn (k: the case's index)."""
    return [-128, 127, 0, int(rng.integers(-128, 128))][k % 4]


def requantization(rng: np.random.Generator, n: int, taps: int, left_shift_share: float = 0.1, gain: float = 1.0):
    """Per-channel (multiplier, shift) arrays that spread sums of `taps` int8 products over the
    int8 range, with about `left_shift_share` of the channels at shift > 0 (they saturate);
    `gain` scales them (16 for int4 weights, whose products are 16 times smaller)."""
    spread = float(np.log2(0.012 * gain / np.sqrt(max(taps, 1))))
    reals = 2.0 ** rng.uniform(spread - 1.0, spread + 1.0, size=n)
    reals[(rng.random(n) < left_shift_share) & (np.arange(n) > 0)] = 3.0
    pairs = [quantize_multiplier(float(r)) for r in reals]
    return np.array([m for m, _ in pairs], np.int32), np.array([s for _, s in pairs], np.int32)


def requantization_edges(n: int = 24):
    """(bias, multiplier, shift) per channel for accumulators equal to their bias: exact ties of
    the rounding (half away from zero, both signs) at shifts -1..-4, INT32 extremes, shifts at
    both ends of -31..30, a zero multiplier; channels past 20 repeat the pattern."""
    bias = [(1 if i % 2 else -1) * ((2 * i + 1) << (1 + i % 4)) for i in range(16)] + [-(2**31), 2**31 - 1, -5, 7]
    multiplier = [1 << 30] * 16 + [2**31 - 1, 2**31 - 1, 1 << 30, 0]
    shift = [-(1 + i % 4) for i in range(16)] + [-31, 0, 30, 0]
    pick = [i % 20 for i in range(n)]
    return (np.array([bias[i] for i in pick], np.int32), np.array([multiplier[i] for i in pick], np.int32),
            np.array([shift[i] for i in pick], np.int32))


def random_window(rng: np.random.Generator, max_kernel: int = 5, max_stride: int = 3, max_dilation: int = 2,
                  max_extra: int = 8) -> dict:
    """A random 2-D window: kernel, stride, dilation, asymmetric padding (each side below the
    dilated kernel) and an input height / width from the smallest that fits up to `max_extra` more."""
    kernel = tuple(int(k) for k in rng.integers(1, max_kernel + 1, size=2))
    stride = tuple(int(s) for s in rng.integers(1, max_stride + 1, size=2))
    dilation = tuple(int(d) for d in rng.integers(1, max_dilation + 1, size=2))
    reach = [(k - 1) * d + 1 for k, d in zip(kernel, dilation)]
    padding = tuple(int(rng.integers(0, reach[i // 2])) for i in range(4))
    size = tuple(max(1, reach[i] - padding[2 * i] - padding[2 * i + 1]) + int(rng.integers(0, max_extra + 1))
                 for i in range(2))
    return {"kernel": kernel, "stride": stride, "dilation": dilation, "padding": padding, "size": size}


def random_pool_windows(op: str, count: int) -> list[tuple]:
    """Seeded random ((N, H, W, C), kernel, stride, padding) of pooling (padding below the kernel)."""
    found = []
    for i in range(count):
        rng = rng_for(op, "random", i)
        win = random_window(rng, max_kernel=6, max_dilation=1)
        found.append(((int(rng.integers(1, 3)), *win["size"], int(rng.integers(1, 40))), win["kernel"],
                      win["stride"], win["padding"]))
    return found


def random_broadcast_shapes(op: str, count: int, general: int = 0) -> list[tuple]:
    """Seeded random (a shape, b shape, b constant?): `count` in the forms the elementwise kernels
    had fast paths for before general broadcasting (same shape, scalar, channel row; the
    broadcast operand first or second), then `general` of any NumPy broadcast: output rank
    1..5, along each axis a, b or both varying (so both operands may be broadcast, along middle
    axes too), odd sizes and some around the SIMD widths (4, 16), each operand's leading 1s
    dropped at random (mixed ranks, rank 0 included)."""
    found = []
    for i in range(count):
        rng = rng_for(op, "random", i)
        full = tuple(int(d) for d in rng.integers(1, 10, size=int(rng.integers(1, 5))))
        other = [full, (1,) * int(rng.integers(1, 5)), (1,) * int(rng.integers(0, 4)) + full[-1:]][i % 3]
        found.append((other, full, bool(i % 2)) if i % 4 >= 2 else (full, other, bool(i % 2)))
    for i in range(general):
        rng = rng_for(op, "general", i)
        sizes = [int(rng.choice([2, 3, 5, 7, 9, 15, 16, 17])) if rng.random() < 0.7 else 1
                 for _ in range(int(rng.integers(1, 6)))]
        while int(np.prod(sizes)) > 3000:  # small enough for the M3
            sizes[int(np.argmax(sizes))] //= 2
        varies = rng.integers(0, 3, size=len(sizes))  # 0: a only, 1: b only, 2: both
        a = [d if v != 1 else 1 for d, v in zip(sizes, varies)]
        b = [d if v != 0 else 1 for d, v in zip(sizes, varies)]

        def drop(shape: list[int]) -> tuple:
            ones = next((k for k, d in enumerate(shape) if d != 1), len(shape))  # leading 1s
            return tuple(shape[int(rng.integers(0, ones + 1)):])
        found.append((drop(a), drop(b), bool(i % 3 == 2)))
    return list(dict.fromkeys(found))  # a random one may repeat another (names must be unique)


def elementwise_cases(op: str, shapes: list[tuple], params, twice_shape: tuple) -> list[Case]:
    """Cases of a broadcasting binary op (add, mul): one per (a shape, b shape, constant), the
    constant True (b is one), "a" (a is: the first operand) or False (both are program inputs),
    with attrs `params(rng, k)`, and x op x on `twice_shape`."""
    out = []
    for k, (a_shape, b_shape, constant) in enumerate(shapes):
        rng = rng_for(op, k)
        p = params(rng, k)
        a, b = edge_int8(rng, a_shape), edge_int8(rng, b_shape)
        a_constant, b_constant = constant == "a", constant is True
        operands = [int8_tensor("a", a_shape, data=a if a_constant else None),
                    int8_tensor("b", b_shape, data=b if b_constant else None)]
        suffix = "_const_a" if a_constant else "_const" if b_constant else ""
        name = f"{'x'.join(map(str, a_shape))}_{op}_{'x'.join(map(str, b_shape))}{suffix}"
        out.append(single_op(op, operands, int8_tensor("y", np.broadcast_shapes(a_shape, b_shape)), p,
                             [b] if a_constant else [a] if b_constant else [a, b], name=name,
                             params={"a": a_shape, "b": b_shape, "constant": constant, **p}))
    rng = rng_for(op, "twice")
    p = params(rng, 1)
    x = edge_int8(rng, twice_shape)
    out.append(single_op(op, [int8_tensor("x", x.shape)] * 2, int8_tensor("y", x.shape), p, [x],
                         name=f"x_{op}_x_{'x'.join(map(str, twice_shape))}", params={"a": x.shape, "b": "the same tensor", **p}))
    return out


def movement_case(op: str, k: int, shape, dtype: str, y_shape, attrs: dict, name: str, params: dict) -> Case:
    """A case of a dtype-generic data-movement op on one program input of `shape` (edge_values
    seeded by op and case index k) -> y_shape; `name` gets the index and dtype in front."""
    x = edge_values(rng_for(op, k), dtype, shape)
    return single_op(op, [typed_tensor("x", dtype, shape)], typed_tensor("y", dtype, y_shape), attrs, [x],
                     name=f"{k}_{dtype}_{name}", params={"input": tuple(shape), **params, "dtype": dtype})


def conv_case(op: str, name: str, x: np.ndarray, weights: np.ndarray, bias: np.ndarray, attrs: dict,
              params: dict, weights_dtype: str = "int8") -> Case:
    """A conv2d / depthwise_conv2d case: input x, constants, attrs (the reference's keywords);
    the output shape follows from the window. `params` gets the attrs that shape the window;
    `weights_dtype` "int4" makes an A8W4 layer (weights -8..7)."""
    kh, kw = weights.shape[1:3] if op == "conv2d" else weights.shape[:2]
    c_out = weights.shape[0] if op == "conv2d" else weights.shape[2]
    (sh, sw), (dh, dw), (top, bottom, left, right) = attrs["stride"], attrs["dilation"], attrs["padding"]
    y_shape = (x.shape[0], reference.output_size(x.shape[1], kh, sh, dh, top, bottom),
               reference.output_size(x.shape[2], kw, sw, dw, left, right), c_out)
    operands = [int8_tensor("x", x.shape, attrs["input_zero_point"]), weight_tensor("w", weights, weights_dtype),
                Tensor("b", "int32", (c_out,), data=bias)]
    shown = {"input": x.shape, "kernel": (kh, kw), "c_out": c_out, "weights": weights_dtype,
             **{k: attrs[k] for k in ("groups", "depth_multiplier", "stride", "dilation", "padding", "input_zero_point",
                                      "output_offset", "activation_min", "activation_max") if k in attrs}}
    return single_op(op, operands, int8_tensor("y", y_shape, attrs["output_offset"]), attrs, [x], name=name,
                     params={**shown, **params})


def single_op(op: str, operands: list[Tensor], output: Tensor, attrs: dict, inputs: list[np.ndarray],
              name: str, params: dict, ulp: int = 0, abs_log2: int | None = None) -> Case:
    """A case whose program is the one op `op`(operands) -> output. Operands with data are
    constants; the others are the program's inputs, fed `inputs` in order. Planned into one arena.
    `ulp` > 0 (float32 outputs of libm functions): agree within that many units in the last place
    or, given `abs_log2`, within 2**abs_log2 absolute."""
    if ulp and output.dtype != "float32":
        raise ValueError(f"case {op}/{name}: a ULP tolerance needs a float32 output, not {output.dtype}")
    if op not in OP_TABLE:
        raise ValueError(f"case {op}/{name}: {op!r} is not in compiler.ops.OP_TABLE")
    tensors: dict[str, Tensor] = {}
    for t in [*operands, output]:
        tensors.setdefault(t.name, t)
    runtime = [t.name for t in operands if not t.is_constant]
    runtime = list(dict.fromkeys(runtime))  # x op x: one program input
    graph = Graph(tensors, [Op(op, [t.name for t in operands], [output.name], attrs, origin=f"{op}/{name}")],
                  runtime, [output.name])
    plan_memory(graph, Region("sram", ARENA_BYTES))
    if len(inputs) != len(runtime):
        raise ValueError(f"case {op}/{name}: {len(runtime)} program inputs, {len(inputs)} given")
    return Case(op, name, params, graph, inputs, ulp, abs_log2)


def all_cases() -> list[Case]:
    """Every case of every tests/kernels/cases/<op>.py (each exports `cases() -> list[Case]`)."""
    here = str(Path(__file__).parent)
    if here not in sys.path:
        sys.path.insert(0, here)
    found: list[Case] = []
    for module in sorted(pkgutil.iter_modules([str(CASES_DIR)]), key=lambda m: m.name):
        if module.name.startswith("_"):
            continue
        found += importlib.import_module(f"{CASES_PACKAGE}.{module.name}").cases()
    ids = [c.id for c in found]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValueError(f"duplicate case ids: {duplicates}")
    return found


# ---- devices ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Device:
    """A board (and tier override) the suite runs on; `name` is the pytest id."""

    name: str
    board: str
    tier: str = ""  # "": the board's own
    opt: str = ""  # "": the build's default optimisation (-O2); "-Os" builds beside it (<board>-Os)

    def load(self):
        from ember_build.board import load_board

        return load_board(self.board).for_tier(self.tier)

    @property
    def target(self) -> Target:
        board = self.load()
        return Target(board.cpu, board.tier)

    def build_runner(self) -> Path:
        """`scons em_run board=<board> [tier=<tier>] [opt=<opt>]`, once per test run; its path."""
        return scons_em_run(self.board, self.tier, self.opt)


def _boards_that_run() -> list[Device]:
    """Every board of bsp/ that runs here: the host, and each QEMU board (corstone300: M55 mve,
    mps2_an386: M4 dsp, mps2_an505: M33 dsp, mps2_an385: M3 scalar)."""
    from ember_build.board import emulated_boards

    return [Device("host", "host"), *(Device(b.name, b.name) for b in emulated_boards())]


DEVICES = [
    *_boards_that_run(),
    Device("corstone300-dsp", "corstone300", "dsp"),  # M55 built without MVE
    # M55 at -Os: some kernels choose smaller loop forms under __OPTIMIZE_SIZE__ (avg_pool's
    # division, add's row loop), which only a size-optimised build runs.
    Device("corstone300-Os", "corstone300", opt="-Os"),
    # M4 at -O0 (a debug build): the DSP dot products too wide for its registers run their C
    # forms (em_nn_support.h em_nn_dot4_s8_dsp, em_nn_conv2d_dsp.h em_nn_dot2x2*_s8_dsp).
    Device("mps2_an386-O0", "mps2_an386", opt="-O0"),
]


def other_tier(tier: str) -> str:
    """A tier that is not `tier`, for the refused-program case."""
    return next(t for t in reversed(TIERS) if t != tier)


# ---- one launch per device --------------------------------------------------------------------

@dataclass(frozen=True)
class Verdict:
    status: str  # "EM_OK", an em_status name, "EM_RUN_EXIT_IO", or "missing" (no verdict line)
    detail: str  # "match instructions=123", "mismatch at byte 5 of 40: got 3, want 4", ...
    console: str = ""  # the runner's lines before this verdict (its error messages)

    @property
    def matched(self) -> bool:
        return self.status == "EM_OK" and self.detail.startswith("match")


@dataclass(frozen=True)
class Launch:
    """One em_run --batch launch: cases first .. first + count − 1 of the run, in its own manifest."""

    first: int
    count: int
    exit_code: int | None  # 0 if every case of it matched, EXIT_CASES_FAILED if not; None: timed out
    console: str


@dataclass
class BatchRun:
    verdicts: list[Verdict]
    launches: list[Launch]
    seconds: float

    @property
    def exit_code(self) -> int | None:
        """0 if every launch's cases matched; None if one timed out; else the first failing exit."""
        codes = [launch.exit_code for launch in self.launches]
        return None if None in codes else next((c for c in codes if c != 0), 0)

    @property
    def console(self) -> str:
        return "\n".join(launch.console for launch in self.launches)

    @property
    def failed(self) -> list[int]:
        """The cases whose verdict is not a match (an error, a mismatch or no verdict at all)."""
        return [i for i, verdict in enumerate(self.verdicts) if not verdict.matched]


VERDICT = re.compile(r"^case (\d+): (\S+) ?(.*)$")
EM_RUN_SOURCE = REPO / "tools" / "em_run" / "em_run.c"


def manifest_capacity() -> int:
    """EM_RUN_MANIFEST_CAPACITY, the most manifest bytes one em_run --batch launch reads (its
    default in tools/em_run/em_run.c; no build overrides it)."""
    m = re.search(r"#define EM_RUN_MANIFEST_CAPACITY \(([\du *]+)\)", EM_RUN_SOURCE.read_text())
    if m is None:
        raise ValueError(f"no EM_RUN_MANIFEST_CAPACITY in {EM_RUN_SOURCE}")
    value = 1
    for factor in m.group(1).replace("u", "").split("*"):
        value *= int(factor)
    return value


def split_manifest(lines: list[str], capacity: int) -> list[list[str]]:
    """The manifest lines in order, in as few consecutive groups as fit `capacity` bytes each
    (a line and its newline); one line longer than that is an error."""
    groups: list[list[str]] = [[]]
    size = 0
    for line in lines:
        n = len(line.encode()) + 1
        if n > capacity:
            raise ValueError(f"a manifest line of {n} bytes exceeds em_run's EM_RUN_MANIFEST_CAPACITY ({capacity})")
        if size + n > capacity and groups[-1]:
            groups.append([])
            size = 0
        groups[-1].append(line)
        size += n
    return groups


def _launch(device: Device, board, runner: Path, manifest: str, workdir: Path) -> tuple[int | None, str]:
    if board.emulator is None:
        done = subprocess.run([str(runner), "--batch", manifest], cwd=workdir, capture_output=True,
                              text=True, timeout=RUN_TIMEOUT_S)
        return done.returncode, done.stdout + done.stderr
    from ember_build.qemu import run_firmware

    done = run_firmware(board, runner, args=f"--batch {manifest}", timeout_s=RUN_TIMEOUT_S, cwd=workdir)
    return (None if done.timed_out else done.exit_code), done.console_text + done.stderr_text


def run_batch(device: Device, runner: Path, programs: list[tuple], workdir: Path,
              capacity: int | None = None) -> BatchRun:
    """Runs every (program, inputs, expected output[, tolerance words]) on `device` in as few
    launches of `runner` as em_run's manifest capacity allows (`capacity`: its
    EM_RUN_MANIFEST_CAPACITY unless given; the manifests are split by their bytes, so that a
    suite with more cases takes another launch rather than a larger constant); the words
    (Case.tolerance_words) end the manifest line. A case of the program alone, (program,), only
    loads it: its verdict is the verifier's ("EM_OK loaded" or a status)."""
    workdir.mkdir(parents=True, exist_ok=True)
    lines = []
    for i, (program, *case) in enumerate(programs):
        if not case:
            (workdir / f"c{i}.embr").write_bytes(program)
            lines.append(f"c{i}.embr -")
            continue
        inputs, expected, *tolerance = case
        names = [f"c{i}.embr", f"c{i}.want"] + [f"c{i}.x{k}" for k in range(len(inputs))]
        for name, data in zip(names, [program, expected, *inputs]):
            (workdir / name).write_bytes(data)
        lines.append(" ".join(names + [w for words in tolerance for w in words]))
    board = device.load()
    start = time.monotonic()
    verdicts: list[Verdict | None] = [None] * len(programs)
    launches = []
    first = 0
    for k, group in enumerate(split_manifest(lines, capacity or manifest_capacity())):
        manifest = f"manifest{k}.txt"
        (workdir / manifest).write_text("\n".join(group) + "\n")
        code, console = _launch(device, board, runner, manifest, workdir)
        launches.append(Launch(first, len(group), code, console))
        pending: list[str] = []
        tail = "\n".join(console.splitlines()[-20:])
        for line in console.splitlines():
            m = VERDICT.match(line)
            if m and int(m.group(1)) < len(group):
                verdicts[first + int(m.group(1))] = Verdict(m.group(2), m.group(3), "\n".join(pending))
                pending = []
            else:
                pending.append(line)
        missing = Verdict("missing", f"no verdict: the runner exited {code} before this case; its console ends:\n{tail}")
        verdicts[first:first + len(group)] = [v or missing for v in verdicts[first:first + len(group)]]
        first += len(group)
    return BatchRun(verdicts, launches, time.monotonic() - start)


def describe_failure(device: Device, case: Case, verdict: Verdict) -> str:
    """The op, the case's parameters and the first differing byte (with its output index)."""
    text = f"{case.id} on {device.name} ({device.target.tier}): {case.params}\n  {verdict.status} {verdict.detail}"
    m = re.match(r"mismatch at byte (\d+) of (\d+): got (\d+), want (\d+)", verdict.detail)
    if m:
        k, got, want = int(m.group(1)), int(m.group(3)), int(m.group(4))
        item = np.dtype(NUMPY_DTYPES[case.output.dtype]).itemsize
        index = tuple(int(i) for i in np.unravel_index(k // item, case.output.shape))
        if item == 1:  # bytes as int8
            got, want = (v - 256 if v > 127 else v for v in (got, want))
        text += f"\n  first difference: output{list(index)} (byte {k}): device {got}, reference {want}"
    if verdict.console:
        text += f"\n  runner: {verdict.console}"
    return text
