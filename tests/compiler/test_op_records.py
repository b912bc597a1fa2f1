"""The operator table (compiler/ops/): one record per op, and the views built from it.

Each check guards what the generic code assumes of the records: a duplicate would make one
record silently win over another."""
from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from compiler import importer, kernel_variants, quantizer
from compiler.ops import OP_TABLE, OPCODES
from compiler.ops.spec import OpSpec
from compiler.passes.lower_float_ops import FLOAT_LOWERINGS
from compiler.schema import program_generated as fb

REPO = Path(__file__).resolve().parents[2]


def _schema_names(enum: type) -> dict[int, str]:
    return {value: name for name, value in vars(enum).items() if not name.startswith("_")}


def test_every_schema_opcode_has_one_record_and_every_record_an_opcode():
    assert set(OPCODES) == set(_schema_names(fb.OpCode))
    assert list(OP_TABLE.values()) == sorted(OP_TABLE.values(), key=lambda spec: spec.opcode)


def test_every_record_options_type_is_a_schema_options_table():
    names = _schema_names(fb.OpOptions)
    for spec in OP_TABLE.values():
        assert spec.options_type in names and names[spec.options_type] != "NONE", spec.kind


def test_an_aten_op_is_imported_by_one_record():
    targets = Counter(target for i in importer.IMPORTS for target in i.targets)
    assert [t for t, n in targets.items() if n > 1] == []
    assert not set(importer.IMPORTERS) & set(importer.FLOAT_IMPORTERS)


def test_an_imported_kind_is_lowered_by_one_lowering():
    lowered = Counter(kind for spec in OP_TABLE.values() for lowering in spec.lowerings for kind in lowering.imported)
    assert [k for k, n in lowered.items() if n > 1] == []
    floats = Counter(kind for spec in OP_TABLE.values() for kind in spec.float_lowerings)
    assert [k for k, n in floats.items() if n > 1] == [] and set(floats) <= set(FLOAT_LOWERINGS)


def test_a_lowering_is_declared_once_even_when_it_makes_several_ops():
    lowerings = [lowering for spec in OP_TABLE.values() for lowering in spec.lowerings]
    assert len({id(lowering.lower) for lowering in lowerings}) == len(lowerings)


def test_the_quantizer_annotates_by_the_records_schemes():
    schemes = {i.scheme for i in importer.IMPORTS} - {None}
    assert schemes == {"weighted", "binary", "shared", "softmax", "own_scale", "shared_inputs", "matmul",
                       "concatenation", "recurrent"}
    assert all(i.scheme is None for i in importer.IMPORTS if i.activation or i.float_only)
    assert quantizer.FUSABLE_ACTIVATIONS and quantizer.FUSABLE_ACTIVATIONS <= set(importer.IMPORTERS)


def test_selectable_variants_are_unique_and_come_with_their_rule():
    assert len(set(kernel_variants.SELECTABLE_VARIANTS)) == len(kernel_variants.SELECTABLE_VARIANTS)
    header = (REPO / "runtime" / "kernels" / "include" / "em_nn_variants.h").read_text()
    for name in kernel_variants.SELECTABLE_VARIANTS:
        assert f"EM_NN_VARIANT_{name}" in header, name


def _kind_comparisons(path: Path) -> set[str]:
    """String constants compared with an `.kind` attribute (`op.kind == "pad"`, `x.kind in (…)`)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Compare) and any(isinstance(side, ast.Attribute) and side.attr == "kind"
                                                 for side in [node.left, *node.comparators]):
            found |= {c.value for c in ast.walk(node) if isinstance(c, ast.Constant) and isinstance(c.value, str)}
    return found


# The generic modules that still test for an op kind, and why.
KIND_TESTS_ALLOWED = {
    # the program's boundary ops: PT2E's quantize / dequantize pairs, handled before and after
    # every op's lowering
    "passes/fold_quantize_pairs.py": {"quantize", "dequantize"},
    "passes/lower_boundaries.py": {"quantize", "dequantize"},
    "passes/bind_state.py": {"quantize", "dequantize"},  # the state's input and output at the boundaries
    "quantized_pattern.py": {"dequantize", "quantize"},
    "importer.py": {"dequantize"},  # per-channel dequantize parameters become attrs
}


def test_no_generic_module_tests_for_an_ember_op_kind_but_the_boundaries():
    for path in sorted((REPO / "compiler").rglob("*.py")):
        relative = path.relative_to(REPO / "compiler").as_posix()
        if relative.startswith(("ops/", "schema/")):
            continue
        named = _kind_comparisons(path) & set(OP_TABLE)
        assert named <= KIND_TESTS_ALLOWED.get(relative, set()), f"{relative} tests for {sorted(named)}"


def test_records_are_compared_by_identity():
    spec = OP_TABLE["add"]
    assert isinstance(spec, OpSpec) and len({spec, OP_TABLE["add"], OP_TABLE["mul"]}) == 2
