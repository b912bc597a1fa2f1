"""One firmware, several programs (compiler.program.emit_programs_c): one array per program under
its own symbol, the registry of the union of their ops (opcode order, each once) and the variants
header of the union of their kernel variants."""
from __future__ import annotations

import re

import pytest
import torch
from torch import nn

import compiler
from compiler import kernel_variants as kv
from compiler.ops import OP_TABLE
from compiler.program import Program, ProgramSetError, emit_programs_c
from tests.compiler.models import calibration, mlp


def _cnn(channels: int, stride: int, pool: type[nn.Module], seed: int) -> nn.Module:
    """conv 3×3 → ReLU → depthwise 3×3 (stride) → ReLU → global pool → linear: conv, depthwise
    and pool kernel variants chosen by the channels and the stride."""
    torch.manual_seed(seed)
    size = 12 // stride
    return nn.Sequential(nn.Conv2d(3, channels, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(channels, channels, 3, stride=stride, padding=1, groups=channels), nn.ReLU(),
                         pool(size), nn.Flatten(), nn.Linear(channels, 4)).eval()


def _images(seed: int) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    return [torch.rand(4, 3, 12, 12, generator=generator) for _ in range(8)]


@pytest.fixture(scope="module")
def programs() -> dict[str, Program]:
    return {
        "wide": compiler.lower(_cnn(32, 1, nn.AvgPool2d, 0), (torch.zeros(1, 3, 12, 12),), _images(1), target="cortex-m55"),
        "narrow": compiler.lower(_cnn(8, 2, nn.MaxPool2d, 2), (torch.zeros(1, 3, 12, 12),), _images(3), target="cortex-m55"),
        "mlp": compiler.lower(mlp([12, 9, 5]), (torch.zeros(1, 12),), calibration(12), target="cortex-m55"),
    }


def _registry_symbols(text: str) -> list[str]:
    return re.findall(r"^    &(\w+),$", text, re.M)


def test_the_registry_is_the_union_of_the_programs_ops_in_opcode_order(programs, tmp_path):
    paths = {p.name: p.read_text() for p in emit_programs_c(programs, tmp_path)}
    union = {spec for p in programs.values() for spec in p.selected_ops}
    expected = [s.registration for s in sorted(union, key=lambda s: s.opcode)]
    assert _registry_symbols(paths["em_registry.c"]) == expected
    assert f"em_registry_count = {len(expected)};" in paths["em_registry.c"]
    # each program alone lacks some op of the union (wide: max pool, narrow: average pool)
    assert all({s.registration for s in p.selected_ops} < set(expected) for p in programs.values())
    assert "em_op_add" not in paths["em_registry.c"] and OP_TABLE["add"].registration == "em_op_add"


def test_the_variants_header_turns_on_the_union_of_the_programs_variants(programs, tmp_path):
    emit_programs_c(programs, tmp_path)
    header = (tmp_path / "em_nn_variants_selected.h").read_text()
    each = {name: kv.linked_variants(p.graph, "mve") for name, p in programs.items()}
    union = set().union(*each.values())
    assert each["wide"] - each["narrow"] and each["narrow"] - each["wide"]  # neither holds the other's
    for name in kv.SELECTABLE_VARIANTS:
        assert f"#define EM_NN_VARIANT_{name} {int(name in union)}\n" in header


def test_every_program_gets_its_own_array_and_size(programs, tmp_path):
    emit_programs_c(programs, tmp_path, symbol="em_model_program")
    source = (tmp_path / "em_model_program.c").read_text()
    header = (tmp_path / "em_model_program.h").read_text()
    assert "#define EM_MODEL_PROGRAMS 3u\n" in header
    for name, program in programs.items():
        data = program.to_bytes()
        symbol = f"em_model_program_{name}"
        assert f"const uint8_t {symbol}[{len(data)}] = {{" in source
        assert f"const size_t {symbol}_size = {len(data)};" in source
        assert f"extern const uint8_t {symbol}[];" in header
        body = source.split(f"{symbol}[{len(data)}] = {{", 1)[1].split("};", 1)[0]
        assert bytes(int(b, 16) for b in re.findall(r"0x([0-9a-f]{2})", body)) == data
    assert source.count('__attribute__((aligned(16), section(".em_program")))') == 3


def test_bad_program_sets_are_named_errors(programs, tmp_path):
    with pytest.raises(ProgramSetError, match="at least one"):
        emit_programs_c({}, tmp_path)
    with pytest.raises(ProgramSetError, match="not C identifiers"):
        emit_programs_c({"my-model": programs["mlp"]}, tmp_path)
    other = Program(programs["mlp"].graph, compiler.target.Target("cortex-m4", "dsp"), "m4")
    with pytest.raises(ProgramSetError, match="different targets"):
        emit_programs_c({"mlp": programs["mlp"], "m4": other}, tmp_path)
