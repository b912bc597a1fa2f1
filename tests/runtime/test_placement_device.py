"""Placement over several memory regions, run: a conv program whose weights are pinned to DTCM
and whose activations are pinned / spilled to ISRAM and SRAM, on the host (em_run) and as
Cortex-M55 firmware in QEMU (corstone300), whose arenas come from the generated em_model_arena.h.

On the device every tensor's address, as the runtime resolves it, must lie inside the board.yaml
region the plan put it in; the output must equal compiler.reference byte for byte; zeroing the
DTCM copies of the pinned weights must change the output (the kernels read the RAM copy, not the
program's flash bytes) and copying again must restore it."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from build_host import INCLUDES, REPO, bsp_common_sources, build, build_em_run, runtime_sources
from compiler import reference
from compiler.emit_c import program_array_c, program_header_c
from compiler.ir import Graph, Quant, Tensor, Op
from compiler.placement import Memory
from compiler.planner import plan_memory
from compiler.target import Target
from compiler.writer import write_program
from test_conv_programs import conv_layer

EM_ERR_CONSTANTS_NOT_COPIED = 14


def _graph() -> Graph:
    """x [1,12,12,8] -> conv 3x3 (16) -> depthwise 3x3 -> conv 1x1 (8): three weighted layers."""
    rng = np.random.default_rng(5)
    layers = [conv_layer("conv2d", rng, 8, c_out=16, in_zp=-3, out_zp=2),
              conv_layer("depthwise_conv2d", rng, 16, in_zp=2, out_zp=-1),
              conv_layer("conv2d", rng, 16, k=(1, 1), c_out=8, padding=(0, 0, 0, 0), in_zp=-1, out_zp=4)]
    tensors = {"x": Tensor("x", "int8", (1, 12, 12, 8), Quant.per_tensor(0.05, -3))}
    ops, prev, shape = [], "x", (1, 12, 12, 8)
    for i, (kind, w, bias, attrs) in enumerate(layers):
        c_out = w.shape[0] if kind == "conv2d" else w.shape[2]
        shape = (1, 12, 12, c_out)
        tensors[f"w{i}"] = Tensor(f"w{i}", "int8", w.shape, data=w)
        tensors[f"b{i}"] = Tensor(f"b{i}", "int32", bias.shape, data=bias)
        tensors[f"y{i}"] = Tensor(f"y{i}", "int8", shape, Quant.per_tensor(0.1, attrs["output_offset"]))
        ops.append(Op(kind, [prev, f"w{i}", f"b{i}"], [f"y{i}"], dict(attrs), origin=f"net.{i} (Conv2d) at model.py:{i}"))
        prev = f"y{i}"
    return Graph(tensors, ops, ["x"], [prev])


def _memory() -> Memory:
    from ember_build.app_build import app_memory
    from ember_build.board import load_board

    board = load_board("corstone300")
    memory = app_memory(board)
    # weights of two layers to DTCM, one activation to ISRAM, DTCM capped so y0 cannot stay there
    return Memory(memory.regions, {"net.0": "dtcm", "w2": "dtcm", "y1": "sram"}, {"dtcm": 2560},
                  memory.not_arena)


def _planned(tier: str) -> tuple[Graph, object]:
    graph = _graph()
    plan = plan_memory(graph, _memory(), tier)
    return graph, plan


def _input(graph: Graph) -> np.ndarray:
    n = graph.tensors["x"].nbytes
    return (np.arange(n, dtype=np.uint32) * 37 + 11).astype(np.uint8).view(np.int8).reshape(graph.tensors["x"].shape)


def test_plan_uses_three_regions_with_the_pins():
    graph, plan = _planned("mve")
    names = [a.name for a in graph.arenas]
    assert names[0] == "dtcm" and "sram" in names and len(names) >= 2
    assert plan.region_of("w0") == plan.region_of("w2") == "dtcm"
    assert plan.region_of("y1") == "sram"
    assert graph.arenas[0].size <= 2560
    assert graph.tensors["b1"].offset is None  # not pinned: stays in the program


def test_host_em_run_copies_pinned_weights_and_matches_reference(tmp_path):
    graph, _ = _planned("scalar")
    exe = build_em_run()
    x = _input(graph)
    (tmp_path / "p.embr").write_bytes(write_program(graph, Target("host")))
    (tmp_path / "in.bin").write_bytes(x.tobytes())
    import subprocess

    result = subprocess.run([str(exe), str(tmp_path / "p.embr"), "--input", str(tmp_path / "in.bin"), "--output",
                             str(tmp_path / "out.bin")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    want = reference.run(graph, [x])[graph.outputs[0]]
    np.testing.assert_array_equal(np.frombuffer((tmp_path / "out.bin").read_bytes(), np.int8).reshape(want.shape), want)


def _build_driver(graph: Graph, out: Path) -> Path:
    import sys
    sys.path.insert(0, str(REPO / "site_scons"))
    from ember_build.app_build import arena_header_c
    from ember_build.board import load_board
    from ember_build.toolchain import bsp_include_dirs, bsp_sources, firmware_cflags, firmware_ldflags

    board = load_board("corstone300")
    names = list(graph.tensors)
    pinned = [i for i, n in enumerate(names) if graph.tensors[n].is_pinned]
    (out / "em_model_program.c").write_text(program_array_c(write_program(graph, Target(board.cpu)), "em_model_program"))
    (out / "em_model_program.h").write_text(program_header_c("em_model_program"))
    arenas = [(a.name, a.size) for a in graph.arenas]
    (out / "em_model_arena.h").write_text(arena_header_c(arenas[0][1], arenas[0][0], arenas[1:]))
    (out / "placement_case.h").write_text(f"#define PLACEMENT_PINNED {{{', '.join(map(str, pinned))}}}\n")
    elf = out / "placement.elf"
    flags = [*firmware_cflags(board), "-ffp-contract=off", *INCLUDES, f"-I{out}", *[f"-I{d}" for d in bsp_include_dirs(board)]]
    sources = runtime_sources(out) + bsp_common_sources() + [REPO / "tests/runtime/placement_driver.c", out / "em_model_program.c"]
    build(board.cc, flags, sources + bsp_sources(board), elf,
          [*firmware_ldflags(board), f"-Wl,-Map={elf.with_suffix('.map')}", "-lm"])
    return elf


@pytest.mark.qemu
def test_pinned_tensors_land_in_their_regions_in_qemu(tmp_path):
    from ember_build.board import load_board
    from test_em_run_qemu import qemu

    graph, plan = _planned("mve")
    elf = _build_driver(graph, tmp_path)
    result = qemu(elf, tmp_path, "")
    assert result.returncode == 0 and "EM done" in result.stdout, result.stdout + result.stderr
    lines = result.stdout
    assert re.search(r"EM before EM_ERR_CONSTANTS_NOT_COPIED", lines)
    regions = {r.name: r for r in load_board("corstone300").memory}
    names = list(graph.tensors)
    seen = set()
    for index, address, size in re.findall(r"EM tensor (\d+) (\d+) (\d+)", lines):
        name, address = names[int(index)], int(address)
        t = graph.tensors[name]
        if t.offset is None:
            continue  # a constant left in the program (QSPI)
        region = regions[graph.arenas[t.arena].name]
        assert region.base <= address and address + int(size) <= region.base + region.size, (name, hex(address), region)
        seen.add(name)
    assert {"w0", "b0", "w2", "y1", "x", "y0", "y2"} <= seen  # net.0: weights and bias; w2 alone
    assert regions["dtcm"].base <= min(int(a) for i, a, _ in re.findall(r"EM tensor (\d+) (\d+) (\d+)", lines)
                                       if names[int(i)] == "w0") < regions["dtcm"].base + regions["dtcm"].size
    want = reference.run(graph, [_input(graph)])[graph.outputs[0]].tobytes().hex()
    got = re.search(r"EM out ([0-9a-f]+)", lines).group(1)
    assert got == want
    assert re.search(r"EM wiped ([0-9a-f]+)", lines).group(1) != want  # the kernels read the DTCM copy
    assert re.search(r"EM again ([0-9a-f]+)", lines).group(1) == want
