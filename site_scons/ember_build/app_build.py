"""Compiles an app's model for a board: the program file, its C sources, the embedded test
vectors and the reference outputs the device must reproduce byte for byte.

Called by SCons (apps' SConscript) and importable by tests. Knows boards only as data.
"""
from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np

from compiler import reference
from compiler.files import write_atomically
from compiler.ir import NUMPY_DTYPES
from compiler.precisions import PRECISIONS
from compiler.target import Target
from ember_build.board import Board
from ember_build.config_schema import SettingsFile, read_settings, shown_path

if TYPE_CHECKING:  # the build imports torch (and the compiler's modules that do) only where it lowers
    import torch

    from compiler.placement import Memory
    from compiler.program import Program
    from compiler.quantizer import CortexMQuantizer

REPO = Path(__file__).resolve().parents[2]
APPS = REPO / "apps"


class AppError(ValueError):
    """A missing or malformed app folder or app.yaml (then one line: the file, the line, the key)."""


@dataclass(frozen=True)
class App:
    name: str
    description: str
    model: str  # Python module path, or "module:object" (an object with the hooks as attributes)
    test_vectors: int
    int8_io: bool
    directory: Path
    figures_samples: int = 200  # held-out samples the accuracy figures are measured on
    variant: str = ""  # one of app.yaml's `variants` (the build's model=), "" when it has none
    memory: tuple = ()  # app.yaml `memory:` as (pin items, cap items): see app_memory
    programs: tuple = ()  # app.yaml `programs:`: the variants whose programs one firmware runs (compile_programs)
    firmware: tuple = ()  # app.yaml `firmware:`: further folders of firmware/ the build compiles
    checkpoint: str = ""  # app.yaml `checkpoint:`: the variant whose checkpoint this one lowers ("": its own)
    precision: tuple = ()  # app.yaml `precision:` as sorted (key, value) pairs: see quantizer_of
    figures_precisions: tuple = ()  # app.yaml `figures_precisions:`: more precisions figures=1 scores


_NAMES = {"type": "array", "items": {"type": "string", "minLength": 1}}
MEMORY_SCHEMA = {"type": "object", "additionalProperties": False, "properties": {
    "pin": {"type": "object", "additionalProperties": {"type": "string", "minLength": 1}},  # tensor or layer: region
    "cap": {"type": "object", "additionalProperties": {"type": ["integer", "string"], "minimum": 0}},  # region: bytes
}}
# Each layer's precision (compiler.precisions.PRECISIONS): one for all, or chosen by
# compiler.precision for a program of at most `flash_budget` bytes (or an output SQNR bound).
PRECISION_SCHEMA = {"type": "object", "additionalProperties": False, "properties": {
    "default": {"enum": list(PRECISIONS)},
    "flash_budget": {"type": "integer", "minimum": 1},
    "min_output_sqnr_db": {"type": "number"},
}}
# What a model variant may set (over the top level's); the top level takes them too, but for
# `programs`, which only a variant has.
_MODEL_FIELDS = {
    "description": {"type": "string"},
    "model": {"type": "string", "minLength": 1},  # module, or "module:object"
    "test_vectors": {"type": "integer", "minimum": 1},
    "int8_io": {"type": "boolean"},
    "figures_samples": {"type": "integer", "minimum": 1},
    "memory": MEMORY_SCHEMA,
    "firmware": _NAMES,
    "checkpoint": {"type": "string", "minLength": 1},  # a variant's name: lower its checkpoint
    "precision": PRECISION_SCHEMA,
    # figures=1 also lowers the model at each of these (every layer) and scores it on the host
    "figures_precisions": {"type": "array", "items": PRECISION_SCHEMA["properties"]["default"]},
}
VARIANT_SCHEMA = {"type": "object", "additionalProperties": False, "properties": {**_MODEL_FIELDS, "programs": _NAMES}}
APP_SCHEMA = {"type": "object", "additionalProperties": False, "required": ["name"], "properties": {
    "name": {"type": "string", "minLength": 1},
    **_MODEL_FIELDS,
    "variants": {"type": "object", "minProperties": 1, "additionalProperties": VARIANT_SCHEMA},
}}
REQUIRED = ("model", "test_vectors")  # at the top level or in each variant


def known_apps(apps_root: Path | None = None) -> list[str]:
    return sorted(p.parent.name for p in (APPS if apps_root is None else apps_root).glob("*/app.yaml"))


def app_variants(name: str, apps_root: Path | None = None) -> list[str]:
    """The app's models (app.yaml `variants`, the first the default), [] for an app with one."""
    return list(_read_app(name, apps_root).data.get("variants") or {})


def _read_app(name: str, apps_root: Path | None) -> SettingsFile:
    """apps/<name>/app.yaml, checked against APP_SCHEMA."""
    path = (APPS if apps_root is None else apps_root) / name / "app.yaml"
    if not path.exists():
        raise AppError(f"no app {name!r} (no {shown_path(path)}); known apps: {', '.join(known_apps(apps_root))}")
    settings = read_settings(path, AppError)
    settings.check(APP_SCHEMA, AppError)
    if settings.data["name"] != name:
        raise AppError(settings.problem("name", f"is {settings.data['name']!r} but the folder is {name!r}"))
    variants = settings.data.get("variants") or {}
    for variant, fields in variants.items():
        missing = [k for k in REQUIRED if k not in settings.data and k not in (fields or {})]
        if missing:
            raise AppError(settings.problem(f"variants.{variant}", f"missing {', '.join(missing)} "
                                                                    "(a required key, here or at the top level)"))
    if not variants:
        for key in (k for k in REQUIRED if k not in settings.data):
            raise AppError(settings.problem(key, "missing (a required key)"))
    return settings


def load_app(name: str, variant: str = "", apps_root: Path | None = None) -> App:
    """app.yaml of `name` (in `apps_root`, default the checkout's apps/), checked against
    APP_SCHEMA; with `variants` in it, the fields of `variant` (default: the first) override the
    top-level ones. A `variant` of an app without variants is an error."""
    settings = _read_app(name, apps_root)
    path = settings.path
    raw = dict(settings.data)
    variants = raw.pop("variants", None) or {}
    if variant and variant not in variants:
        if not variants:
            raise AppError(f"{shown_path(path)}: no model {variant!r}: {name} has one model (no variants): drop model=")
        raise AppError(f"{shown_path(path)}: no model {variant!r} (model= choices: {', '.join(variants)})")
    origin = {k: k for k in raw}  # where each field was set: its dotted key, for the line of an error
    if variants:
        variant = variant or next(iter(variants))
        chosen = variants[variant] or {}
        raw.update(chosen)
        origin.update({k: f"variants.{variant}.{k}" for k in chosen})
    return App(raw["name"], raw.get("description", ""), raw["model"], raw["test_vectors"],
               raw.get("int8_io", False), path.parent, raw.get("figures_samples", 200), variant,
               memory_settings(raw.get("memory"), path, settings=settings, key=origin.get("memory", "memory")),
               _names(raw.get("programs"), variants, settings, origin.get("programs", "programs")),
               _names(raw.get("firmware"), None, settings, origin.get("firmware", "firmware")),
               _checkpoint_variant(raw.get("checkpoint"), variants, settings, origin.get("checkpoint", "checkpoint")),
               _precision(raw.get("precision"), settings, origin.get("precision", "precision")),
               tuple(raw.get("figures_precisions") or ()))


def _checkpoint_variant(raw: str | None, variants: dict, settings: SettingsFile, key: str) -> str:
    """app.yaml `checkpoint:`: another variant of the app, whose checkpoint-<name>.pt this one lowers."""
    if raw is None:
        return ""
    if raw not in variants or (variants[raw] or {}).get("checkpoint"):
        raise AppError(settings.problem(key, f"{raw!r} is no variant with a checkpoint of its own "
                                             f"(choices: {', '.join(v for v in variants if not (variants[v] or {}).get('checkpoint'))})"))
    return raw


def _precision(raw: dict | None, settings: SettingsFile, key: str) -> tuple:
    """app.yaml `precision:` (PRECISION_SCHEMA): at most one of flash_budget and min_output_sqnr_db."""
    if not raw:
        return ()
    if "flash_budget" in raw and "min_output_sqnr_db" in raw:
        raise AppError(settings.problem(key, "takes flash_budget or min_output_sqnr_db, not both"))
    return tuple(sorted(raw.items()))


def _names(raw: list | None, allowed: dict | None, settings: SettingsFile, key: str) -> tuple:
    """app.yaml `programs:` (variants of the app, in run order) or `firmware:` (folder names);
    their types are APP_SCHEMA's."""
    if raw is None:
        return ()
    unknown = [n for n in raw if allowed is not None and (n not in allowed or (allowed[n] or {}).get("programs"))]
    if unknown:
        raise AppError(settings.problem(key, f"{unknown} are not one-program variants of the app "
                                             f"(choices: {', '.join(n for n in allowed if not (allowed[n] or {}).get('programs'))})"))
    folder = settings.path.parent / "firmware"
    missing = [n for n in raw if allowed is None and not (folder / n).is_dir()]
    if missing:
        raise AppError(settings.problem(key, f"{missing} are not folders of {shown_path(folder)}"))
    return tuple(raw)


def memory_settings(raw: object, path: Path, settings: SettingsFile | None = None, key: str = "memory") -> tuple:
    """app.yaml `memory:` → ((tensor or layer, region) …, (region, bytes) …). `pin` maps a tensor
    name or a layer name (as plan.txt shows them) to a region of the board; `cap` maps a region to
    the most bytes the plan may use there (an integer, or a string such as "64 KiB"). `settings`:
    the app.yaml it is `key` of (checked already), for the line of an error; without it, `raw`
    is checked against MEMORY_SCHEMA here."""
    if raw is None:
        return ()
    if settings is None:
        settings = SettingsFile(path, {key: raw})
        settings.check(MEMORY_SCHEMA, AppError, data=raw, prefix=(key,))
    pins, caps = raw.get("pin") or {}, raw.get("cap") or {}
    return (tuple((str(k), str(v)) for k, v in pins.items()),
            tuple((str(k), _bytes(v, settings, f"{key}.cap.{k}")) for k, v in caps.items()))


UNITS = {"": 1, "b": 1, "kib": 1024, "k": 1024, "mib": 1 << 20, "m": 1 << 20}


def _bytes(value: int | str, settings: SettingsFile, key: str) -> int:
    """A cap: an integer, or "<n> KiB" / "<n> MiB"."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    number, _, unit = str(value).strip().partition(" ")
    if number.isdigit() and unit.strip().lower() in UNITS:
        return int(number) * UNITS[unit.strip().lower()]
    raise AppError(settings.problem(key, f"{value!r} is not a size; give bytes (65536) or \"64 KiB\""))


def model_module(app: App) -> ModuleType:
    """The app's model hooks, importable from SCons too: app.yaml's `model`, a module or
    "module:object" (an object with the hooks as attributes, one per model of an app with
    variants). Hooks: load_trained, example_inputs, calibration_data, test_vectors,
    accuracy_figures (ember_build/figures.py); optionally firmware_header(program) -> str (written
    as em_app_generated.h) and expected_lines(program, outputs) -> list[str] (console lines the
    device must print verbatim, checked by report.check_run). A variant with `programs:` takes
    instead input_program, test_vectors, run_reference and firmware_header(programs) (compile_programs)."""
    module_name, _, attribute = app.model.partition(":")
    module = checkout_module(module_name)
    return getattr(module, attribute) if attribute else module


def checkout_module(name: str) -> ModuleType:
    """Imports `name` of the checkout's apps/ (apps.kws.model, …): the folder is no installed
    package and SCons' actions run with the repository off sys.path, so `apps` is made a
    namespace package of that folder, found by its location; its submodules then import through
    its __path__ as usual. An `apps` already imported (tests, tools run from the root) is kept."""
    top = name.partition(".")[0]
    if top == "apps" and "apps" not in sys.modules:
        spec = importlib.machinery.ModuleSpec("apps", None, is_package=True)
        spec.submodule_search_locations = [str(APPS)]
        sys.modules["apps"] = importlib.util.module_from_spec(spec)
    return importlib.import_module(name)


def app_memory(board: Board, app: App | None = None) -> Memory:
    """The board's arena regions (the stack's region less the stack) with the app's pins and caps
    (app.yaml `memory:`): what compiler.placement plans into."""
    from compiler.placement import Memory
    from compiler.planner import Region

    if not any(r.arena for r in board.memory):
        raise AppError(f"board {board.name} has no memory region with arena: true")
    stack_region = board.placement.get("stack")
    regions = tuple(Region(r.name, r.size - ((board.stack_bytes or 0) if r.name == stack_region else 0), r.speed, r.base)
                    for r in board.memory if r.arena)
    pins, caps = app.memory if app is not None and app.memory else ((), ())
    return Memory(regions, dict(pins), dict(caps), tuple(r.name for r in board.memory if not r.arena))


C_VECTOR_TYPES = {"float32": "float", "int16": "int16_t", "int8": "int8_t"}


def test_vectors_c(vectors: np.ndarray) -> tuple[str, str]:
    """(em_test_vectors.c, em_test_vectors.h) embedding `vectors` [N, ...] exactly, in their dtype:
    float32 (features), int16 (raw audio, for a model with a front end) or int8."""
    count, per = vectors.shape[0], int(np.prod(vectors.shape[1:]))
    dtype = np.dtype(vectors.dtype).name
    if dtype not in C_VECTOR_TYPES:
        raise AppError(f"test vectors of dtype {dtype}: the firmware takes {', '.join(C_VECTOR_TYPES)}")
    ctype = C_VECTOR_TYPES[dtype]
    flat = vectors.reshape(count, per)
    text = (lambda v: f"{float(v).hex()}f") if dtype == "float32" else (lambda v: str(int(v)))
    rows = ",\n  ".join("{\n    " + ", ".join(text(v) for v in row) + "\n  }" for row in flat)
    header = (
        "/* Generated by site_scons/ember_build/app_build.py. Do not edit. */\n"
        "#ifndef EM_TEST_VECTORS_H\n#define EM_TEST_VECTORS_H\n#include <stdint.h>\n"
        f"#define EM_TEST_VECTOR_COUNT {count}u\n#define EM_TEST_VECTOR_VALUES {per}u\n"
        f"extern const {ctype} em_test_vectors[{count}][{per}];\n#endif\n"
    )
    source = (
        "/* Generated by site_scons/ember_build/app_build.py. Do not edit. */\n"
        '#include "em_test_vectors.h"\n\n'
        f"const {ctype} em_test_vectors[{count}][{per}] = {{\n  {rows}\n}};\n"
    )
    return source, header


def program_inputs(program: Program, vectors: np.ndarray) -> np.ndarray:
    """Test vectors as the program takes them: float ones quantized with the program's input
    quantization when it takes int8 (int8_io), as its own quantize op would have done."""
    tensor = program.graph.tensors[program.graph.inputs[0]]
    vectors = np.asarray(vectors)
    if tensor.dtype == "int8" and vectors.dtype.kind == "f":
        inv_scale = np.float32(1.0 / float(tensor.quant.scale[0]))  # lower_boundaries' attribute
        return reference.quantize_f32_s8(vectors.astype(np.float32), inv_scale, int(tensor.quant.zero_point[0]))
    return vectors.astype(NUMPY_DTYPES[tensor.dtype])


def arena_header_c(size: int, region: str, more: list[tuple[str, int]] | None = None, pinned: int = 0,
                   state: int = 0) -> str:
    """em_model_arena.h: the arenas of the plan, `region` (`size` bytes) first, then `more`
    ((region, bytes) in the program's arena order). EM_MODEL_ARENA_BYTES / _SECTION describe arena
    0; EM_MODEL_ARENAS_DEFINE(name) defines every arena, each in its region's linker section
    `.em_arena.<region>` (NOLOAD), with `name` (pointers) and `name##_sizes` as the runtime takes them."""
    arenas = [(region, size)] + list(more or [])
    lines = [
        "/* Generated by site_scons/ember_build/app_build.py. Do not edit. */",
        "#ifndef EM_MODEL_ARENA_H", "#define EM_MODEL_ARENA_H", "#include <stdint.h>",
        f"#define EM_MODEL_ARENA_BYTES {max(size, 16)}u",
        f'#define EM_MODEL_ARENA_SECTION ".em_arena.{region}"',
        f"#define EM_MODEL_ARENA_COUNT {len(arenas)}u",
        "/* Constants pinned to RAM (app.yaml memory: pin:): without any, firmware need not link the copy. */",
        f"#define EM_MODEL_PINNED_CONSTANTS {pinned}u",
        "/* Persistent tensors (state kept between invokes): without any, firmware need not link the reset. */",
        f"#define EM_MODEL_STATE_TENSORS {state}u",
        "/* One arena per memory region of the plan, in the program's arena order. */",
        "#define EM_MODEL_ARENAS_DEFINE(name) \\",
    ]
    for i, (name, n) in enumerate(arenas):
        lines.append(f'    static uint8_t name##_{i}[{max(n, 16)}u] __attribute__((aligned(16), section(".em_arena.{name}"))); \\')
    pointers = ", ".join(f"name##_{i}" for i in range(len(arenas)))
    sizes = ", ".join(f"sizeof name##_{i}" for i in range(len(arenas)))
    lines += [f"    static uint8_t *const name[{len(arenas)}] = {{{pointers}}}; \\",
              f"    static const uint32_t name##_sizes[{len(arenas)}] = {{{sizes}}}", "#endif", ""]
    return "\n".join(lines)


def lower_app(app: App, module: ModuleType, board: Board, optimize: str = "speed") -> tuple[Program, "torch.nn.Module", dict]:
    """The app's trained model lowered for `board` (deterministic: the build and the numerics
    debugger get the same program), its kernel variants chosen for `optimize` (toolchain.goal_of:
    "size" in an -Os build); also the float model and the checkpoint's metadata."""
    from compiler.pipeline import lower

    model, meta = module.load_trained()
    # A model module with front_end() (an audio front end, compiler.audio_features) makes the
    # program take raw audio: its test_vectors() are then audio, its calibration data features.
    front_end = module.front_end() if hasattr(module, "front_end") else None
    # ... and one with stream() (compiler.options.Stream) a program that takes a hop per invoke:
    # its test_vectors() are consecutive hops, run in order over one state.
    stream = module.stream() if hasattr(module, "stream") else None
    target = Target(board.cpu, board.tier, optimize)
    options = dict(int8_io=app.int8_io, arena=app_memory(board, app), front_end=front_end, stream=stream)
    example, calibration = module.example_inputs(), module.calibration_data()
    quantizer, table = quantizer_of(app, model, example, calibration, target, **options)
    program = lower(model, example, calibration, target, name=app.name, quantizer=quantizer, **options)
    if table:
        meta = {**meta, "precision": table}
    return program, model, meta


def quantizer_of(app: App, model, example: tuple, calibration: list, target: Target,
                 **lower_options) -> tuple[CortexMQuantizer | None, str]:
    """The quantizer app.yaml's `precision:` asks for (None: the default int8 one), and the table
    of compiler.precision's choice when it chose ("" otherwise)."""
    from compiler import precision
    from compiler.quantizer import CortexMQuantizer

    settings = dict(app.precision)
    if not settings:
        return None, ""
    base = CortexMQuantizer(precision=settings.get("default", "a8w8"))
    goal = {k: settings[k] for k in ("flash_budget", "min_output_sqnr_db") if k in settings}
    if not goal:
        return base, ""
    choice = precision.choose(model, example, calibration, target, quantizer=base, **goal, **lower_options)
    return choice.quantizer(), choice.table()


def compile_app(app_name: str, board: Board, out_dir: Path, variant: str = "", optimize: str = "speed") -> dict:
    """Lowers the app's model (of `variant`, for apps with several) for `board`, its kernel
    variants chosen for `optimize`, into `out_dir`; returns a summary for the report."""
    app = load_app(app_name, variant)
    module = model_module(app)
    if app.programs:
        return compile_programs(app, module, board, Path(out_dir), optimize)
    program, _, meta = lower_app(app, module, board, optimize)
    out = Path(out_dir)
    program.save(out / "program.embr")
    program.emit_c(out)
    if "precision" in meta:  # compiler.precision's choice for app.yaml's precision:
        write_atomically(out / "precision.md", meta["precision"])
    vectors = program_inputs(program, module.test_vectors(app.test_vectors))  # in the input's dtype
    state: dict = {}  # a program with state runs the vectors in order from one reset, as the firmware does
    expected = [program.run_reference(v, state=state)[0] for v in vectors]
    source, header = test_vectors_c(vectors)
    write_atomically(out / "em_test_vectors.c", source)
    write_atomically(out / "em_test_vectors.h", header)
    header_of = getattr(module, "firmware_header", None)
    write_atomically(out / "em_app_generated.h", header_of(program) if header_of else
                     "/* Generated by site_scons/ember_build/app_build.py: this app's model adds nothing. */\n")
    lines_of = getattr(module, "expected_lines", None)
    lines = lines_of(program, expected) if lines_of else []
    arenas = [(a.name, a.size) for a in program.graph.arenas]
    pinned = sum(t.is_pinned for t in program.graph.tensors.values())
    write_atomically(out / "em_model_arena.h", arena_header_c(arenas[0][1], arenas[0][0], arenas[1:], pinned,
                                                              len(program.graph.state)))
    write_atomically(out / "plan.txt", program.summary() + "\n\n" + program.plan.chart() + "\n")
    write_atomically(out / "plan.json", json.dumps(program.plan.as_json(), indent=2) + "\n")
    np.savez(out / "expected.npz", inputs=vectors, outputs=np.stack(expected), lines=np.array(lines, dtype=str))
    summary = {"app": app.name, "variant": app.variant, "board": board.name, "target": board.cpu, "tier": board.tier,
               "program_bytes": len(program.to_bytes()), "arena_bytes": program.arena_bytes,
               "ops": [op.kind for op in program.graph.ops], "model": meta}
    write_atomically(out / "compile.json", json.dumps(summary, indent=2) + "\n")
    return summary


def shared_arenas(programs: dict[str, Program]) -> list[tuple[str, int]]:
    """The arenas of a firmware whose programs run one after the other and so share their
    memory: per region, the largest plan's bytes. Each program's arena order (its arena i is the
    runtime's arenas[i]) must be a prefix of the longest's, so one arena list serves them all."""
    orders = {name: [a.name for a in p.graph.arenas] for name, p in programs.items()}
    longest = max(orders.values(), key=len)
    clash = {name: order for name, order in orders.items() if order != longest[:len(order)]}
    if clash:
        raise AppError(f"the programs' arenas are in different region orders ({orders}): they cannot share "
                       "one arena list; pin or cap the regions (app.yaml memory:) so every plan uses them in one order")
    return [(region, max(a.size for p in programs.values() for a in p.graph.arenas if a.name == region))
            for region in longest]


def compile_programs(app: App, module: ModuleType, board: Board, out: Path, optimize: str = "speed") -> dict:
    """A variant with `programs:` (app.yaml): lowers each named variant's model for `board` into one
    firmware's sources (compiler.program.emit_programs_c: em_model_program_<name>, the union
    registry, the union kernel variants), arenas shared by the programs (shared_arenas: they run
    one after the other), the test vectors in the input quantization of the program named by the
    module's `input_program`, and the reference of what the firmware runs: the module's
    run_reference(programs, vectors) -> (outputs of every inference in run order, console lines).
    expected.npz holds the outputs flat with their sizes (output_sizes: report.check_run)."""
    from compiler.program import emit_programs_c

    programs, models = {}, {}
    for name in app.programs:
        single = load_app(app.name, name)
        programs[name], _, models[name] = lower_app(single, model_module(single), board, optimize)
        programs[name].save(out / f"program-{name}.embr")
    pinned = sum(t.is_pinned for p in programs.values() for t in p.graph.tensors.values())
    if pinned:
        raise AppError(f"{app.name} model={app.variant}: constants pinned to RAM (memory: pin:) with several programs: "
                       "their shared arenas would overwrite them; drop the pins of the programs' variants")
    emit_programs_c(programs, out)
    vectors = program_inputs(programs[module.input_program], module.test_vectors(app.test_vectors))
    outputs, lines = module.run_reference(programs, vectors)
    source, header = test_vectors_c(vectors)
    write_atomically(out / "em_test_vectors.c", source)
    write_atomically(out / "em_test_vectors.h", header)
    write_atomically(out / "em_app_generated.h", module.firmware_header(programs))
    arenas = shared_arenas(programs)
    write_atomically(out / "em_model_arena.h", arena_header_c(arenas[0][1], arenas[0][0], arenas[1:],
                                                              state=max(len(p.graph.state) for p in programs.values())))
    write_atomically(out / "plan.txt", "\n\n".join(f"== program {name}\n{p.summary()}\n\n{p.plan.chart()}"
                                                    for name, p in programs.items()) + "\n")
    write_atomically(out / "plan.json", json.dumps({n: p.plan.as_json() for n, p in programs.items()}, indent=2) + "\n")
    np.savez(out / "expected.npz", inputs=vectors, outputs=np.concatenate([np.asarray(o).reshape(-1) for o in outputs]),
             output_sizes=np.array([np.asarray(o).size for o in outputs], dtype=np.int64), lines=np.array(lines, dtype=str))
    summary = {"app": app.name, "variant": app.variant, "board": board.name, "target": board.cpu, "tier": board.tier,
               "program_bytes": sum(len(p.to_bytes()) for p in programs.values()), "arena_bytes": dict(arenas),
               "ops": sorted({op.kind for p in programs.values() for op in p.graph.ops}), "model": models,
               "programs": {n: {"program_bytes": len(p.to_bytes()), "arena_bytes": p.arena_bytes,
                                "ops": [op.kind for op in p.graph.ops]} for n, p in programs.items()}}
    write_atomically(out / "compile.json", json.dumps(summary, indent=2) + "\n")
    return summary


# Selective build below the op (runtime/kernels/include/em_nn_variants.h): the kernels whose
# dispatch chooses among selectable variants, compiled once more per program with its generated
# em_nn_variants_selected.h, and linked before the runtime library (whose copies, built with
# every variant, the linker then never pulls). Only firmware whose program is fixed at build
# time: the serving firmware and em_run load other programs and keep every variant. A kernel of
# several files (runtime/kernels/README.md) comes whole, leaves first: its files link together
# in the order its one file had, so the link's alignment padding stays as it was.
VARIANT_KERNEL_SOURCES = [REPO / "runtime" / "kernels" / f"{name}.c" for name in (
    "em_conv2d_dot2x3_mve", "em_conv2d_block_mve", "em_conv2d_pack_mve", "em_conv2d_s8_mve",
    "em_depthwise_conv2d_s8_mve",
    "em_depthwise_m1_block_mve", "em_depthwise_m1_pixel_mve", "em_depthwise_conv2d_m1_s8",
    "em_fully_connected_s8",
    # the int16 (A16W8) kernels and their contracts, which EM_NN_S16_LINKED reduces to refusals
    "em_conv2d_s16", "em_depthwise_conv2d_s16", "em_fully_connected_s16",
    "em_weighted_validate_s16",
)]
VARIANTS_DEFINE = "EM_NN_VARIANTS_SELECTED"
VARIANTS_HEADER = "em_nn_variants_selected.h"


INT16_SWITCH_QUERY = "EM_NN_S16_LINKED("


def int16_adapter_sources() -> list[Path]:
    """The adapters of the op kinds with an int16 (A16W8) kernel (OpSpec.int16_kernel): each asks
    EM_NN_S16_LINKED(KIND) before it calls that kernel, so it too is compiled per program, and a
    firmware whose program has no int16 op of a kind links none of its int16 code. Found by that
    question in their source, not from the op records, so that reading a build imports no torch
    (tests/kernels/test_kernel_paths.py checks they are int16 kernels' adapters)."""
    return sorted(path for path in (REPO / "runtime" / "ops").glob("em_op_*.c")
                  if INT16_SWITCH_QUERY in path.read_text())


def variant_kernel_objects(env, gen: Path, obj_dir: Path) -> list:
    """The VARIANT_KERNEL_SOURCES, and the int16_adapter_sources (with env's EM_SEALED, as the
    runtime library it links before), compiled for the program generated in `gen` (into `obj_dir`)."""
    kernels_env = env.Clone()
    kernels_env.Append(CPPDEFINES=[VARIANTS_DEFINE], CPPPATH=[str(gen), str(REPO / "runtime" / "ops")])
    return kernels_env.EmberObjects([str(s) for s in VARIANT_KERNEL_SOURCES + int16_adapter_sources()], obj_dir)
