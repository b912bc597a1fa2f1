"""person_detect model=cascade: two programs in one firmware (the visual wake words gate on every
frame, µYOLO on the frames the gate calls person) on corstone300. One build, one QEMU run: the
device matches the reference inference by inference, and the ELF links the union of the two
programs' ops and kernel variants, and nothing else of the registry or the selectable variants.
(Here µYOLO's ops and variants are a subset of the gate's: softmax, average pooling and the
depthwise fast path's staged rows come from the gate alone.)"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

from compiler import kernel_variants as kv
from compiler.ops import OP_TABLE
from compiler.program import Program
from ember_build.paths import BUILD_ROOT

pytestmark = pytest.mark.qemu  # builds Arm firmware / runs it in QEMU (tests/tiers.py)

REPO = Path(__file__).resolve().parents[2]
OUT = BUILD_ROOT / "corstone300" / "person_detect-cascade"
# The selectable variants that are functions of their own (the others are inlined into their
# kernel's dispatch: their header switch is checked instead).
VARIANT_FUNCTIONS = {
    "DW_MVE_FULL_KW3": "em_nn_dw_block_full_kw3", "DW_MVE_FULL": "em_nn_dw_block_full",
    "DW_MVE_TAIL": "em_nn_dw_block_tail", "DW_MVE_STRIDED": "em_nn_dw_block_strided",
    "DWF_MVE_PIXEL": "em_nn_dwf_pixel",
    "DWF_MVE_PIXEL_LEFT": "em_nn_dwf_pixel_left", "DWF_MVE_BLOCK4": "em_nn_dwf_block4_3x3_unit",
    "CONV_MVE_PACK": "em_nn_conv_pack_mve", "CONV_MVE_TAPS": "em_nn_conv_taps_mve",
    "DWF_MVE_ROWS": "em_nn_dwf_copy",  # the staged rows' noinline copy, called by them alone
}


assert VARIANT_FUNCTIONS.keys() <= set(kv.SELECTABLE_VARIANTS)


def _symbols(path: Path) -> dict[str, tuple[str, int]]:
    """name → (type, size) of every symbol of the ELF's .symtab."""
    with open(path, "rb") as f:
        symtab = ELFFile(f).get_section_by_name(".symtab")
        assert isinstance(symtab, SymbolTableSection)
        return {s.name: (s["st_info"]["type"], s["st_size"]) for s in symtab.iter_symbols() if s.name}


@pytest.fixture(scope="module")
def cascade() -> tuple[Path, str]:
    scons = Path(sys.executable).with_name("scons")
    run = subprocess.run([str(scons), "app=person_detect", "model=cascade", "board=corstone300", "run=1"],
                         cwd=REPO, capture_output=True, text=True, timeout=1800)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return OUT, run.stdout


@pytest.fixture(scope="module")
def programs(cascade) -> dict[str, Program]:
    return {name: Program.load(cascade[0] / "gen" / f"program-{name}.embr") for name in ("vww", "yolo")}


def test_the_cascade_matches_the_reference_inference_by_inference(cascade):
    out, stdout = cascade
    report = json.loads((out / "report.json").read_text())
    expected = np.load(out / "gen" / "expected.npz")
    frames = [str(line) for line in expected["lines"] if str(line).startswith("EM frame ")]
    persons = sum(" person=1" in line for line in frames)
    assert len(frames) == 4 and 0 < persons < 4  # both paths: the gate stops a frame, and lets others through
    assert report["match"] is True and report["mismatched_vectors"] == [] and report["missing_lines"] == []
    assert report["vectors"] == 4 + persons == len(report["counts_per_inference"])
    assert list(expected["output_sizes"]).count(2) == 4 and list(expected["output_sizes"]).count(245) == persons
    assert [line for line in stdout.splitlines() if line.startswith("EM frame ")] == frames


def test_the_elf_links_the_union_of_the_programs_ops_only(cascade, programs):
    symbols = _symbols(cascade[0] / "firmware.elf")
    union = {spec.registration for p in programs.values() for spec in p.selected_ops}
    linked = {spec.registration for spec in OP_TABLE.values() if spec.registration in symbols}
    assert linked == union
    assert {"em_op_softmax", "em_op_avg_pool2d"} <= union - {s.registration for s in programs["yolo"].selected_ops}
    assert "em_op_add" not in symbols and "em_op_max_pool2d" not in symbols  # neither program has them
    evals = {name for name, (kind, _) in symbols.items() if kind == "STT_FUNC" and name.endswith("_eval")}
    assert evals == {"em_fc_eval", "em_conv2d_eval", "em_dw_eval", "em_avg_pool_eval", "em_softmax_eval"}
    assert len(evals) == len(union)


def test_the_elf_links_the_union_of_the_programs_kernel_variants_only(cascade, programs):
    out = cascade[0]
    each = {name: kv.linked_variants(p.graph, p.target.tier) for name, p in programs.items()}
    union = set().union(*each.values())
    # µYOLO adds variants the gate's own build leaves out (its FC head, its widest depthwise rows)
    assert {"FC_MVE_ROWS4", "DWF_MVE_TAPS"} <= union - each["vww"]
    header = (out / "gen" / "em_nn_variants_selected.h").read_text()
    for name in kv.SELECTABLE_VARIANTS:
        assert f"#define EM_NN_VARIANT_{name} {int(name in union)}\n" in header
    symbols = _symbols(out / "firmware.elf")
    linked = {variant for variant, function in VARIANT_FUNCTIONS.items() if function in symbols}
    assert linked == union & VARIANT_FUNCTIONS.keys()


def test_each_program_has_its_array_and_they_share_the_arena(cascade, programs):
    out = cascade[0]
    symbols = _symbols(out / "firmware.elf")
    for name, program in programs.items():
        assert symbols[f"em_model_program_{name}"] == ("STT_OBJECT", len(program.to_bytes()))
    assert "em_model_program" not in symbols
    largest = max(p.arena_bytes["dtcm"] for p in programs.values())
    assert json.loads((out / "report.json").read_text())["arena_bytes"] == {"dtcm": largest}
    assert symbols["app_arenas_0"] == ("STT_OBJECT", largest)  # one arena, not one per program


def test_the_gates_downscale_takes_the_pixel_under_each_centre():
    from apps.person_detect.model import gate_input, gate_rows

    assert list(gate_rows(128, 96)[:5]) == [0, 2, 3, 4, 6] and gate_rows(128, 96)[-1] == 127
    assert list(gate_rows(96, 96)) == list(range(96))  # same size: the identity
    frame = np.arange(1 * 8 * 8 * 3, dtype=np.int64).reshape(1, 8, 8, 3).astype(np.int8)
    small = gate_input(frame, 6)  # rows and columns (2i + 1) · 8 // 12 = 0, 2, 3, 4, 6, 7
    assert small.shape == (1, 6, 6, 3) and small.flags.c_contiguous
    assert np.array_equal(small[0, 1, 4], frame[0, 2, 6])


def test_the_cascade_needs_one_input_quantization(programs):
    import copy

    from apps.person_detect.model import CascadeError, cascade

    assert cascade._sides(programs) == (128, 96)
    other = copy.deepcopy(programs)
    graph = other["vww"].graph
    graph.tensors[graph.inputs[0]].quant.zero_point[0] = 0
    with pytest.raises(CascadeError, match="differ"):
        cascade.firmware_header(other)


def test_app_yaml_names_the_programs_and_bad_ones_are_named_errors(tmp_path, monkeypatch):
    from ember_build import app_build
    from ember_build.app_build import AppError, load_app

    app = load_app("person_detect", "cascade")
    assert (app.programs, app.firmware, app.variant) == (("vww", "yolo"), ("yolo",), "cascade")
    assert load_app("person_detect", "yolo").programs == ()
    (tmp_path / "two").mkdir()
    (tmp_path / "two" / "app.yaml").write_text(
        "name: two\nvariants:\n  a: {model: m, test_vectors: 1}\n"
        "  both: {model: m, test_vectors: 1, programs: [a, b]}\n"
        "  nested: {model: m, test_vectors: 1, programs: [a, both]}\n"
        "  folders: {model: m, test_vectors: 1, firmware: [gone]}\n")
    monkeypatch.setattr(app_build, "APPS", tmp_path)
    with pytest.raises(AppError, match=r"\['b'\] are not one-program variants of the app \(choices: a, folders\)"):
        load_app("two", "both")
    with pytest.raises(AppError, match=r"\['both'\] are not one-program variants"):
        load_app("two", "nested")
    with pytest.raises(AppError, match=r"firmware: \['gone'\] are not folders of"):
        load_app("two", "folders")


def test_shared_arenas_take_the_larger_plan_per_region_in_one_order():
    from types import SimpleNamespace

    from compiler.ir import Arena
    from ember_build.app_build import AppError, shared_arenas

    def program(*arenas: tuple[str, int]) -> SimpleNamespace:
        return SimpleNamespace(graph=SimpleNamespace(arenas=[Arena(n, s) for n, s in arenas]))

    assert shared_arenas({"a": program(("dtcm", 100)), "b": program(("dtcm", 60), ("sram", 500))}) == [
        ("dtcm", 100), ("sram", 500)]
    with pytest.raises(AppError, match="different region orders"):
        shared_arenas({"a": program(("sram", 10)), "b": program(("dtcm", 60), ("sram", 500))})
