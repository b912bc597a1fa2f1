"""The int16 (A16W8) kernels of conv2d, depthwise_conv2d and fully_connected are linked only where
the program has an int16 op of the kind (EM_NN_VARIANT_<KIND>_S16, em_nn_variants.h): the compiler
sets the switch, and a firmware built with it 0 carries none of their code (test_kernel_paths.py:
its runtime refuses such an op at load)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from compiler import emit_c
from compiler import kernel_variants as kv

sys.path.insert(0, str(Path(__file__).parent))
from cases import conv2d, depthwise_conv2d, fully_connected  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
KERNELS = REPO / "runtime" / "kernels"
S16_SWITCHES = ("CONV2D_S16", "DEPTHWISE_CONV2D_S16", "FULLY_CONNECTED_S16")
# the files a program's firmware compiles again with its em_nn_variants_selected.h
S16_SOURCES = ("em_conv2d_s16.c", "em_depthwise_conv2d_s16.c", "em_fully_connected_s16.c", "em_weighted_validate_s16.c")


def _one(cases, prefix: str):
    return next(c for c in cases if c.name.startswith(prefix))


def _s16_cases():
    return [_one(conv2d.cases_s16(), "s16_3x3_c3_o16"), _one(depthwise_conv2d.cases_s16(), "s16_3x3_c64"),
            _one(fully_connected.cases_s16(), "s16_1x64_o12")]


def test_the_compiler_links_the_int16_kernels_only_for_int16_ops():
    int8 = [conv2d.cases()[0], depthwise_conv2d.cases()[0], fully_connected.cases()[0]]
    for case in int8:
        assert not kv.linked_variants(case.graph, "mve") & set(S16_SWITCHES), case.id
    for case, switch in zip(_s16_cases(), S16_SWITCHES):
        assert kv.linked_variants(case.graph, "mve") & set(S16_SWITCHES) == {switch}, case.id
        assert kv.linked_variants(case.graph, "dsp") & set(S16_SWITCHES) == {switch}, case.id


def _symbols(obj: Path, *flags: str) -> set[str]:
    out = subprocess.run(["arm-none-eabi-nm", *flags, str(obj)], capture_output=True, text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


@pytest.mark.parametrize("cpu", ["cortex-m55", "cortex-m4", "cortex-m3"])
def test_an_int8_firmware_builds_the_int16_kernels_as_refusals(tmp_path: Path, cpu: str):
    """The int16 kernels' files compiled as an int8 program's firmware compiles them (its generated
    em_nn_variants_selected.h, every int16 switch 0) reference none of the int16 code: the row loop
    and the int8 contract they use stay unlinked, and each is a few instructions. Built with the
    switches 1 (an A16W8 program), they do reference them, and are many times larger."""
    sizes = {}
    for linked in (False, True):
        gen = tmp_path / f"gen{int(linked)}"
        gen.mkdir()
        (gen / "em_nn_variants_selected.h").write_text(
            emit_c.variants_h(set(S16_SWITCHES) if linked else set(), kv.LINK_SWITCHES))
        undefined, defined, text = set(), set(), 0
        for source in S16_SOURCES:
            obj = gen / source.replace(".c", ".o")
            subprocess.run(["arm-none-eabi-gcc", f"-mcpu={cpu}", "-mthumb", "-O2", "-std=c11", "-ffunction-sections",
                            "-DEM_NN_VARIANTS_SELECTED", f"-I{gen}", f"-I{KERNELS / 'include'}", "-c",
                            str(KERNELS / source), "-o", str(obj)], check=True, capture_output=True, text=True)
            undefined |= _symbols(obj, "-u")
            defined |= _symbols(obj, "--defined-only")
            size = subprocess.run(["arm-none-eabi-size", str(obj)], capture_output=True, text=True, check=True)
            text += int(size.stdout.splitlines()[1].split()[0])
        sizes[linked] = text
        undefined -= defined  # what the files need from the rest of the runtime
        if linked:
            assert {"em_nn_rows_s16", "em_conv_s8_validate"} <= undefined, undefined
        else:
            assert not undefined, undefined
    assert 4 * sizes[False] < sizes[True], sizes  # refusals of a few instructions each
