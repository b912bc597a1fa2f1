"""Checks a settings file (bsp/<board>/board.yaml, apps/<app>/app.yaml) against a JSON Schema and
says what is wrong in one line naming the file, the line and the key:

    apps/kws/app.yaml:6: int8_i0: unknown key (did you mean 'int8_io'?)
    bsp/x/board.yaml:24: stack_bytes: expected an integer > 0 and a multiple of 8, or null, got "abc"
    bsp/x/board.yaml:36: memory.isram.access: expected one of r, rw, rx, rwx, got "w"

`read_settings` parses the file (a YAML syntax error or a key given twice is such a line too) and
keeps the line of every key from PyYAML's composed nodes; `SettingsFile.check` runs jsonschema
(types, allowed keys, ranges) and reports the first problem in the file; `SettingsFile.problem`
words the checks a schema cannot express (a region that overlaps another, a file that does not
exist) the same way. Keys are written as dotted paths; an item of a list of mappings with a
`name` is named by it (memory.itcm.access), any other item by its index (cflags[2]).
"""
from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import jsonschema
import yaml

from ember_build.paths import shown_path



def _strict_integer(checker, instance) -> bool:
    """YAML's integers only: not true/false (bool is an int in Python), not 4.0."""
    return isinstance(instance, int) and not isinstance(instance, bool)


Validator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", _strict_integer))


def shown_value(value: Any) -> str:
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


@dataclass
class SettingsFile:
    """One parsed settings file: its data and the line (1-based) of each key, by dotted key."""

    path: Path
    data: Any
    lines: dict[str, int] = field(default_factory=dict)
    first_line: int | None = None  # of the top-level mapping: where a missing key is reported

    def line(self, key: str) -> int | None:
        """The line of `key`, else of the nearest enclosing key that has one."""
        while key:
            if key in self.lines:
                return self.lines[key]
            cut = max(key.rfind("."), key.rfind("["))
            key = key[:cut] if cut > 0 else ""
        return self.first_line

    def problem(self, key: str, text: str) -> str:
        """`<file>:<line>: <key>: <text>` (no line when the data came from no file)."""
        line = self.line(key)
        return f"{shown_path(self.path)}{f':{line}' if line else ''}: {key}: {text}"

    def check(self, schema: dict, error: type[Exception], data: Any = None, prefix: tuple = ()) -> None:
        """Raises `error` with the first problem (by line) of `data` (default: the whole file)
        against `schema`; `prefix` is where `data` sits in the file."""
        data = self.data if data is None else data
        found = sorted(self._problems(schema, data, prefix), key=lambda p: (p[0] or 0, p[1]))
        if found:
            raise error(found[0][2])

    def _problems(self, schema: dict, data: Any, prefix: tuple) -> Iterator[tuple[int | None, str, str]]:
        for e in Validator(schema).iter_errors(data):
            parts = (*prefix, *e.absolute_path)
            key = dotted(parts, self.data)
            if e.validator == "additionalProperties" and e.validator_value is False:
                known = list(e.schema.get("properties", {}))
                for extra in (k for k in e.instance if k not in known):
                    name = dotted((*parts, extra), self.data)
                    close = difflib.get_close_matches(str(extra), known, n=1)
                    hint = f"did you mean '{close[0]}'?" if close else f"known keys: {', '.join(known)}"
                    yield self.line(name), name, self.problem(name, f"unknown key ({hint})")
            elif e.validator == "required":
                for missing in (k for k in e.validator_value if k not in e.instance):
                    name = dotted((*parts, missing), self.data)
                    yield self.line(key) if parts else self.first_line, name, self.problem(name, "missing (a required key)")
            elif e.validator in ("type", "enum", "minimum", "exclusiveMinimum", "maximum", "multipleOf", "minLength"):
                yield self.line(key), key, self.problem(key, f"expected {describe(e.schema)}, got {shown_value(e.instance)}")
            elif e.validator == "minItems":
                yield self.line(key), key, self.problem(key, f"expected at least {e.validator_value} item(s), got none")
            elif e.validator == "minProperties":
                yield self.line(key), key, self.problem(key, f"expected at least {e.validator_value} entry, got none")
            else:
                yield self.line(key), key, self.problem(key, e.message)


def dotted(parts: tuple, data: Any) -> str:
    """(memory, 0, access) -> "memory.itcm.access" (the item's name) or "cflags[2]" (no name)."""
    text = ""
    for part in parts:
        if isinstance(part, int) and isinstance(data, list):
            item = data[part] if 0 <= part < len(data) else None
            name = item.get("name") if isinstance(item, dict) else None
            text += f".{name}" if isinstance(name, str) and name else f"[{part}]"
            data = item
        else:
            text += f".{part}" if text else str(part)
            data = data.get(part) if isinstance(data, dict) else None
    return text


NOUNS = {"integer": "an integer", "number": "a number", "string": "a string", "boolean": "true or false",
         "array": "a list", "object": "a mapping"}


def describe(schema: dict) -> str:
    """What a schema takes, in words: "an integer > 0 and a multiple of 8, or null"."""
    if "enum" in schema:
        return "one of " + ", ".join(str(v) for v in schema["enum"])
    types = schema.get("type", [])
    types = [types] if isinstance(types, str) else list(types)
    words = []
    for kind in (t for t in types if t != "null"):
        word = NOUNS[kind]
        if kind in ("integer", "number"):
            bounds = [f"{op} {schema[k]}" for k, op in (("minimum", ">="), ("exclusiveMinimum", ">"), ("maximum", "<="))
                      if k in schema]
            word += "".join(f" {b}" for b in bounds[:1]) + "".join(f" and {b}" for b in bounds[1:])
            if "multipleOf" in schema:
                word += f"{' and' if bounds else ','} a multiple of {schema['multipleOf']}"
        elif kind == "string" and schema.get("minLength"):
            word = "a non-empty string"
        elif kind == "array" and schema.get("items", {}).get("type") == "string":
            word = "a non-empty list of strings" if schema.get("minItems") else "a list of strings"
        words.append(word)
    text = " or ".join(words)
    if "null" in types:
        text += ", or null" if " and " in text or "," in text else " or null"
    return text


def read_settings(path: Path, error: type[Exception]) -> SettingsFile:
    """Parses `path`, a YAML mapping, keeping each key's line; raises `error` for a syntax error,
    a key given twice or a top level that is no mapping."""
    where = shown_path(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise error(f"{where}: not UTF-8 text (byte {e.start}): save it as UTF-8") from None
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        lines: dict[str, int] = {}
        if node is not None:
            _walk(node, (), lines, lambda line, key, text: error(f"{where}:{line}: {key}: {text}"))
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        context = f" ({e.context} at line {e.context_mark.line + 1})" if e.context and e.context_mark else ""
        raise error(f"{where}:{mark.line + 1 if mark else 1}: not valid YAML: {e.problem}{context}") from None
    except yaml.YAMLError as e:
        raise error(f"{where}: not valid YAML: {e}") from None
    finally:
        loader.dispose()
    if not isinstance(data, dict):
        raise error(f"{where}:1: expected a mapping of keys at the top level, got {shown_value(data)}")
    settings = SettingsFile(Path(path), data, first_line=node.start_mark.line + 1)
    # keys by their dotted names, which need the data (a list item is named by its `name`)
    settings.lines = {dotted(parts, data): line for parts, line in lines.items()}
    return settings


def _walk(node: yaml.Node, parts: tuple, lines: dict, error) -> None:
    """Records the line of each key (by its path of keys and indices) under `node`; a key given
    twice in one mapping is an error (PyYAML would keep the last silently)."""
    if isinstance(node, yaml.MappingNode):
        seen: dict[str, int] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                continue
            key, line = key_node.value, key_node.start_mark.line + 1
            if key in seen and key != "<<":
                raise error(line, dotted((*parts, key), None), f"given twice (first at line {seen[key]})")
            seen[key] = line
            lines[(*parts, key)] = line
            _walk(value_node, (*parts, key), lines, error)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            lines[(*parts, index)] = item.start_mark.line + 1
            _walk(item, (*parts, index), lines, error)
