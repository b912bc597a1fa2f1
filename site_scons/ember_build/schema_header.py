"""The runtime's schema constants, generated from compiler/schema/program.fbs: `em_schema.h`.

flatc (the pinned `flatc` package) parses the schema and writes its binary reflection form
(`flatc -b --schema`: a .bfbs, itself a FlatBuffer of FlatBuffers' reflection.fbs); this module
reads that with the `flatbuffers` library and writes, for the C runtime:

- each enum as `enum em_<prefix> { EM_<PREFIX>_<VALUE> = n, … }`, the prefix its name in
  UPPER_SNAKE unless C_PREFIXES says otherwise: OpCode → EM_OP_CONV_2D, Tier → EM_TIER_MVE,
  DType → EM_DTYPE_INT8, FloatUnaryFunction → EM_FLOAT_UNARY_FUNCTION_GELU;
- the union OpOptions as its tags, each member's name less the prefix's word:
  EM_OPTIONS_NONE, EM_OPTIONS_CONV_2D (Conv2DOptions), EM_OPTIONS_MIN_MAX (MinMaxOptions) …;
- each table's field slots, the numbers em_fb.h's readers take (the field's id; its vtable entry
  is at 4 + 2·id): EM_<TABLE>_<FIELD>, e.g. EM_CONV_2D_OPTIONS_STRIDE_H, EM_PROGRAM_TENSORS; a
  union field has two, EM_OPERATOR_OPTIONS_TYPE and EM_OPERATOR_OPTIONS;
- the file identifier, EM_SCHEMA_FILE_IDENTIFIER ("EMBR").

The build writes it once per build folder (site_scons/site_tools/ember.py, `SchemaHeader`), the
tests' own builds into a folder of their own (tests/runtime/build_host.py): never committed, so
no C constant can drift from the schema.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from flatbuffers import encode, number_types
from flatbuffers.table import Table

REPO = Path(__file__).resolve().parents[2]
SCHEMA = REPO / "compiler" / "schema" / "program.fbs"
HEADER_NAME = "em_schema.h"

# The C prefix of an enum or union whose name in UPPER_SNAKE is not it.
C_PREFIXES = {"OpCode": "OP", "OpOptions": "OPTIONS", "DType": "DTYPE"}

# reflection.fbs, FlatBuffers' schema of schemas (append-only like every schema): the vtable
# offsets of the fields read here, named as flatc's include/flatbuffers/reflection_generated.h
# names them (Schema::VT_OBJECTS …).
_SCHEMA_OBJECTS, _SCHEMA_ENUMS, _SCHEMA_FILE_IDENT = 4, 6, 8
_OBJECT_NAME, _OBJECT_FIELDS, _OBJECT_IS_STRUCT = 4, 6, 8
_FIELD_NAME, _FIELD_ID = 4, 8
_ENUM_NAME, _ENUM_VALUES, _ENUM_IS_UNION, _ENUM_DOCUMENTATION = 4, 6, 8, 14
_ENUMVAL_NAME, _ENUMVAL_VALUE = 4, 6


class SchemaHeaderError(RuntimeError):
    """flatc is missing or refused the schema, or two schema names give one C name."""


@dataclass(frozen=True)
class SchemaEnum:
    name: str                           # without the namespace: "OpCode"
    values: tuple[tuple[str, int], ...]  # in value order
    is_union: bool
    doc: tuple[str, ...]


@dataclass(frozen=True)
class SchemaTable:
    name: str
    fields: tuple[tuple[str, int], ...]  # (name, id) in id order


@dataclass(frozen=True)
class Schema:
    enums: tuple[SchemaEnum, ...]
    tables: tuple[SchemaTable, ...]
    file_ident: str


def flatc_path() -> Path:
    """The pinned flatc: beside this Python (the project's .venv), else on PATH."""
    beside = Path(sys.executable).with_name("flatc")
    found = beside if beside.is_file() else shutil.which("flatc")
    if not found:
        raise SchemaHeaderError(f"flatc not found beside {sys.executable} nor on PATH: run ./scons once "
                                "(it installs requirements.txt's flatc into .venv)")
    return Path(found)


def binary_schema(fbs: Path = SCHEMA) -> bytes:
    """flatc's binary schema (.bfbs) of `fbs`, with its doc comments."""
    with tempfile.TemporaryDirectory(prefix="ember_bfbs_") as out:
        run = subprocess.run([str(flatc_path()), "-b", "--schema", "--bfbs-comments", "-o", out, str(fbs)],
                             capture_output=True, text=True)
        if run.returncode != 0:
            raise SchemaHeaderError(f"flatc refused {fbs}:\n{run.stdout}{run.stderr}")
        return (Path(out) / fbs.with_suffix(".bfbs").name).read_bytes()


class _Reader:
    """Fields of reflection tables by vtable offset, through flatbuffers.table.Table."""

    def __init__(self, data: bytes) -> None:
        self.buf = bytearray(data)

    def root(self) -> Table:
        return Table(self.buf, encode.Get(number_types.UOffsetTFlags.packer_type, self.buf, 0))

    def tables(self, t: Table, vt: int) -> list[Table]:
        o = t.Offset(vt)
        if not o:
            return []
        start = t.Vector(o)
        return [Table(self.buf, t.Indirect(start + 4 * i)) for i in range(t.VectorLen(o))]

    @staticmethod
    def string(t: Table, vt: int) -> str:
        o = t.Offset(vt)
        return t.String(o + t.Pos).decode() if o else ""

    def strings(self, t: Table, vt: int) -> tuple[str, ...]:
        o = t.Offset(vt)
        if not o:
            return ()
        start = t.Vector(o)
        return tuple(t.String(start + 4 * i).decode() for i in range(t.VectorLen(o)))

    @staticmethod
    def scalar(t: Table, vt: int, flags, default):
        o = t.Offset(vt)
        return t.Get(flags, o + t.Pos) if o else default


def read_schema(fbs: Path = SCHEMA) -> Schema:
    """The enums, unions and tables of `fbs` as flatc parsed them."""
    r = _Reader(binary_schema(fbs))
    root = r.root()

    def short(name: str) -> str:
        return name.rsplit(".", 1)[-1]  # "ember.OpCode" -> "OpCode"

    enums = []
    for e in r.tables(root, _SCHEMA_ENUMS):
        values = sorted(((r.string(v, _ENUMVAL_NAME), r.scalar(v, _ENUMVAL_VALUE, number_types.Int64Flags, 0))
                         for v in r.tables(e, _ENUM_VALUES)), key=lambda nv: nv[1])
        enums.append(SchemaEnum(short(r.string(e, _ENUM_NAME)), tuple((short(n), v) for n, v in values),
                                bool(r.scalar(e, _ENUM_IS_UNION, number_types.BoolFlags, False)),
                                r.strings(e, _ENUM_DOCUMENTATION)))
    tables = []
    for o in r.tables(root, _SCHEMA_OBJECTS):
        if r.scalar(o, _OBJECT_IS_STRUCT, number_types.BoolFlags, False):
            raise SchemaHeaderError(f"{fbs}: {r.string(o, _OBJECT_NAME)} is a struct; the schema holds tables only")
        fields = sorted(((r.string(f, _FIELD_NAME), r.scalar(f, _FIELD_ID, number_types.Uint16Flags, 0))
                         for f in r.tables(o, _OBJECT_FIELDS)), key=lambda nf: nf[1])
        tables.append(SchemaTable(short(r.string(o, _OBJECT_NAME)), tuple(fields)))
    return Schema(tuple(enums), tuple(tables), r.string(root, _SCHEMA_FILE_IDENT))


def upper_snake(name: str) -> str:
    """FullyConnectedOptions → FULLY_CONNECTED_OPTIONS, Conv2DOptions → CONV_2D_OPTIONS."""
    return re.sub(r"(?<=[a-z])(?=[A-Z0-9])|(?<=[0-9A-Z])(?=[A-Z][a-z])", "_", name).upper()


def c_prefix(name: str) -> str:
    return C_PREFIXES.get(name, upper_snake(name))


def enum_constants(e: SchemaEnum) -> list[tuple[str, int]]:
    """EM_<PREFIX>_<VALUE> of each value; a union's members lose the prefix's word as a suffix
    (EM_OPTIONS_CONV_2D for Conv2DOptions)."""
    prefix = c_prefix(e.name)
    if not e.is_union:
        return [(f"EM_{prefix}_{name}", value) for name, value in e.values]
    return [(f"EM_{prefix}_{upper_snake(name).removesuffix('_' + prefix)}", value) for name, value in e.values]


def slot_constants(t: SchemaTable) -> list[tuple[str, int]]:
    return [(f"EM_{upper_snake(t.name)}_{name.upper()}", slot) for name, slot in t.fields]


def _comment(doc: tuple[str, ...], indent: str = "") -> list[str]:
    if not doc:
        return []
    lines = [line.strip().replace("*/", "* /") for line in doc]
    return [f"{indent}/**", *(f"{indent} *{' ' if line else ''}{line}" for line in lines), f"{indent} */"]


def _enum_block(head: str, constants: list[tuple[str, int]]) -> list[str]:
    if not constants:
        return []
    body = [f"    {name} = {value}," for name, value in constants]
    body[-1] = body[-1].rstrip(",")
    return [f"{head} {{", *body, "};"]


def header_text(schema: Schema, source: str = "compiler/schema/program.fbs") -> str:
    """em_schema.h for `schema`; raises SchemaHeaderError when two names give one constant."""
    lines = [
        "/**",
        f" * @file {HEADER_NAME}",
        f" * @brief Constants of the program schema, generated from {source} by",
        " *        site_scons/ember_build/schema_header.py at build time. Do not edit: change the schema.",
        " *",
        " * Enums: EM_<ENUM>_<VALUE>. Union tags: EM_OPTIONS_<MEMBER> (Operator.options_type).",
        " * Field slots, in declaration order (the number em_fb.h's readers take; a union field takes",
        " * two, <name>_type then <name>): EM_<TABLE>_<FIELD>.",
        " */",
        "#ifndef EM_SCHEMA_H",
        "#define EM_SCHEMA_H",
        "",
        "/** The file identifier, bytes 4..7 of every program. */",
        f'#define EM_SCHEMA_FILE_IDENTIFIER "{schema.file_ident}"',
        "",
    ]
    seen: dict[str, str] = {}

    def claim(constants: list[tuple[str, int]], owner: str) -> list[tuple[str, int]]:
        for name, _ in constants:
            if name in seen:
                raise SchemaHeaderError(f"{source}: {owner} and {seen[name]} both give the C constant {name}; "
                                        f"rename one, or give one a prefix in C_PREFIXES ({__file__})")
            seen[name] = owner
        return constants

    for e in schema.enums:
        constants = claim(enum_constants(e), e.name)
        kind = "union" if e.is_union else "enum"
        lines += _comment(e.doc or (f"The schema's {kind} {e.name}.",))
        lines += _enum_block(f"enum em_{c_prefix(e.name).lower()}", constants) + [""]
    for t in schema.tables:
        constants = claim(slot_constants(t), t.name)
        lines += _comment((f"Field slots of table {t.name}.",))
        lines += _enum_block("enum", constants) + [""] if constants else ["/* (no fields) */", ""]
    lines += ["#endif /* EM_SCHEMA_H */", ""]
    return "\n".join(lines)


def write_header(out: Path, fbs: Path = SCHEMA) -> Path:
    """Writes em_schema.h for `fbs` to `out` (only when its text changes: an unchanged schema
    leaves the file, and so every object that includes it, as it was)."""
    out = Path(out)
    text = header_text(read_schema(fbs), fbs.relative_to(REPO).as_posix() if fbs.is_relative_to(REPO) else str(fbs))
    if not out.is_file() or out.read_text() != text:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(out.name + ".tmp")
        tmp.write_text(text)
        tmp.replace(out)
    return out
