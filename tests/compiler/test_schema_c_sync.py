"""The runtime's hand-written schema constants (no C FlatBuffers generator is packaged) agree
with compiler/schema/program.fbs: opcodes, option tags, tiers, dtypes and every field slot."""
from __future__ import annotations

import re
from pathlib import Path

from compiler.ops import OP_TABLE
from compiler.schema import program_generated as fb

REPO = Path(__file__).resolve().parents[2]
C_HEADERS = ["runtime/include/ember.h", "runtime/include/em_registry.h", "runtime/core/em_program_view.h"]
# C prefix of each table's field-slot constants, where it is not the table's name in UPPER_SNAKE.
PREFIX_ALIASES = {"FullyConnectedOptions": "FC_OPTIONS"}


def _c_constants() -> dict[str, int]:
    text = "\n".join((REPO / h).read_text() for h in C_HEADERS)
    return {name: int(value) for name, value in re.findall(r"\b(EM_[A-Z0-9_]+)\s*=\s*(\d+)u?\b", text)}


def _upper_snake(name: str) -> str:
    """FullyConnectedOptions → FULLY_CONNECTED_OPTIONS, Conv2DOptions → CONV_2D_OPTIONS."""
    return re.sub(r"(?<=[a-z])(?=[A-Z0-9])|(?<=[0-9A-Z])(?=[A-Z][a-z])", "_", name).upper()


def _enum_name(enum: type, value: int) -> str:
    return next(name for name, v in vars(enum).items() if v == value and not name.startswith("_") and name != "NONE")


def _schema_tables() -> dict[str, list[str]]:
    """Table name → field names in slot order (a union field takes two slots: <name>_type, <name>)."""
    schema = (REPO / "compiler/schema/program.fbs").read_text()
    unions = set(re.findall(r"^union\s+(\w+)", schema, re.M))
    tables = {}
    for name, body in re.findall(r"^table\s+(\w+)\s*\{(.*?)^\}", schema, re.M | re.S):
        fields = []
        for field, kind in re.findall(r"^\s*(\w+)\s*:\s*([\w\[\]]+)", body, re.M):
            fields += [f"{field}_type", field] if kind in unions else [field]
        tables[name] = fields
    return tables


def test_opcodes_and_option_tags_match_the_schema_and_the_op_table():
    c = _c_constants()
    for spec in OP_TABLE.values():
        assert c[f"EM_OP_{_enum_name(fb.OpCode, spec.opcode)}"] == spec.opcode
        tag = _upper_snake(_enum_name(fb.OpOptions, spec.options_type)).removesuffix("_OPTIONS")
        assert c[f"EM_OPTIONS_{tag}"] == spec.options_type
    assert c["EM_OPTIONS_NONE"] == fb.OpOptions.NONE


def test_every_schema_opcode_and_option_tag_has_its_c_constant():
    c = _c_constants()
    for name, value in vars(fb.OpCode).items():
        if not name.startswith("_"):
            assert c[f"EM_OP_{name}"] == value, name
    for name, value in vars(fb.OpOptions).items():
        if not name.startswith("_"):
            assert c[f"EM_OPTIONS_{_upper_snake(name).removesuffix('_OPTIONS')}"] == value, name


def test_tiers_and_dtypes_match():
    c = _c_constants()
    for enum, prefix in ((fb.Tier, "EM_TIER_"), (fb.DType, "EM_DTYPE_")):
        for name, value in vars(enum).items():
            if not name.startswith("_"):
                assert c[prefix + name] == value, prefix + name


def test_every_field_slot_the_runtime_reads_is_where_the_schema_puts_it():
    c = _c_constants()
    checked = 0
    for table, fields in _schema_tables().items():
        prefix = "EM_" + PREFIX_ALIASES.get(table, _upper_snake(table)) + "_"
        for slot, field in enumerate(fields):
            name = prefix + field.upper()
            if name in c:
                assert c[name] == slot, f"{name} is slot {slot} in program.fbs, {c[name]} in C"
                checked += 1
    assert checked >= 30  # the runtime reads nearly every field; a renamed prefix would skip them


def test_the_concatenation_input_limit_is_the_adapters():
    from compiler.ops.concatenation import MAX_INPUTS

    source = (REPO / "runtime/ops/em_op_concatenation.c").read_text()
    assert re.search(r"#define EM_CONCAT_MAX_INPUTS (\d+)u", source).group(1) == str(MAX_INPUTS)
