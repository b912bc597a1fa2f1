"""The operator table: one record (OpSpec) per Ember op, declared in the op's own module.

Every module of this package that defines OpSpec values contributes them; the others
(spec, conv_options, overlap, broadcast) are what the records are built from. The table is in
opcode order, so whatever is generated from it (the registry, variant lists) is stable.
"""
from __future__ import annotations

import importlib
import pkgutil

from compiler.ops.spec import OpSpec


def _records() -> list[OpSpec]:
    found: list[OpSpec] = []
    for module in pkgutil.iter_modules(__path__):
        values = vars(importlib.import_module(f"{__name__}.{module.name}")).values()
        found += [value for value in values if isinstance(value, OpSpec) and value not in found]
    return sorted(found, key=lambda spec: spec.opcode)


OP_TABLE: dict[str, OpSpec] = {spec.kind: spec for spec in _records()}
OPCODES: dict[int, OpSpec] = {spec.opcode: spec for spec in OP_TABLE.values()}
if len(OP_TABLE) != len(OPCODES):
    raise ValueError("two op records share a kind or an opcode")

__all__ = ["OP_TABLE", "OPCODES", "OpSpec"]
