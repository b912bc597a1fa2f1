"""What `scons --help` lists after the build variables: the apps (app=) with their models
(model=) and the boards (board=) of this checkout, read from apps/*/app.yaml and
bsp/*/board.yaml. A file that does not load is listed with its error, so help still prints."""
from __future__ import annotations

from pathlib import Path

from ember_build.app_build import AppError, app_variants, known_apps, load_app
from ember_build.board import BoardError, known_boards, load_board

NAME_WIDTH = 22


def catalogue(default_board: str, apps_root: Path | None = None, bsp_root: Path | None = None) -> str:
    lines = ["Apps (app=); one with several models takes model= (the first is the default):"]
    for name in known_apps(apps_root):
        try:
            models = app_variants(name, apps_root)
            descriptions = [load_app(name, model, apps_root).description for model in models or [""]]
        except AppError as error:
            lines.append(f"  {name:<{NAME_WIDTH}}does not load: {error}")
            continue
        if not models:
            lines.append(f"  {name:<{NAME_WIDTH}}{descriptions[0]}".rstrip())
            continue
        lines.append(f"  {name}")  # each model has its own description
        lines += [f"  {'':<{NAME_WIDTH}}model={model:<10}{text}" for model, text in zip(models, descriptions)]
    lines += ["", f"Boards (board=; default {default_board}), with the ISA tier each builds for:"]
    for name in known_boards(*([bsp_root] if bsp_root else [])):
        try:
            board = load_board(name, *([bsp_root] if bsp_root else []))
        except BoardError as error:
            lines.append(f"  {name:<{NAME_WIDTH}}does not load: {error}")
            continue
        lines.append(f"  {name:<{NAME_WIDTH}}{board.tier:<8}{board.description}")
    return "\n".join(lines) + "\n"
