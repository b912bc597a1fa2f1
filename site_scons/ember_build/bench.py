"""The kernel benchmark (`./scons bench`): the four MLPerf Tiny models, layer by layer, on each
tier's QEMU board, counted as in MEASURING.md.

Per model and board: lower the model (int8 in and out) for the board's tier, build em_bench
firmware (tools/em_bench) with only the model's ops, plain and profiled; run the plain one twice
in QEMU and the profiled one once, check every output against the reference, the plain runs'
counts against each other and the profiled run's whole-network count against them (the same
em_program_invoke), and record the whole-network count, the per-operator counts, the arena and
the plain firmware's code size (what an application with this model carries: no profiler). Then write build/bench/kernels.json
and kernels.md from all of them.

Weights are seeded random and calibrated on seeded random inputs: instruction counts do not
depend on training. Quantizing (torch.export + PT2E) is the slow step and is independent of
the target, so it runs once per model per process; lowering runs once per tier.

SCons calls compile_bench, run_bench and write_reports (tools/em_bench/SConscript); tests
import the shaping functions (layer_rows, kernels_json, kernels_md).
"""
from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from compiler.layers import layer_rows
from compiler.target import CPUS
from ember_build.board import Board, emulated_boards
from ember_build.paths import BUILD_ROOT

REPO = Path(__file__).resolve().parents[2]
BENCH_DIR = BUILD_ROOT / "bench"
# Every board QEMU runs (bsp/: one per tier, and the M33 as a second DSP core), best tier first.
BOARDS = tuple(b.name for b in emulated_boards())
RUN_TIMEOUT_S = 300.0
RUNS = 2  # identical counts required (MEASURING.md, step 5)


class BenchError(RuntimeError):
    """A benchmark run that cannot be trusted: a mismatch, a crash, or counts that differ."""


@dataclass(frozen=True)
class BenchModel:
    name: str
    title: str
    module: str      # Python module (under apps/) with the builder
    builder: str     # function returning the nn.Module
    input_shape: tuple[int, ...]  # PyTorch layout (NCHW or N, features)
    cmsis_nn: dict[str, int]      # CMSIS-NN whole-network instructions per tier (issue 3)
    precision: str = "a8w8"       # every layer's (compiler.precisions.PRECISIONS)

    @property
    def sources(self) -> list[Path]:
        """Python files whose change means lowering again: the model and the apps' shared helpers
        it may import (apps/common, e.g. the "same" padding)."""
        return [REPO / (self.module.replace(".", "/") + ".py"), *sorted((REPO / "apps" / "common").glob("*.py"))]


MODELS: dict[str, BenchModel] = {m.name: m for m in (
    BenchModel("ds_cnn", "DS-CNN", "apps.kws.model", "ds_cnn", (1, 1, 49, 10),
               {"mve": 1_777_901, "dsp": 7_838_321, "scalar": 10_537_554}),
    BenchModel("resnet8", "ResNet-8", "apps.image_classification.model", "resnet8", (1, 3, 32, 32),
               {"mve": 4_801_923, "dsp": 29_848_967, "scalar": 41_749_422}),
    BenchModel("mobilenet_v1_025", "MobileNetV1-0.25 (96×96)", "apps.person_detect.model", "mobilenet_v1_025",
               (1, 3, 96, 96), {"mve": 6_421_336, "dsp": 24_708_864, "scalar": 32_074_347}),
    BenchModel("autoencoder", "autoencoder", "apps.anomaly.model", "AnomalyAutoencoder", (1, 640),
               {"mve": 146_640, "dsp": 578_882, "scalar": 952_180}),
    # Ember's own detector (issue 7 asks for its figures); no CMSIS-NN figure to compare with.
    BenchModel("micro_yolo", "µYOLO (128×128)", "apps.person_detect.model", "micro_yolo", (1, 3, 128, 128), {}),
    # Keyword spotters over DS-CNN's 49×10 MFCCs with a GRU and with attention (issue 19); no CMSIS-NN figure.
    BenchModel("crnn", "CRNN (conv + 2×GRU)", "apps.kws.sequence_models", "crnn", (1, 1, 49, 10), {}),
    BenchModel("kwt", "KWT (3 blocks, 64 wide)", "apps.kws.sequence_models", "kwt", (1, 1, 49, 10), {}),
    # int4 weights in every layer with an int4 kernel (issue 20): what the unpacking costs.
    BenchModel("ds_cnn_w4", "DS-CNN A8W4", "apps.kws.model", "ds_cnn", (1, 1, 49, 10), {}, "a8w4"),
    BenchModel("micro_yolo_w4", "µYOLO A8W4", "apps.person_detect.model", "micro_yolo", (1, 3, 128, 128), {}, "a8w4"),
    # int16 activations in every op with an int16 kernel (issue 20): what A16W8 costs.
    BenchModel("ds_cnn_a16", "DS-CNN A16W8", "apps.kws.model", "ds_cnn", (1, 1, 49, 10), {}, "a16w8"),
    BenchModel("autoencoder_a16", "autoencoder A16W8", "apps.anomaly.model", "AnomalyAutoencoder", (1, 640), {},
               "a16w8"),
)}
MLPERF_MODELS = ("ds_cnn", "resnet8", "mobilenet_v1_025", "autoencoder")  # the ones with CMSIS-NN figures
CMSIS_NN_NOTE = "CMSIS-NN commit 99f736a, -O3, GCC 12.2, whole network (issue 3)"

# The targets kernels.md checks each total against. Instructions (issue 7): CMSIS-NN's count less
# 30 % on Helium, 20 % on DSP, 10 % scalar, rounded down to thousands (the table), checked
# on the default build (SPEED_BUILD). Code and arena bytes on corstone300 (issue 5); code is
# checked on the size-optimised build (SIZE_BUILD, `opt=-Os`).
INSTRUCTION_PERCENT = {"mve": 70, "dsp": 80, "scalar": 90}
SPEED_BUILD, SIZE_BUILD = "-O2", "-Os"
CODE_TARGET = {"ds_cnn": 12_288, "resnet8": 16_384, "mobilenet_v1_025": 16_384, "autoencoder": 8_192}
ARENA_TARGET = {"ds_cnn": 12_000, "resnet8": 36_000, "mobilenet_v1_025": 60_000, "autoencoder": 1_300}
SIZE_TARGET_BOARD = "corstone300"


def instruction_target(model: str, tier: str) -> int | None:
    """Issue 7's most instructions for `model` on `tier`, or None (no CMSIS-NN figure)."""
    ref = MODELS[model].cmsis_nn.get(tier) if model in MODELS else None
    return ref * INSTRUCTION_PERCENT[tier] // 100 // 1000 * 1000 if ref else None


def select(names: str, known: tuple[str, ...] | list[str], what: str) -> list[str]:
    """The comma-separated `names` (all of `known` when empty), checked."""
    chosen = [n.strip() for n in names.split(",") if n.strip()] or list(known)
    unknown = [n for n in chosen if n not in known]
    if unknown:
        raise BenchError(f"unknown {what} {', '.join(unknown)}; known: {', '.join(known)}")
    return chosen


# ---- models: seeded weights, calibration, input ---------------------------------------------

def build_model(name: str, seed: int = 0):
    """The model with seeded random weights, non-trivial batch-norm statistics and layer-norm
    affines (PyTorch initialises those to 1 and 0), in eval mode."""
    import torch

    from ember_build.app_build import checkout_module

    spec = MODELS[name]
    torch.manual_seed(seed)
    model = getattr(checkout_module(spec.module), spec.builder)()
    for module in model.modules():
        if isinstance(module, (torch.nn.BatchNorm1d, torch.nn.BatchNorm2d)):
            module.running_mean.uniform_(-0.2, 0.2)
            module.running_var.uniform_(0.5, 1.5)
            module.weight.data.uniform_(0.5, 1.5)
            module.bias.data.uniform_(-0.2, 0.2)
        elif isinstance(module, torch.nn.LayerNorm) and module.elementwise_affine:
            module.weight.data.uniform_(0.5, 1.5)
            module.bias.data.uniform_(-0.2, 0.2)
    return model.eval()


def calibration_data(name: str, batches: int = 4, batch: int = 4, seed: int = 1) -> list:
    import torch

    shape = MODELS[name].input_shape[1:]
    generator = torch.Generator().manual_seed(seed)
    return [torch.randn(batch, *shape, generator=generator) for _ in range(batches)]


@cache
def exported(name: str):
    """The model quantized (PT2E) and re-exported: the target-independent, slow part."""
    import torch

    from compiler.frontend import quantize, importable
    from compiler.quantizer import CortexMQuantizer

    example = (torch.zeros(MODELS[name].input_shape),)
    quantizer = CortexMQuantizer(precision=MODELS[name].precision)
    return importable(quantize(build_model(name), example, calibration_data(name), quantizer), example)


@cache
def _lowered(name: str, tier: str):
    from compiler.pipeline import import_program, lower_graph  # the pipeline registers torchao's ops first
    from compiler.options import LoweringOptions
    from compiler.target import Target

    cpu = next(c.name for c in CPUS.values() if c.best_tier == tier)  # lowering reads only the tier
    return lower_graph(import_program(exported(name)), LoweringOptions(Target(cpu, tier), int8_io=True))


def arena_regions(board: Board) -> list:
    """The board's arena regions, fastest first, less the stack where it shares one."""
    from compiler.planner import Region

    regions = sorted((r for r in board.memory if r.arena), key=lambda r: r.speed)
    stack = board.placement.get("stack")
    return [Region(r.name, r.size - ((board.stack_bytes or 0) if r.name == stack else 0)) for r in regions]


def lower(name: str, cpu: str, tier: str, regions: list | None = None, optimize: str = "speed"):
    """A planned int8-in/int8-out Program of model `name` for `cpu` (lowered once per tier),
    its activations in the first of `regions` they fit in (one unbounded region by default:
    a small fast RAM, like the M33's 16 KiB beside its stack, may hold only some models), its
    kernel variants chosen for `optimize`."""
    from compiler.errors import PlanError
    from compiler.planner import Region, plan_memory
    from compiler.program import Program
    from compiler.target import Target

    errors = []
    for region in regions or [Region("sram", 1 << 30)]:
        graph = copy.deepcopy(_lowered(name, tier))  # planning writes offsets into the graph
        try:
            return Program(graph, Target(cpu, tier, optimize), name, plan_memory(graph, region, tier))
        except PlanError as error:
            errors.append(str(error))
    raise BenchError(f"{name} fits no arena region: {'; '.join(errors)}")


def bench_input(program, seed: int = 2) -> np.ndarray:
    """A seeded standard-normal input, quantized as the program's int8 (or A16W8's int16) input expects."""
    tensor = program.graph.tensors[program.graph.inputs[0]]
    scale, zero_point = float(tensor.quant.scale[0]), int(tensor.quant.zero_point[0])
    x = np.random.default_rng(seed).standard_normal(tensor.shape)
    limits = np.iinfo(tensor.dtype)
    return np.clip(np.rint(x / scale) + zero_point, limits.min, limits.max).astype(tensor.dtype)


# ---- compile (SCons step 1) -------------------------------------------------------------------

def input_c(data: np.ndarray, operators: int) -> tuple[str, str]:
    """(em_test_vectors.c, em_test_vectors.h): the input's bytes and the operator count."""
    flat = np.ascontiguousarray(data).reshape(-1).view(np.int8)
    rows = ",\n    ".join(", ".join(str(int(v)) for v in flat[i:i + 24]) for i in range(0, len(flat), 24))
    header = ("/* Generated by site_scons/ember_build/bench.py. Do not edit. */\n"
              "#ifndef EM_TEST_VECTORS_H\n#define EM_TEST_VECTORS_H\n#include <stdint.h>\n"
              f"#define EM_BENCH_INPUT_BYTES {len(flat)}u\n#define EM_BENCH_OPERATORS {operators}u\n"
              f"extern const int8_t em_bench_input[{len(flat)}];\n#endif\n")
    source = ("/* Generated by site_scons/ember_build/bench.py. Do not edit. */\n"
              '#include "em_test_vectors.h"\n\n'
              f"const int8_t em_bench_input[{len(flat)}] = {{\n    {rows}\n}};\n")
    return source, header


def compile_bench(name: str, board: Board, out_dir: Path, optimize: str = "speed") -> dict:
    """Lowers model `name` for `board` (kernel variants for `optimize`) into `out_dir`: program C
    sources, input, arena header, expected output (expected.npz) and the layer table with the
    program's sizes (layers.json)."""
    from compiler.files import write_atomically
    from ember_build.app_build import arena_header_c

    out = Path(out_dir)
    program = lower(name, board.cpu, board.tier, arena_regions(board), optimize)
    region = program.graph.arenas[0]
    program.emit_c(out)
    program.save(out / "program.embr")
    x = bench_input(program)
    expected = program.run_reference(x)[0]
    source, header = input_c(x, len(program.graph.ops))
    write_atomically(out / "em_test_vectors.c", source)
    write_atomically(out / "em_test_vectors.h", header)
    write_atomically(out / "em_model_arena.h", arena_header_c(program.arena_bytes[region.name], region.name))
    write_atomically(out / "plan.txt", program.summary() + "\n")
    np.savez(out / "expected.npz", input=x, output=expected)
    summary = {"model": name, "board": board.name, "tier": board.tier,
               "arena_bytes": int(sum(program.arena_bytes.values())),
               "program_bytes": len(program.to_bytes()), "layers": layer_rows(program.graph)}
    write_atomically(out / "layers.json", json.dumps(summary, indent=1) + "\n")
    return summary


# ---- run (SCons step 2) -----------------------------------------------------------------------

_HEADER = re.compile(r"^EM bench program=(\d+) arena=(\d+) operators=(\d+) unit=(.+)$", re.M)
_INVOKE = re.compile(r"^EM bench invoke count=(\d+) output=([0-9a-f]*)$", re.M)
_OP = re.compile(r"^EM bench op (\d+) (\w+) count=(\d+)$", re.M)
_PROFILED = re.compile(r"^EM bench profiled output=([0-9a-f]*)$", re.M)
_STACK = re.compile(r"^EM bench stack peak=(\d+)$", re.M)


def parse_console(text: str, profiled: bool = True) -> dict:
    """What em_bench printed (tools/em_bench/em_bench.c), built `profiled` or plain; BenchError
    when a line is missing. A plain run has no "ops" and no "profiled_output"."""
    header, invoke, profile_output = _HEADER.search(text), _INVOKE.search(text), _PROFILED.search(text)
    if not (header and invoke and "EM done" in text and (profile_output or not profiled)):
        raise BenchError(f"em_bench did not finish; its console:\n{text[-2000:]}")
    stack = _STACK.search(text)
    parsed = {"unit": header[4].strip(), "count": int(invoke[1]), "output": bytes.fromhex(invoke[2]),
              "stack_peak": int(stack[1]) if stack else None}
    if profiled:
        ops = [{"index": int(m[1]), "name": m[2], "count": int(m[3])} for m in _OP.finditer(text)]
        if [op["index"] for op in ops] != list(range(int(header[3]))):
            raise BenchError(f"em_bench printed {len(ops)} operator counts for {header[3]} operators")
        parsed.update(ops=ops, profiled_output=bytes.fromhex(profile_output[1]))
    return parsed


def _run_once(board: Board, elf: Path, profiled: bool) -> dict:
    from ember_build.qemu import run_firmware

    result = run_firmware(board, elf, timeout_s=RUN_TIMEOUT_S)
    if result.timed_out or result.exit_code != 0:
        raise BenchError(f"{elf} on {board.name}: "
                         f"{'timed out' if result.timed_out else f'exit {result.exit_code}'}\n"
                         f"{result.console_text[-2000:]}{result.stderr_text[-1000:]}")
    return parse_console(result.console_text, profiled)


def run_bench(board: Board, elf: Path, profiled_elf: Path, gen_dir: Path, out: Path, lto: bool = False) -> dict:
    """Runs the plain `elf` RUNS times and `profiled_elf` once, checks outputs and counts; writes
    and returns the result (out). Without LTO the profiled firmware differs from the plain one only
    outside the counted span, so its whole-network count must be the same too; with LTO the whole
    image is optimised together and the profiled one's inlining differs (a few instructions), so
    only the plain runs must agree and the profiled total is recorded beside them."""
    from compiler.files import write_atomically
    from ember_build.size_report import measure

    runs = [_run_once(board, elf, profiled=False) for _ in range(RUNS)]
    profile = _run_once(board, profiled_elf, profiled=True)
    compared = [("plain", r["count"]) for r in runs] + ([] if lto else [("profiled", profile["count"])])
    if any(count != compared[0][1] for _, count in compared):
        raise BenchError(f"{elf} on {board.name}: whole-network counts differ between identical runs "
                         f"({', '.join(label for label, _ in compared)}): {[count for _, count in compared]}")
    compiled = json.loads((Path(gen_dir) / "layers.json").read_text())
    expected = np.ascontiguousarray(np.load(Path(gen_dir) / "expected.npz")["output"]).tobytes()
    run = runs[0]
    if len(profile["ops"]) != len(compiled["layers"]):
        raise BenchError(f"{profiled_elf}: {len(profile['ops'])} operators ran, the program has "
                         f"{len(compiled['layers'])}")
    layers = [dict(row, instructions=op["count"]) for row, op in zip(compiled["layers"], profile["ops"])]
    record = {
        "model": compiled["model"], "board": board.name, "tier": compiled["tier"], "unit": run["unit"],
        "instructions": run["count"], "macs": sum(row["macs"] for row in layers),
        "arena_bytes": compiled["arena_bytes"], "code_bytes": measure(Path(elf)).as_json()["code_flash"],
        "stack_peak_bytes": run["stack_peak"],  # measured by stack painting (bsp), whole firmware
        "match": all(r["output"] == expected for r in runs + [profile]) and profile["profiled_output"] == expected,
        "layers": layers, "lto": lto, "profiled_instructions": profile["count"],
    }
    write_atomically(Path(out), json.dumps(record, indent=1) + "\n")
    return record


# ---- reports (SCons step 3) -------------------------------------------------------------------

SUMMARY_FIELDS = ("instructions", "macs", "arena_bytes", "code_bytes", "match")
LAYER_FIELDS = ("model", "board", "layer", "op", "shape", "macs", "instructions")
TOP_LAYERS = 3  # kernels.md names the layers where each model spends most, per board


def kernels_json(records: list[dict]) -> dict:
    """{"models": {model: {board: {instructions, macs, arena_bytes, code_bytes, match}}},
        "layers": [{model, board, layer, op, shape, macs, instructions}]} (issue 3)."""
    models: dict[str, dict] = {}
    layers = []
    for r in records:
        models.setdefault(r["model"], {})[r["board"]] = {k: r[k] for k in SUMMARY_FIELDS}
        layers += [{"model": r["model"], "board": r["board"], **{k: row[k] for k in LAYER_FIELDS[2:]}}
                   for row in r["layers"]]
    return {"models": models, "layers": layers}


def _against(value: int, target: int | None, total: bool = False) -> str:
    """"≤ 1,244,000 ✓" for a target column, or "11,584 (≤ 12,000 ✓)" beside a total; "-" / the
    value alone when there is no target."""
    if target is None:
        return f"{value:,}" if total else "-"
    verdict = f"≤ {target:,} {'✓' if value <= target else '✗'}"
    return f"{value:,} ({verdict})" if total else verdict


def _per(macs: int, instructions: int) -> str:
    return f"{macs / instructions:.2f}" if macs and instructions else "-"


def kernels_md(records: list[dict], optimization: str = SPEED_BUILD) -> str:
    """Whole-model totals against CMSIS-NN and the targets `optimization`'s build is checked on, the
    costliest layers, then a table per model and board."""
    title = {name: m.title for name, m in MODELS.items()}
    lto = any(r.get("lto") for r in records)
    built = (f"{optimization} and link-time optimisation (lto=1; the per-layer counts come from the "
             "profiled firmware, which LTO optimises apart: they add up to its own total)") if lto else optimization
    lines = ["# Kernel benchmark", "",
             "Instructions counted by QEMU (`-icount`, SysTick; MEASURING.md) for one int8-in, int8-out "
             "invoke; both runs of each firmware gave identical counts. "
             f"CMSIS-NN: {CMSIS_NN_NOTE}; the M33 (mps2_an505) is compared with the M4 figure (dsp tier). "
             "ratio = Ember / CMSIS-NN (below 1.00 is fewer instructions). "
             f"Built with {built}. target: issue 7's most instructions (CMSIS-NN less 30 % mve, "
             f"20 % dsp, 10 % scalar), checked on {SPEED_BUILD} builds; issue 5's most arena bytes and "
             f"(on {SIZE_BUILD} builds, `./scons bench opt={SIZE_BUILD}` with or without lto=1) code bytes, "
             f"on {SIZE_TARGET_BOARD}. "
             "✓ within the target, ✗ over it, - not checked on this build.", "",
             "| model | board | tier | instructions | CMSIS-NN | ratio | target | MACs | MACs/instr | arena (B) | "
             "code (B) | match |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in records:
        ref = MODELS[r["model"]].cmsis_nn.get(r["tier"]) if r["model"] in MODELS else None
        ratio = f"{r['instructions'] / ref:.2f}" if ref else "-"
        target = instruction_target(r["model"], r["tier"]) if optimization == SPEED_BUILD else None
        sized = r["board"] == SIZE_TARGET_BOARD
        code_target = CODE_TARGET.get(r["model"]) if sized and optimization == SIZE_BUILD else None
        lines.append(f"| {title.get(r['model'], r['model'])} | {r['board']} | {r['tier']} | {r['instructions']:,} | "
                     f"{f'{ref:,}' if ref else '-'} | {ratio} | {_against(r['instructions'], target)} | {r['macs']:,} | "
                     f"{_per(r['macs'], r['instructions'])} | "
                     f"{_against(r['arena_bytes'], ARENA_TARGET.get(r['model']) if sized else None, total=True)} | "
                     f"{_against(r['code_bytes'], code_target, total=True)} | "
                     f"{'yes' if r['match'] else 'NO'} |")
    lines += ["", f"## The {TOP_LAYERS} layers that take the most instructions", "",
              "| model | board | " + " | ".join(f"#{i + 1}" for i in range(TOP_LAYERS)) + " |",
              "|---|---|" + "---|" * TOP_LAYERS]
    for r in records:
        top = sorted(r["layers"], key=lambda row: -row["instructions"])[:TOP_LAYERS]
        cells = [f"{row['layer']} {row['op']} {row['shape']}: {row['instructions']:,} "
                 f"({100 * row['instructions'] / max(r['instructions'], 1):.0f}%)" for row in top]
        lines.append(f"| {title.get(r['model'], r['model'])} | {r['board']} | "
                     + " | ".join(cells + [""] * (TOP_LAYERS - len(cells))) + " |")
    for r in records:
        lines += ["", f"## {title.get(r['model'], r['model'])} on {r['board']} ({r['tier']})", "",
                  "| layer | op | shape | MACs | instructions | MACs/instr | share |",
                  "|---|---|---|---:|---:|---:|---:|"]
        # the layers are the profiled firmware's: with lto=1 its total may differ from the plain one's
        profiled = r.get("profiled_instructions", r["instructions"])
        for row in r["layers"]:
            share = f"{100 * row['instructions'] / profiled:.1f}%" if profiled else "-"
            lines.append(f"| {row['layer']} | {row['op']} | {row['shape']} | {row['macs']:,} | "
                         f"{row['instructions']:,} | {_per(row['macs'], row['instructions'])} | {share} |")
        between = profiled - sum(row["instructions"] for row in r["layers"])
        lines.append(f"| (runtime between operators) | | | | {between:,} | | |")
        if profiled != r["instructions"]:
            lines.append(f"| (profiled firmware's total) | | | | {profiled:,} | | |")
        lines.append(f"| **total** | | | **{r['macs']:,}** | **{r['instructions']:,}** | "
                     f"**{_per(r['macs'], r['instructions'])}** | |")
    return "\n".join(lines) + "\n"


def write_reports(result_files: list[Path], out_dir: Path = BENCH_DIR, optimization: str = SPEED_BUILD) -> list[dict]:
    """kernels.json and kernels.md from the per-run results of an `optimization` build, in model
    then board order."""
    from compiler.files import write_atomically

    records = [json.loads(Path(f).read_text()) for f in result_files]
    order = {name: i for i, name in enumerate([*MODELS, *BOARDS])}
    records.sort(key=lambda r: (order.get(r["model"], 99), order.get(r["board"], 99)))
    write_atomically(Path(out_dir) / "kernels.json", json.dumps(kernels_json(records), indent=1) + "\n")
    write_atomically(Path(out_dir) / "kernels.md", kernels_md(records, optimization))
    return records
