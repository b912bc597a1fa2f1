"""Reading a node of the exported ATen graph: where it comes from in the user's model, and its
arguments with ATen's defaults (the importers of compiler/ops/ and compiler/importer.py)."""
from __future__ import annotations

import re
from pathlib import Path

from torch.fx import Node

_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


def origin_of(node: Node) -> str:
    """Where `node` comes from in the user's model: the submodule ('net.3 (Linear)') and the
    innermost frame of the user's own code ('model.py:42'), whichever are known."""
    frames = _FRAME.findall(node.meta.get("stack_trace") or "")
    user = [(f, n) for f, n in frames if "/torch/" not in f and "/torchao/" not in f]
    stack = list((node.meta.get("nn_module_stack") or {}).values())
    parts = []
    if stack and stack[-1][0]:
        module_type = stack[-1][1]
        type_name = module_type.__name__ if isinstance(module_type, type) else str(module_type).rsplit(".", 1)[-1]
        parts.append(f"{stack[-1][0]} ({type_name})")
    if user:
        parts.append(f"{_readable_path(user[-1][0])}:{user[-1][1]}")
    return " at ".join(parts)


def _readable_path(path: str) -> str:
    """Relative to the working directory when below it, so programs do not depend on where the
    checkout lives."""
    here = Path.cwd()
    return str(Path(path).relative_to(here)) if Path(path).is_relative_to(here) else path


def given_args(node: Node, defaults: tuple) -> list:
    """node.args after the input, completed with aten's defaults."""
    given = list(node.args[1:])
    return given + list(defaults[len(given):])


def pair(value) -> tuple[int, int]:
    values = [int(v) for v in (value if isinstance(value, (list, tuple)) else [value])]
    return (values[0], values[-1])


def input_rank(node: Node) -> int:
    return node.args[0].meta["val"].dim()


def dim_size(node: Node, dim: int) -> int:
    return int(node.args[0].meta["val"].shape[dim])

