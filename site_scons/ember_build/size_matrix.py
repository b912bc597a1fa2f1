"""`scons size-matrix=1 [apps=a,b] [boards=x,y] [opt=-Os] [lto=1]`: every app (and model variant)
built for every board, one table of flash and RAM (build/size_matrix.md, .json) and a chart
(size_matrix.png); another optimisation level or LTO builds and writes beside them
(build/size_matrix-Os-lto.md …).

Each cell is one ordinary build (`scons app=<app> [model=<variant>] board=<board>`, run as a
child process one after the other, so each keeps its own SCons state) whose size.json
(ember_build.size_report) gives the figures. A build that fails is a cell with its error, not
the end of the matrix; the command exits non-zero if any cell failed.
"""
from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

from compiler.files import write_atomically
from ember_build.board import known_boards, load_board
from ember_build.toolchain import DEFAULT_OPTIMIZATION, flavour_suffix
from ember_build.paths import BUILD_ROOT

REPO = Path(__file__).resolve().parents[2]
OUT = BUILD_ROOT


class SizeMatrixError(ValueError):
    """An unknown app or board in the selection."""


@dataclass(frozen=True)
class Cell:
    app: str
    variant: str | None  # app.yaml's model variant (model=…), None for an app with one model
    board: str

    @property
    def label(self) -> str:
        return f"{self.app} ({self.variant})" if self.variant else self.app

    @property
    def args(self) -> list[str]:
        return [f"app={self.app}", f"board={self.board}"] + ([f"model={self.variant}"] if self.variant else [])


def apps_and_variants(selection: str = "") -> list[tuple[str, str | None]]:
    """Every app with an app.yaml, each model variant of it (app.yaml `variants`), or `selection`."""
    known = sorted(p.parent.name for p in (REPO / "apps").glob("*/app.yaml"))
    chosen = [a for a in selection.split(",") if a] or known
    unknown = [a for a in chosen if a not in known]
    if unknown:
        raise SizeMatrixError(f"unknown app(s) {', '.join(unknown)}; apps: {', '.join(known)}")
    pairs = []
    for app in chosen:
        raw = yaml.safe_load((REPO / "apps" / app / "app.yaml").read_text()) or {}
        variants = list((raw.get("variants") or {}).keys())
        pairs += [(app, v) for v in variants] or [(app, None)]
    return pairs


def boards(selection: str = "") -> list[str]:
    """Every board but the host (flash and RAM mean nothing there), or `selection`."""
    known = [name for name in known_boards() if name != "host"]
    chosen = [b for b in selection.split(",") if b] or known
    unknown = [b for b in chosen if b not in known]
    if unknown:
        raise SizeMatrixError(f"unknown board(s) {', '.join(unknown)}; boards: {', '.join(known)}")
    return chosen


def _size_json(cell: Cell, suffix: str = "") -> Path:
    build = load_board(cell.board).build_name + suffix
    folder = cell.app + (f"-{cell.variant}" if cell.variant else "")
    candidates = [OUT / build / folder / "size.json", OUT / build / cell.app / "size.json"]
    return next((p for p in candidates if p.exists()), candidates[0])


def build_cell(cell: Cell, scons: list[str], suffix: str = "") -> dict:
    """Builds one cell (`scons` carries the flavour's options, `suffix` its folder); its size
    figures, or its error."""
    run = subprocess.run(scons + cell.args, cwd=REPO, capture_output=True, text=True)
    if run.returncode != 0:
        lines = [l for l in (run.stdout + run.stderr).splitlines() if "error" in l.lower()]
        return {"error": (lines[-1] if lines else f"scons exited {run.returncode}")[:300]}
    size = json.loads(_size_json(cell, suffix).read_text())
    return {k: size[k] for k in ("flash_total", "code_flash", "runtime_core_flash", "constants_flash",
                                 "arena_ram", "stack_ram", "ram_total")}


def markdown(cells: dict[Cell, dict], board_names: list[str], options: list[str] = ()) -> str:
    """The table; `options`: the builds' flavour (opt=…, lto=…), named in the text."""
    labels = list(dict.fromkeys(c.label for c in cells))
    lines = ["# Flash and RAM of every app on every board", "",
             "Each cell: flash total (code / model constants) · RAM total (arenas + stack), bytes. "
             f"Made by `./scons size-matrix=1{''.join(' ' + o for o in options)}`.", "",
             "| app | " + " | ".join(board_names) + " |", "|---|" + "---:|" * len(board_names)]
    for label in labels:
        row = []
        for board in board_names:
            figures = next((f for c, f in cells.items() if c.label == label and c.board == board), None)
            if figures is None:
                row.append("")
            elif "error" in figures:
                row.append(f"failed: {figures['error']}")
            else:
                row.append(f"{figures['flash_total']:,} ({figures['code_flash']:,} / {figures['constants_flash']:,})"
                           f" · {figures['ram_total']:,}")
        lines.append(f"| {label} | " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n\n![flash and RAM per app and board](size_matrix.png)\n"


def chart(cells: dict[Cell, dict], board_names: list[str], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = list(dict.fromkeys(c.label for c in cells))
    fig, axes = plt.subplots(1, 2, figsize=(12, 0.5 * len(labels) * len(board_names) / 2 + 2.5))
    width = 0.8 / max(len(board_names), 1)
    for ax, key, title in ((axes[0], "flash_total", "flash (KiB)"), (axes[1], "ram_total", "RAM (KiB)")):
        for j, board in enumerate(board_names):
            values = [next((f.get(key, 0) for c, f in cells.items() if c.label == label and c.board == board), 0) / 1024
                      for label in labels]
            ax.barh([i + j * width for i in range(len(labels))], values, height=width, label=board)
        ax.set_yticks([i + 0.4 - width / 2 for i in range(len(labels))], labels)
        ax.invert_yaxis()
        ax.set_title(title)
    axes[1].legend(fontsize=8)
    fig.tight_layout()
    tmp = path.with_name(path.name + ".tmp.png")
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    tmp.replace(path)


def main(apps_selection: str = "", boards_selection: str = "", scons: list[str] | None = None,
         optimization: str = DEFAULT_OPTIMIZATION, lto: bool = False) -> int:
    suffix = flavour_suffix(optimization, lto)
    options = [f"opt={optimization}", f"lto={int(lto)}"]
    scons = (scons or [str(Path(sys.executable).with_name("scons"))]) + options
    try:
        pairs, board_names = apps_and_variants(apps_selection), boards(boards_selection)
    except SizeMatrixError as error:
        print(f"error: {error}")
        return 2
    cells: dict[Cell, dict] = {}
    for app, variant in pairs:
        for board in board_names:
            cell = Cell(app, variant, board)
            print(f"size matrix: {cell.label} on {board}", flush=True)
            cells[cell] = build_cell(cell, scons, suffix)
    data = [{"app": c.app, "model": c.variant, "board": c.board, **f} for c, f in cells.items()]
    name = f"size_matrix{suffix}"
    write_atomically(OUT / f"{name}.json", json.dumps(data, indent=2) + "\n")
    write_atomically(OUT / f"{name}.md", markdown(cells, board_names, options))
    chart(cells, board_names, OUT / f"{name}.png")
    print((OUT / f"{name}.md").read_text())
    return 1 if any("error" in f for f in cells.values()) else 0
