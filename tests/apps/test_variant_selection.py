"""Selective build below the op (runtime/kernels/include/em_nn_variants.h): the kws firmware
(DS-CNN on corstone300, MVE) links only the kernel variants its program takes. Its depthwise
layers all run the M = 1 fast path's 3x3 4-pixel blocks on staged rows, so no block of the
general MVE depthwise path may be in its ELF, while the runtime library (every variant, for
em_run and the kernel tests) still holds them. The firmware must still match the reference."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

from compiler import kernel_variants as kv
from compiler.program import Program
from ember_build.paths import BUILD_ROOT

pytestmark = pytest.mark.qemu  # builds Arm firmware / runs it in QEMU (tests/tiers.py)

OUT = BUILD_ROOT / "corstone300" / "kws"
# em_depthwise_conv2d_s8_mve.c's general blocks, the fast path's other pixel, conv2d's taps
LEFT_OUT = ["em_nn_dw_block_full", "em_nn_dw_block_full_kw3", "em_nn_dw_block_tail", "em_nn_dw_block_strided",
            "em_nn_dwf_pixel_left", "em_nn_conv_taps_mve"]
KEPT = ["em_nn_dwf_pixel", "em_nn_dwf_block4_3x3_unit", "em_nn_conv_pack_mve", "em_nn_depthwise_m1_s8"]


def _functions(path: Path) -> set[str]:
    with open(path, "rb") as f:
        symtab = ELFFile(f).get_section_by_name(".symtab")
        assert isinstance(symtab, SymbolTableSection)
        return {s.name for s in symtab.iter_symbols() if s["st_info"]["type"] == "STT_FUNC"}


@pytest.fixture(scope="module")
def kws(kws_corstone300_run) -> Path:
    return OUT


def test_the_generated_header_names_the_programs_variants(kws):
    program = Program.load(kws / "gen" / "program.embr")
    used = kv.linked_variants(program.graph, program.target.tier)
    assert used == {"DWF_MVE_PIXEL", "DWF_MVE_BLOCK4", "DWF_MVE_ROWS", "CONV_MVE_PACK"}
    header = (kws / "gen" / "em_nn_variants_selected.h").read_text()
    for name in kv.SELECTABLE_VARIANTS:
        assert f"#define EM_NN_VARIANT_{name} {int(name in used)}\n" in header


def test_unused_variants_are_not_linked(kws):
    functions = _functions(kws / "firmware.elf")
    assert all(name in functions for name in KEPT)
    assert [name for name in LEFT_OUT if name in functions] == []


def test_the_library_keeps_every_variant_for_other_programs(kws):
    objects = BUILD_ROOT / "corstone300" / "runtime" / "runtime" / "kernels"
    sources = ("em_depthwise_conv2d_s8_mve", "em_depthwise_conv2d_m1_s8", "em_depthwise_m1_pixel_mve", "em_depthwise_m1_block_mve",
               "em_conv2d_s8_mve", "em_conv2d_pack_mve", "em_conv2d_block_mve")
    functions = set().union(*(_functions(objects / f"{name}.o") for name in sources))
    assert all(name in functions for name in LEFT_OUT + KEPT)


def test_no_64_bit_division_is_linked(kws):
    """Output sizes, printing and the front end divide in 32 bits: libgcc's 64-bit division
    (__udivmoddi4 and its wrappers, about 800 bytes) has no place in a firmware."""
    functions = _functions(kws / "firmware.elf")
    assert [f for f in ("__udivmoddi4", "__aeabi_uldivmod", "__aeabi_ldivmod", "__divmoddi4") if f in functions] == []


def test_the_static_stack_bound_is_known_and_covers_the_painted_peak(kws):
    """The depthwise fast path's function pointers resolve to its own pixel and block functions
    (ember_build/stack_bound.py KERNEL_POINTERS), so the bound exists for DS-CNN."""
    bound = json.loads((kws / "size.json").read_text())["stack_bound_bytes"]
    peak = json.loads((kws / "report.json").read_text())["stack_peak_bytes"]
    assert bound is not None and peak <= bound
