"""An app's figures (`scons app=<app> figures=1`): the table every app's README shows.

Accuracy comes from the app itself: its model module's hook

    accuracy_figures(model, program, count) -> {"metric": str, "float": float,
                                                "int8_reference": float, "samples": int, ...}

scores the float PyTorch model and the int8 program's reference (`program.run_reference`) on the
same held-out samples (optionally also "rows": [[name, value text], ...], the app's own further
rows of the table, after the accuracy ones). The rest is measured here or read from the build: parameters (the
PyTorch model), MACs (compiler/macs.py over the lowered graph), program and arena bytes
(compile.json), device agreement and instructions per inference (report.json of the run on the
board, which compared every test vector's output bytes with the reference).
Writes figures.json and figures.md beside report.json.
"""
from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

from compiler.macs import graph_macs
from compiler.files import write_atomically
from compiler.program import Program

FIGURES_COMMAND = "./scons app={app} board={board} figures=1"
REQUIRED_KEYS = {"metric", "float", "int8_reference", "samples"}


class FiguresError(ValueError):
    """An app's accuracy hook is missing or returned something else than documented."""


def accuracy(module: ModuleType, model, program: Program, count: int) -> dict:
    hook = getattr(module, "accuracy_figures", None)
    if hook is None:
        raise FiguresError(f"{module.__name__} has no accuracy_figures(model, program, count) hook: "
                           "add it to report the app's accuracy (see site_scons/ember_build/figures.py)")
    result = dict(hook(model, program, count=count))
    missing = REQUIRED_KEYS - result.keys()
    if missing:
        raise FiguresError(f"{module.__name__}.accuracy_figures returned no {', '.join(sorted(missing))}")
    return result


def at_precisions(module: ModuleType, model, programs: dict[str, Program], count: int) -> list[dict]:
    """The app's accuracy and program bytes of the model lowered at each other precision
    (app.yaml figures_precisions: every layer at it), scored on the host's reference."""
    return [{"precision": name, "accuracy": accuracy(module, model, program, count)["int8_reference"],
             "program_bytes": len(program.to_bytes())} for name, program in programs.items()]


def collect(module: ModuleType, model, meta: dict, gen: Path, report: dict, count: int,
            others: dict[str, Program] | None = None) -> dict:
    """Every figure of the table, from the app module, the generated program and the run report
    (and `others`: the model lowered at further precisions)."""
    program = Program.load(gen / "program.embr")
    compiled = json.loads((gen / "compile.json").read_text())
    agreed = report["vectors"] - len(report["mismatched_vectors"])
    return {
        "precisions": at_precisions(module, model, others or {}, count),
        "app": report["app"],
        "variant": report.get("variant", ""),
        "board": report["board"],
        "tier": report["tier"],
        "accuracy": accuracy(module, model, program, count),
        "parameters": sum(p.numel() for p in model.parameters()),
        "macs": graph_macs(program.graph),
        "program_bytes": compiled["program_bytes"],
        "arena_bytes": compiled["arena_bytes"],
        "device_agreement": {"vectors": report["vectors"], "equal": agreed,
                             "share": agreed / report["vectors"] if report["vectors"] else 0.0},
        "instructions_per_inference": report["instructions_per_inference"],
        "counter_unit": report["counter_unit"],
        "training": meta,
    }


def markdown(figures: dict) -> str:
    """The README table: figure, value, and the command that measures it."""
    acc = figures["accuracy"]
    variant = f" model={figures['variant']}" if figures.get("variant") else ""
    command = "`" + FIGURES_COMMAND.format(app=figures["app"], board=figures["board"] + variant) + "`"
    agreement = figures["device_agreement"]
    arena = ", ".join(f"{region} {size:,}" for region, size in figures["arena_bytes"].items())
    rows = [
        (f"float {acc['metric']} ({acc['samples']} held-out samples)", f"{acc['float']:.3f}"),
        (f"int8 reference {acc['metric']} (same samples)", f"{acc['int8_reference']:.3f}"),
        *[(str(name), str(value)) for name, value in acc.get("rows", [])],  # the app's own figures
        *[row for other in figures.get("precisions", []) for row in (
            (f"{other['precision']} reference {acc['metric']} (same samples)", f"{other['accuracy']:.3f}"),
            (f"{other['precision']} program bytes", f"{other['program_bytes']:,}"))],
        (f"device agreement with the reference ({figures['board']}, test vectors byte for byte)",
         f"{agreement['share']:.0%} ({agreement['equal']}/{agreement['vectors']})"),
        ("parameters", f"{figures['parameters']:,}"),
        ("MACs per inference", f"{figures['macs']:,}"),
        ("program bytes", f"{figures['program_bytes']:,}"),
        ("arena bytes", arena),
        (f"{figures['counter_unit']} per inference ({figures['board']}, tier {figures['tier']})",
         f"{figures['instructions_per_inference']:,}"),
    ]
    lines = ["| figure | value | measured by |", "|---|---:|---|"]
    lines += [f"| {name} | {value} | {command} |" for name, value in rows]
    return "\n".join(lines) + "\n"


def write_figures(module: ModuleType, gen: Path, report_path: Path, count: int,
                  others: dict[str, Program] | None = None) -> dict:
    """Writes figures.json and figures.md beside `report_path`; returns the figures. `others`:
    the model lowered at further precisions, scored beside the build's program."""
    model, meta = module.load_trained()
    report = json.loads(report_path.read_text())
    figures = collect(module, model.eval(), meta, gen, report, count, others)
    write_atomically(report_path.with_name("figures.json"), json.dumps(figures, indent=2) + "\n")
    write_atomically(report_path.with_name("figures.md"), markdown(figures))
    return figures
