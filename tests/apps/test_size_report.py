"""The size report of the anomaly firmware: every flash byte attributed, the selected kernels
named, the chart written."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ember_build.elf_check import flash_bytes
from ember_build.size_report import component_of
from ember_build.paths import BUILD_ROOT

REPO = Path(__file__).resolve().parents[2]
OUT = BUILD_ROOT / "corstone300" / "anomaly"


@pytest.fixture(scope="module")
def size() -> dict:
    scons = Path(sys.executable).with_name("scons")
    build = subprocess.run([str(scons), "app=anomaly", "board=corstone300"], cwd=REPO,
                           capture_output=True, text=True, timeout=900)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    return json.loads((OUT / "size.json").read_text())


@pytest.mark.qemu
def test_components_account_for_every_flash_byte(size):
    assert size["flash_total"] == flash_bytes(OUT / "firmware.elf")
    assert sum(c["flash"] for c in size["components"]) == size["flash_total"]
    assert size["code_flash"] + size["constants_flash"] + _component(size, "app test data")["flash"] == size["flash_total"]


@pytest.mark.qemu
def test_every_flash_byte_counts_once_with_soft_float_aliases():
    """The M3 links libgcc's soft float, whose functions have aliases (__aeabi_fadd = __addsf3)
    and entry points inside each other (__aeabi_frsub): each byte still counts once."""
    scons = Path(sys.executable).with_name("scons")
    build = subprocess.run([str(scons), "app=anomaly", "board=mps2_an385"], cwd=REPO, capture_output=True, text=True,
                           timeout=900)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    out = BUILD_ROOT / "mps2_an385" / "anomaly"
    size = json.loads((out / "size.json").read_text())
    assert size["flash_total"] == flash_bytes(out / "firmware.elf")
    assert sum(c["flash"] for c in size["components"]) == size["flash_total"]
    assert _component(size, "libc/libgcc")["flash"] > 1000  # the soft float is there


@pytest.mark.qemu
def test_the_programs_ops_and_kernels_are_components(size):
    names = {c["name"] for c in size["components"]}
    for op, kernel in (("fully_connected", "fully_connected_s8"), ("quantize", "quantize_f32_s8"),
                       ("dequantize", "dequantize_s8_f32")):
        assert f"op {op}" in names and f"kernel {kernel}" in names
    assert size["runtime_core_flash"] > 1000 and _component(size, "bsp")["flash"] > 0
    assert _component(size, "libc/libgcc")["flash"] > 0  # memcpy / memset
    program = (OUT / "gen" / "program.embr").stat().st_size
    assert program <= size["constants_flash"] <= program + 16


@pytest.mark.qemu
def test_ram_holds_the_planned_arena_and_the_stack(size):
    compiled = json.loads((OUT / "gen" / "compile.json").read_text())
    assert size["arena_ram"] == compiled["arena_bytes"]
    assert size["stack_ram"] == 32768  # bsp/corstone300/board.yaml stack_bytes


@pytest.mark.qemu
def test_markdown_and_chart_are_written(size):
    text = (OUT / "size.md").read_text()
    assert "| runtime core |" in text and "size.png" in text
    assert (OUT / "size.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_component_rules():
    assert component_of("runtime/kernels/em_fully_connected_s8.c") == "kernel fully_connected_s8"
    for split in ("em_conv2d_s8_mve.c", "em_conv2d_dot2x3_mve.c", "em_conv2d_s8_scalar_dsp.c"):
        assert component_of(f"runtime/kernels/{split}") == "kernel conv2d_s8"
    assert component_of("runtime/kernels/em_depthwise_conv2d_s8_mve.c") == "kernel depthwise_conv2d_s8"
    assert component_of("runtime/kernels/em_depthwise_m1_pixel_mve.c") == "kernel depthwise_conv2d_m1_s8"
    assert component_of("runtime/kernels/em_depthwise_conv2d_m1_s8.c") == "kernel depthwise_conv2d_m1_s8"
    assert component_of("runtime/ops/em_op_quantize.c") == "op quantize"
    assert component_of("build/corstone300/anomaly/gen/em_registry.c") == "runtime core"
    assert component_of("bsp/common/em_print.c") == "bsp"
    assert component_of("../newlib/libc/string/memset.c") == "libc/libgcc"


def _component(size: dict, name: str) -> dict:
    return next(c for c in size["components"] if c["name"] == name)


@pytest.mark.qemu
def test_static_stack_bound_covers_the_measured_peak(size):
    report = subprocess.run([str(Path(sys.executable).with_name("scons")), "app=anomaly", "board=corstone300", "run=1"],
                            cwd=REPO, capture_output=True, text=True, timeout=900)
    assert report.returncode == 0, report.stdout[-2000:]
    measured = json.loads((OUT / "report.json").read_text())["stack_peak_bytes"]
    bound = json.loads((OUT / "size.json").read_text())["stack_bound_bytes"]
    assert bound is not None and measured <= bound < 32768
    assert json.loads((OUT / "size.json").read_text())["stack_bound_path"][0] == "Reset_Handler"


def _ci(tmp_path, text: str) -> list[Path]:
    path = tmp_path / "unit.ci"
    path.write_text('graph: { title: "unit.c"\n' + text + "\n}\n")
    return [path]


def _node(name: str, size: int | None = None, kind: str = "static") -> str:
    frame = f"\\n{size} bytes ({kind})" if size is not None else ""
    return f'node: {{ title: "{name}" label: "{name}\\nunit.c:1:1{frame}" }}'


def _edge(source: str, target: str) -> str:
    return f'edge: {{ sourcename: "{source}" targetname: "{target}" label: "unit.c:2:2" }}'


def test_stack_bound_takes_the_deepest_path_and_resolves_indirect_calls(tmp_path):
    from ember_build.stack_bound import EXCEPTION_FRAME_BYTES, static_bound

    graph = "\n".join([_node("Reset_Handler", 8), _node("em_app_main", 100), _node("em_x_eval", 300),
                       _node("em_y_eval", 50), _node("small", 10), _node("em_cortex_m_systick_handler", 16),
                       _edge("Reset_Handler", "em_app_main"), _edge("em_app_main", "__indirect_call"),
                       _edge("em_app_main", "small"), _edge("em_x_eval", "memcpy")])
    bound = static_bound(_ci(tmp_path, graph))
    assert bound.bytes == 8 + 100 + 300 + EXCEPTION_FRAME_BYTES + 16
    assert bound.path[:3] == ["Reset_Handler", "em_app_main", "em_x_eval"] and "memcpy" in bound.no_dump
    linked_only_y = static_bound(_ci(tmp_path, graph), linked={"Reset_Handler", "em_app_main", "em_y_eval", "small"})
    assert linked_only_y.bytes == 8 + 100 + 50 + EXCEPTION_FRAME_BYTES + 16


def test_a_kernels_own_function_pointers_resolve_to_its_functions_not_the_adapters(tmp_path):
    """The depthwise fast path calls its chosen pixel function through a pointer: resolved to
    the adapters (whose eval called it) that would be a cycle and an unknown bound."""
    from ember_build.stack_bound import EXCEPTION_FRAME_BYTES, static_bound

    graph = "\n".join([_node("Reset_Handler", 8), _node("em_app_main", 100), _node("em_dw_eval", 40),
                       _node("em_nn_depthwise_m1_s8", 64), _node("em_nn_dwf_pixel_9", 24),
                       _node("em_nn_dwf_block4_3x3_unit", 48),
                       _edge("Reset_Handler", "em_app_main"), _edge("em_app_main", "__indirect_call"),
                       _edge("em_dw_eval", "em_nn_depthwise_m1_s8"),
                       _edge("em_nn_depthwise_m1_s8", "__indirect_call")])
    bound = static_bound(_ci(tmp_path, graph))
    assert bound.bytes == 8 + 100 + 40 + 64 + 48 + EXCEPTION_FRAME_BYTES
    assert bound.path[-3:] == ["em_nn_depthwise_m1_s8", "em_nn_dwf_block4_3x3_unit", "(exception)"]


def test_folded_functions_and_lto_names_resolve_to_the_copy_kept(tmp_path):
    """Identical code folding leaves one node for identical functions: a call to a folded one
    (a symbol at the kept copy's address) counts the kept copy's frame; LTO's renamed adapters
    (em_x_eval.lto_priv.0) still take the indirect calls."""
    from ember_build.stack_bound import EXCEPTION_FRAME_BYTES, static_bound

    def lto_node(title: str, label: str, size: int) -> str:  # GCC's form: the unit in the title only
        return f'node: {{ title: "{title}" label: "{label}\\nunit.c:1:1\\n{size} bytes (static)" }}'

    graph = "\n".join([_node("Reset_Handler", 8), _node("em_app_main", 100),
                       lto_node("u.o:em_x_eval.lto_priv.0", "em_x_eval", 40), lto_node("u.o:dot.lto_priv.0", "dot", 24),
                       _edge("Reset_Handler", "em_app_main"), _edge("em_app_main", "__indirect_call"),
                       _edge("u.o:em_x_eval.lto_priv.0", "u.o:dot.lto_priv.3")])
    addresses = {"Reset_Handler": 0x100, "em_app_main": 0x200, "em_x_eval.lto_priv.0": 0x300,
                 "dot.lto_priv.0": 0x400, "dot.lto_priv.3": 0x400}
    bound = static_bound(_ci(tmp_path, graph), set(addresses), addresses)
    assert bound.bytes == 8 + 100 + 40 + 24 + EXCEPTION_FRAME_BYTES
    assert bound.no_dump == []
    unfolded = static_bound(_ci(tmp_path, graph), set(addresses))  # without the addresses: a leaf of 0
    assert unfolded.bytes == 8 + 100 + 40 + EXCEPTION_FRAME_BYTES and unfolded.no_dump == ["u.o:dot.lto_priv.3"]
    # an adapter folded into a function of another name (no node of its own) is still a target
    # of the registry's indirect calls: through the copy kept at its address
    folded_eval = "\n".join([_node("Reset_Handler", 8), _node("em_app_main", 100), _node("shared_body", 500),
                             _edge("Reset_Handler", "em_app_main"), _edge("em_app_main", "__indirect_call")])
    at = {"Reset_Handler": 0x100, "em_app_main": 0x200, "shared_body": 0x300, "em_z_eval": 0x300}
    assert static_bound(_ci(tmp_path, folded_eval), set(at), at).bytes == 8 + 100 + 500 + EXCEPTION_FRAME_BYTES


def test_assembly_functions_add_their_pushes_and_calls(tmp_path):
    """GCC reports a naked function as 0 bytes with no calls; ASSEMBLY states them."""
    from ember_build.stack_bound import ASSEMBLY, EXCEPTION_FRAME_BYTES, static_bound

    graph = "\n".join([_node("Reset_Handler", 8), _node("em_nn_conv_block_mve", 200), _node("em_nn_dot2x3_rows_mve", 0),
                       _node("em_cortex_m_time_empty", 0), _node("em_bsp_counter_read", 300),
                       _edge("Reset_Handler", "em_nn_conv_block_mve"), _edge("Reset_Handler", "em_cortex_m_time_empty"),
                       _edge("em_nn_conv_block_mve", "em_nn_dot2x3_rows_mve")])
    bound = static_bound(_ci(tmp_path, graph))
    assert ASSEMBLY["em_cortex_m_time_empty"] == (16, ("em_bsp_counter_read",))
    assert bound.bytes == 8 + 16 + 300 + EXCEPTION_FRAME_BYTES
    assert bound.path[:3] == ["Reset_Handler", "em_cortex_m_time_empty", "em_bsp_counter_read"]


_PUSH = re.compile(r'"\s*push\s+\{([^}]*)\}')
_CALL = re.compile(r'"\s*(?:bl|b|b\.w)\s+([A-Za-z_]\w*)')  # a call, or a tail call; local labels are digits
# Any other instruction that moves SP down: the test cannot count it, so it must not appear.
_OTHER_SP = re.compile(r'"\s*(?:vpush|push\.w|stmdb\s+sp|str\w*\s+\w+,\s*\[sp,\s*#-|sub\w*\s+sp)')
_NAKED = re.compile(r"__attribute__\(\(([^;{]*?)\)\)\s*(?:static\s+)?[\w\s*]*?\b(\w+)\s*\(")


def _pushed_words(registers: str) -> int:
    """Words a `push {r4-r11, lr}` list stores."""
    words = 0
    for item in (r.strip() for r in registers.split(",")):
        low, _, high = item.partition("-")
        words += int(high[1:]) - int(low[1:]) + 1 if high else 1
    return words


def test_the_assembly_table_matches_every_naked_function_of_the_firmware():
    """Each naked function of runtime/ and bsp/ is in stack_bound.ASSEMBLY with the bytes its
    pushes store and the functions it calls with `bl`, so an edit of the assembly that adds a
    push or a call fails here until the table says so."""
    from ember_build.stack_bound import ASSEMBLY, FRESH_STACK

    found: dict[tuple[str, str], tuple[int, set[str]]] = {}  # (file, function): (bytes, callees)
    for source in sorted([*REPO.glob("runtime/**/*.c"), *REPO.glob("bsp/**/*.c")]):
        text = source.read_text()
        naked = [m for m in _NAKED.finditer(text) if re.search(r"\bnaked\b", m.group(1))]
        assert len(naked) == len(re.findall(r"__attribute__\(\([^;{]*?\bnaked\b", text)), source
        for match in naked:
            body = text[match.end():text.index("\n}\n", match.end())]
            assert not _OTHER_SP.search(body), f"{source.name} {match.group(2)}: an SP change the test cannot count"
            pushes = sum(_pushed_words(p) for p in _PUSH.findall(body))
            found[(source.name, match.group(2))] = (4 * pushes, set(_CALL.findall(body)))
    assert found[("em_conv2d_dot2x3_mve.c", "em_nn_dot2x3_rows_mve")][0] == 36
    assert ("counter_dwt.c", "em_cortex_m_systick_handler") in found and ("counter_systick.c", "em_cortex_m_systick_handler") in found
    assert {name for _, name in found} == set(ASSEMBLY)
    for (file, name), (frame, calls) in found.items():
        table_frame, table_calls = ASSEMBLY[name]
        assert frame <= table_frame, (file, name, frame)
        assert name in FRESH_STACK or calls <= set(table_calls), (file, name, calls)
    for name, (table_frame, table_calls) in ASSEMBLY.items():  # no more than some definition needs
        assert table_frame == max(f for (_, n), (f, _) in found.items() if n == name), name


def test_stack_bound_is_unknown_for_recursion_and_dynamic_frames(tmp_path):
    from ember_build.stack_bound import static_bound

    recursive = "\n".join([_node("Reset_Handler", 8), _node("f", 16), _edge("Reset_Handler", "f"), _edge("f", "f")])
    assert static_bound(_ci(tmp_path, recursive)).bytes is None
    dynamic = "\n".join([_node("Reset_Handler", 8), _node("g", 16, "dynamic"), _edge("Reset_Handler", "g")])
    result = static_bound(_ci(tmp_path, dynamic))
    assert result.bytes is None and "dynamically sized" in result.reason


@pytest.mark.qemu
def test_runtime_core_fits_4_kib_at_os_on_the_m55():
    """Issue 5's target: loader, executor and registry ≤ 4 KiB of flash at -Os (status names, the
    text of error messages, are a component of their own). -Os builds beside -O2 (build/…-Os/)."""
    scons = Path(sys.executable).with_name("scons")
    build = subprocess.run([str(scons), "app=anomaly", "board=corstone300", "opt=-Os"], cwd=REPO,
                           capture_output=True, text=True, timeout=900)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    size = json.loads((BUILD_ROOT / "corstone300-Os/anomaly/size.json").read_text())
    assert size["runtime_core_flash"] <= 4096, size["runtime_core_flash"]
    assert _component(size, "status names")["flash"] > 0


def test_components_are_largest_first_and_ties_by_name():
    """size.json's component order is the bytes', then the name's: the same build gives the same file."""
    from ember_build.size_report import SizeReport

    report = SizeReport(flash={"op conv2d": 100, "op depthwise_conv2d": 100, "kernel a": 300, "bsp": 5},
                        ram={"bsp": 200})
    assert [c["name"] for c in report.as_json()["components"]] == ["kernel a", "bsp", "op conv2d", "op depthwise_conv2d"]
