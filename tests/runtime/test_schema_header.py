"""em_schema.h, the runtime's schema constants generated from compiler/schema/program.fbs
(site_scons/ember_build/schema_header.py): what it holds is flatc's reading of the schema, it
follows the schema when the schema changes, the runtime's C reads its names and retypes none."""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from build_host import INCLUDES, REPO, schema_include_dir
from compiler.schema import program_generated as fb
from ember_build.schema_header import (SCHEMA, Schema, SchemaEnum, SchemaHeaderError, SchemaTable,
                                       header_text, read_schema, write_header)

HEADER = schema_include_dir() / "em_schema.h"
CONSTANT = re.compile(r"\b(EM_[A-Z0-9_]+) = (-?\d+)\b")


def _values(enum: type) -> dict[str, int]:
    """The names and values of one of flatc's generated Python enum classes."""
    return {n: v for n, v in vars(enum).items() if not n.startswith("_")}


def _constants(text: str) -> dict[str, int]:
    return {name: int(value) for name, value in CONSTANT.findall(text)}


class _SlotRecorder:
    """Stands in for a flatbuffers.Builder: records the slot of the one Prepend*Slot call that
    flatc's generated `<Table>Add<Field>(builder, value)` makes."""

    slot: int | None = None

    def __getattr__(self, name: str):
        def record(slot: int, *args) -> None:
            self.slot = slot
        assert name.startswith("Prepend") and name.endswith("Slot"), name
        return record


def _python_slot(table: str, field: str) -> int:
    camel = "".join(word[:1].upper() + word[1:] for word in field.split("_"))
    recorder = _SlotRecorder()
    getattr(fb, f"{table}Add{camel}")(recorder, 0)
    return recorder.slot


def test_enums_and_union_tags_are_the_values_of_flatcs_python_code():
    """Two outputs of flatc for one schema, read two ways (the binary schema here, the generated
    Python the compiler writes programs with) agree on every enum value."""
    c = _constants(HEADER.read_text())
    named = {"OpCode": "EM_OP_", "Tier": "EM_TIER_", "DType": "EM_DTYPE_",
             "FloatBinaryFunction": "EM_FLOAT_BINARY_FUNCTION_", "FloatUnaryFunction": "EM_FLOAT_UNARY_FUNCTION_"}
    for enum, prefix in named.items():
        values = _values(getattr(fb, enum))
        assert {prefix + n: v for n, v in values.items()}.items() <= c.items(), enum
    tags = _values(fb.OpOptions)
    assert c["EM_OPTIONS_NONE"] == tags.pop("NONE") == 0
    assert c["EM_OPTIONS_CONV_2D"] == tags["Conv2DOptions"] and c["EM_OPTIONS_MIN_MAX"] == tags["MinMaxOptions"]
    assert len([n for n in c if n.startswith("EM_OPTIONS_")]) == len(tags) + 1
    assert '#define EM_SCHEMA_FILE_IDENTIFIER "EMBR"' in HEADER.read_text()


def test_every_field_slot_is_the_one_flatcs_python_builder_writes():
    schema = read_schema()
    checked = 0
    for table in schema.tables:
        for field, slot in table.fields:
            assert _python_slot(table.name, field) == slot, f"{table.name}.{field}"
            checked += 1
    assert checked > 150  # every field of every table (Operator's union field counts twice)
    c = _constants(HEADER.read_text())
    assert (c["EM_OPERATOR_OPTIONS_TYPE"], c["EM_OPERATOR_OPTIONS"]) == (3, 4)  # a union takes two slots
    assert c["EM_FULLY_CONNECTED_OPTIONS_OUTPUT_SHIFT"] == 4 and c["EM_PROGRAM_PINNED_CONSTANTS"] == 10


def _changed_schema(tmp_path: Path, *edits: tuple[str, str]) -> Path:
    text = SCHEMA.read_text()
    for old, new in edits:
        assert old in text
        text = text.replace(old, new, 1)
    path = tmp_path / "program.fbs"
    path.write_text(text)
    return path


def test_the_header_follows_the_schema(tmp_path):
    """An appended opcode, option table and field each become a constant; nothing is listed by hand.
    The edits append after whatever is last today, so adding an op does not break this test."""
    opcodes = _values(fb.OpCode)
    last_op = max(opcodes, key=opcodes.get)
    last_code = opcodes[last_op]
    tags = _values(fb.OpOptions)
    last_options = max(tags, key=tags.get)
    fbs = _changed_schema(
        tmp_path,
        (f"{last_op} = {last_code}\n", f"{last_op} = {last_code}, GATHER = {last_code + 1}\n"),
        ("}\n\n/// MAX_POOL_2D", "  bias_shift: int;\n}\n\n/// MAX_POOL_2D"),  # Conv2DOptions' last field
        ("table Operator {", "table GatherOptions {\n  axis: int;\n}\n\ntable Operator {"),
        (f"{last_options} }}", f"{last_options}, GatherOptions }}"))
    c = _constants(write_header(tmp_path / "em_schema.h", fbs).read_text())
    before = _constants(HEADER.read_text())
    assert c["EM_OP_GATHER"] == last_code + 1
    assert c["EM_CONV_2D_OPTIONS_BIAS_SHIFT"] == sum(k.startswith("EM_CONV_2D_OPTIONS_") for k in before)
    assert c["EM_OPTIONS_GATHER"] == tags[last_options] + 1 and c["EM_GATHER_OPTIONS_AXIS"] == 0
    assert before.items() <= c.items()  # appending changes no existing number


def test_two_names_for_one_constant_are_refused():
    """Enum Tier's value MVE and table Tier's field mve would both be EM_TIER_MVE."""
    tier = SchemaEnum("Tier", (("MVE", 2),), False, ())
    assert "EM_TIER_MVE = 2" in header_text(Schema((tier,), (SchemaTable("Board", (("mve", 0),)),), "EMBR"))
    with pytest.raises(SchemaHeaderError, match="EM_TIER_MVE"):
        header_text(Schema((tier,), (SchemaTable("Tier", (("mve", 0),)),), "EMBR"))


def test_an_adapter_reading_a_renamed_field_no_longer_compiles(tmp_path):
    """The adapters take their slots from the generated header: rename a field in the schema and
    the conv adapter fails to build, naming the constant that is gone."""
    adapter = REPO / "runtime" / "ops" / "em_op_conv_options.c"  # conv2d's and depthwise's options
    cc = os.environ.get("CC", "cc")
    flags = ["-std=c11", "-Wall", "-Werror", "-fsyntax-only"]
    schema_free = [f for f in INCLUDES if f != f"-I{schema_include_dir()}"]
    ok = subprocess.run([cc, *flags, *INCLUDES, str(adapter)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    renamed = _changed_schema(tmp_path, ("  stride_h: int = 1;\n  stride_w: int = 1;\n  dilation_h",
                                         "  step_h: int = 1;\n  stride_w: int = 1;\n  dilation_h"))
    write_header(tmp_path / "include" / "em_schema.h", renamed)
    stale = subprocess.run([cc, *flags, *schema_free, f"-I{tmp_path / 'include'}", str(adapter)],
                           capture_output=True, text=True)
    assert stale.returncode != 0 and "EM_CONV_2D_OPTIONS_STRIDE_H" in stale.stderr


def test_no_runtime_source_retypes_a_schema_constant():
    """The generated names are defined nowhere else in runtime/, tools/ or apps/."""
    names = set(_constants(HEADER.read_text())) | {"EM_SCHEMA_FILE_IDENTIFIER"}
    defining = re.compile(r"\b(EM_[A-Z0-9_]+)\s*=\s*-?\d|#\s*define\s+(EM_[A-Z0-9_]+)")
    found = []
    for source in sorted([*REPO.glob("runtime/**/*.[ch]"), *REPO.glob("tools/**/*.[ch]"), *REPO.glob("apps/**/*.[ch]")]):
        for match in defining.finditer(source.read_text()):
            name = match.group(1) or match.group(2)
            if name in names:
                found.append(f"{source.relative_to(REPO)}: {name}")
    assert not found, found
