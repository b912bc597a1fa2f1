"""Kernel variants are the compiler's choice: each op's program records the ones it runs
(Conv2DOptions.paths, FullyConnectedOptions.paths: bits of runtime/kernels/include/em_nn_variants.h),
the kernel runs exactly those, and the adapter's check() refuses at load a choice that does not fit
the layer (EM_ERR_BAD_OPERATOR) or names a variant the firmware left out (EM_ERR_VARIANT_NOT_LINKED).

On the M55 every choice the check accepts gives the reference's bytes, whichever the compiler would
have made; what the compiler does choose is what conformance and the apps run."""
from __future__ import annotations

import importlib
import re
import subprocess
from dataclasses import replace
from pathlib import Path

import numpy as np

import pytest

from build_host import build_em_run, build_em_run_firmware
from compiler import emit_c
from compiler import kernel_variants as kv
from compiler import reference
from compiler.ir import Graph, Tensor
from compiler.ops import OP_TABLE
from compiler.reader import read_program
from compiler.target import Target
from compiler.writer import write_program
from conformance import Device, conv_case, int8_tensor, run_batch, single_op
from test_depthwise_tiers import chain, dw_layer

M55 = Target("cortex-m55")
HEADER = kv.VARIANTS_HEADER.read_text()


def _conv(rng: np.random.Generator, shape=(1, 6, 7, 5), c_out=8) -> Graph:
    """A 3x3 conv2d with padding 1 (its border columns need packing or taps), scratch planned."""
    w = rng.integers(-128, 128, size=(c_out, 3, 3, shape[3]), dtype=np.int8)
    attrs = dict(stride=(1, 1), dilation=(1, 1), padding=(1, 1, 1, 1), groups=1, depth_multiplier=1,
                 input_zero_point=-3, output_offset=4, activation_min=-128, activation_max=127,
                 multiplier=np.full(c_out, 1 << 30, np.int32), shift=np.full(c_out, -8, np.int32))
    bias = rng.integers(-5000, 5000, size=c_out, dtype=np.int32)
    return conv_case("conv2d", "paths", np.zeros(shape, np.int8), w, bias, attrs, {}).graph


def _fc(rng: np.random.Generator, n_in=40, n_out=9) -> Graph:
    w = rng.integers(-128, 128, size=(n_out, n_in), dtype=np.int8)
    attrs = dict(output_offset=-2, activation_min=-128, activation_max=127,
                 multiplier=np.full(n_out, 1 << 30, np.int32), shift=np.full(n_out, -7, np.int32))
    operands = [int8_tensor("x", (2, n_in)), int8_tensor("w", w.shape, data=w),
                Tensor("b", "int32", (n_out,), data=rng.integers(-5000, 5000, size=n_out, dtype=np.int32))]
    return single_op("fully_connected", operands, int8_tensor("y", (2, n_out), -2), attrs, [np.zeros((2, n_in), np.int8)],
                     name="paths", params={}).graph


def _layers() -> dict[str, Graph]:
    rng = np.random.default_rng(16)
    return {
        # 3x3, C 16, stride 1, shifts <= -2: the fast path's blocks on staged rows
        "dw_blocks": chain((1, 6, 9, 16), [dw_layer(rng, 16, in_zp=-128, out_zp=3)]),
        # shifts > -2 on some channels: only the pixel's left-shift form fits
        "dw_left": chain((1, 5, 6, 16), [dw_layer(rng, 16, big_shift=True, in_zp=127)]),
        # a weight of -128: the general path only
        "dw_minus128": chain((1, 5, 6, 16), [dw_layer(rng, 16, w_min=-128, in_zp=5)]),
        # M 2 and C % 4 != 0: the general path's strided blocks
        "dw_m2": chain((1, 4, 5, 6), [dw_layer(rng, 6, m=2, in_zp=-1)]),
        "conv": _conv(rng),
        "fc": _fc(rng),
    }


LAYERS = _layers()
# Per layer, choices the check accepts, beside the compiler's own: all run bit-exact.
ACCEPTED = {
    "dw_blocks": [{"DWF_MVE_PIXEL", "DWF_MVE_BLOCK4", "DWF_MVE_ROWS"}, {"DWF_MVE_PIXEL", "DWF_MVE_ROWS"},
                  {"DWF_MVE_PIXEL", "DWF_MVE_TAPS"}, {"DWF_MVE_PIXEL", "DWF_MVE_BLOCK4", "DWF_MVE_TAPS"},
                  {"DWF_MVE_PIXEL_LEFT", "DWF_MVE_ROWS"}, {"DWF_MVE_PIXEL_LEFT", "DWF_MVE_TAPS"},
                  {"DW_MVE_FULL_KW3"}, {"DW_MVE_FULL"}],
    "dw_left": [{"DWF_MVE_PIXEL_LEFT", "DWF_MVE_TAPS"}, {"DW_MVE_FULL"}],
    "dw_minus128": [{"DW_MVE_FULL"}, {"DW_MVE_FULL_KW3"}],
    "dw_m2": [{"DW_MVE_STRIDED"}],
    "conv": [{"CONV_MVE_PACK"}, {"CONV_MVE_TAPS"}, {"CONV_MVE_PACK", "CONV_MVE_TAPS"}],
    "fc": [set(), {"FC_MVE_ROWS4"}],
}
# Per layer, choices that do not fit it: refused at load with EM_ERR_BAD_OPERATOR.
REFUSED = {
    "dw_blocks": [set(), {"DWF_MVE_PIXEL"}, {"DWF_MVE_PIXEL", "DWF_MVE_PIXEL_LEFT", "DWF_MVE_TAPS"},
                  {"DWF_MVE_PIXEL", "DWF_MVE_TAPS", "DW_MVE_FULL"}, {"CONV_MVE_PACK"}],
    "dw_left": [{"DWF_MVE_PIXEL", "DWF_MVE_TAPS"}, {"DWF_MVE_PIXEL_LEFT", "DWF_MVE_BLOCK4", "DWF_MVE_TAPS"}],
    "dw_minus128": [{"DWF_MVE_PIXEL", "DWF_MVE_TAPS"}],
    "dw_m2": [{"DW_MVE_FULL"}, {"DWF_MVE_PIXEL", "DWF_MVE_TAPS"}],
    "conv": [set(), {"FC_MVE_ROWS4"}],
    "fc": [{"CONV_MVE_PACK"}],
}


def _with_paths(graph: Graph, names: set[str] | None) -> Graph:
    """`graph` whose one op records `names` (None: the compiler's own choice)."""
    if names is None:
        return graph
    op = graph.ops[0]
    return replace(graph, ops=[replace(op, attrs={**op.attrs, "paths": kv.bits_of(names)})])


def _input(graph: Graph) -> np.ndarray:
    shape = graph.tensors[graph.inputs[0]].shape
    x = np.random.default_rng(len(shape)).integers(-128, 128, size=shape, dtype=np.int8)
    x.reshape(-1)[:3] = [-128, 127, -128]
    return x


def test_every_variant_has_one_bit_and_a_link_switch():
    assert sorted(kv.PATH_BITS) == sorted(kv.SELECTABLE_VARIANTS)
    bits = list(kv.PATH_BITS.values())
    assert len(set(bits)) == len(bits) and all(b & (b - 1) == 0 for b in bits)
    for name in kv.SELECTABLE_VARIANTS:
        assert f"#ifndef EM_NN_VARIANT_{name}\n#define EM_NN_VARIANT_{name} 1\n" in HEADER


def test_every_int16_kernel_has_exactly_one_link_switch():
    """The header defaults a switch per op kind whose record says int16_kernel, and no other."""
    in_header = set(re.findall(r"^#define EM_NN_VARIANT_(\w+_S16) 1$", HEADER, re.MULTILINE))
    assert in_header == set(kv.INT16_SWITCHES)
    assert not set(kv.INT16_SWITCHES) & set(kv.SELECTABLE_VARIANTS)


@pytest.mark.parametrize("name", list(LAYERS))
def test_the_program_records_the_compilers_choice(name):
    graph = LAYERS[name]
    chosen = kv.chosen_variants(graph, "mve")[0]
    read, _, _ = read_program(write_program(graph, M55))
    assert read.ops[0].attrs["paths"] == kv.bits_of(chosen)
    assert kv.chosen_variants(read, "mve") == [chosen]  # what a firmware of the read program links
    low, _, _ = read_program(write_program(graph, Target("cortex-m4")))
    assert low.ops[0].attrs["paths"] == 0


def test_the_compilers_choices():
    chosen = {name: kv.chosen_variants(graph, "mve")[0] for name, graph in LAYERS.items()}
    assert chosen == {"dw_blocks": {"DWF_MVE_PIXEL", "DWF_MVE_BLOCK4", "DWF_MVE_ROWS"},
                      "dw_left": {"DWF_MVE_PIXEL_LEFT", "DWF_MVE_ROWS"}, "dw_minus128": {"DW_MVE_FULL_KW3"},
                      "dw_m2": {"DW_MVE_STRIDED"}, "conv": {"CONV_MVE_PACK"}, "fc": {"FC_MVE_ROWS4"}}


def test_a_size_target_takes_the_compact_variants():
    """Target(optimize="size") (an -Os build) leaves out the depthwise 4-pixel blocks where the
    pixel form takes every layer alone (C >= 16), and keeps them where one layer needs them. The
    program records it, and each compact choice is one the M55 runs bit-exact (ACCEPTED, or the
    speed choice where nothing is left out)."""
    compact = {name: kv.chosen_variants(graph, "mve", "size")[0] for name, graph in LAYERS.items()}
    assert compact == {"dw_blocks": {"DWF_MVE_PIXEL", "DWF_MVE_ROWS"},
                       "dw_left": {"DWF_MVE_PIXEL_LEFT", "DWF_MVE_ROWS"}, "dw_minus128": {"DW_MVE_FULL_KW3"},
                       "dw_m2": {"DW_MVE_STRIDED"}, "conv": {"CONV_MVE_PACK"}, "fc": {"FC_MVE_ROWS4"}}
    assert all(compact[name] in ACCEPTED[name] + [kv.chosen_variants(graph, "mve")[0]]
               for name, graph in LAYERS.items())
    for name, graph in LAYERS.items():
        read, _, _ = read_program(write_program(graph, Target("cortex-m55", optimize="size")))
        assert read.ops[0].attrs["paths"] == kv.bits_of(compact[name]), name
    # a 3x3 layer of C 8 needs the blocks for the fast path: a graph with one keeps them everywhere
    rng = np.random.default_rng(5)
    both = chain((1, 6, 9, 8), [dw_layer(rng, 8, in_zp=1), dw_layer(rng, 8, in_zp=2)])
    assert all("DWF_MVE_BLOCK4" in names for names in kv.chosen_variants(both, "mve", "size"))


def test_variants_below_helium_are_refused_at_load(tmp_path: Path):
    """The host runs the scalar tier, which has no selectable variant: a program naming one is
    EM_ERR_VARIANT_NOT_LINKED."""
    graph = _with_paths(LAYERS["fc"], {"FC_MVE_ROWS4"})
    (tmp_path / "p.embr").write_bytes(write_program(graph, Target("host")))
    result = subprocess.run([str(build_em_run()), "p.embr", "--zero-inputs"], cwd=tmp_path, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode != 0 and "EM_ERR_VARIANT_NOT_LINKED" in result.stdout, result.stdout


def _cases(choices: dict[str, list]) -> list[tuple[str, set[str] | None]]:
    return [(name, names) for name, each in choices.items() for names in each]


@pytest.fixture(scope="module")
def m55_runs(tmp_path_factory):
    """Every accepted and refused choice, and the compiler's own, in one em_run launch on the M55."""
    cases = [(name, None) for name in LAYERS] + _cases(ACCEPTED) + _cases(REFUSED)
    programs = []
    for name, names in cases:
        graph = _with_paths(LAYERS[name], names)
        x = _input(graph)
        want = reference.run(graph, [x])[graph.outputs[0]]
        programs.append((write_program(graph, M55), [x.tobytes()], np.ascontiguousarray(want).tobytes()))
    device = Device("corstone300", "corstone300")
    run = run_batch(device, device.build_runner(), programs, tmp_path_factory.mktemp("paths"))
    return dict(zip([(name, None if names is None else frozenset(names)) for name, names in cases], run.verdicts))


@pytest.mark.qemu
@pytest.mark.parametrize("name, names", [(name, None) for name in LAYERS] + _cases(ACCEPTED))
def test_every_choice_the_check_accepts_runs_bit_exact(m55_runs, name, names):
    verdict = m55_runs[(name, None if names is None else frozenset(names))]
    assert verdict.matched, f"{name} {names}: {verdict.status} {verdict.detail}\n{verdict.console}"


@pytest.mark.qemu
@pytest.mark.parametrize("name, names", _cases(REFUSED))
def test_a_choice_that_does_not_fit_is_refused_at_load(m55_runs, name, names):
    verdict = m55_runs[(name, frozenset(names))]
    assert verdict.status == "EM_ERR_BAD_OPERATOR", f"{name} {names}: {verdict.status} {verdict.detail}"


@pytest.mark.qemu
def test_a_variant_the_firmware_left_out_is_refused_at_load(tmp_path: Path):
    """em_run on the M55 built as a program's firmware is (EM_NN_VARIANTS_SELECTED), here without
    the staged rows: a program choosing them is refused at load, the tap tables still run."""
    (tmp_path / "em_nn_variants_selected.h").write_text(
        emit_c.variants_h(set(kv.SELECTABLE_VARIANTS) - {"DWF_MVE_ROWS"}, kv.SELECTABLE_VARIANTS))
    firmware = build_em_run_firmware("corstone300", ["-DEM_NN_VARIANTS_SELECTED", f"-I{tmp_path}"])
    graph = LAYERS["dw_blocks"]
    x = _input(graph)
    want = np.ascontiguousarray(reference.run(graph, [x])[graph.outputs[0]]).tobytes()
    programs = [(write_program(_with_paths(graph, names), M55), [x.tobytes()], want)
                for names in ({"DWF_MVE_PIXEL", "DWF_MVE_BLOCK4", "DWF_MVE_ROWS"},
                              {"DWF_MVE_PIXEL", "DWF_MVE_BLOCK4", "DWF_MVE_TAPS"})]
    rows, taps = run_batch(Device("corstone300", "corstone300"), firmware, programs, tmp_path / "run").verdicts
    assert rows.status == "EM_ERR_VARIANT_NOT_LINKED", (rows.status, rows.detail)
    assert taps.matched, (taps.status, taps.detail)


INT16_KINDS = [spec_kind for spec_kind, spec in OP_TABLE.items() if spec.int16_kernel]


def _int16_and_int8_case(kind: str):
    """The first int16 (A16W8) case and the first int8 one of `kind`'s conformance cases."""
    cases = importlib.import_module(f"cases.{kind}").cases()
    int16 = next(c for c in cases if kv.is_int16(c.graph, c.graph.ops[0]))
    int8 = next(c for c in cases if not kv.is_int16(c.graph, c.graph.ops[0])
                and any(t.dtype == "int8" for t in c.graph.tensors.values()))
    return int16, int8


def test_the_adapters_built_per_program_are_int16_kernels_ones():
    """Those that ask their switch themselves (conv2d's, depthwise's and fully connected's kernels
    ask it in their own sources, compiled per program as the Helium variants are)."""
    from ember_build.app_build import int16_adapter_sources

    adapters = {p.stem for p in int16_adapter_sources()}
    assert {"em_op_add", "em_op_mul", "em_op_requantize"} <= adapters
    assert adapters <= {s.registration for s in OP_TABLE.values() if s.int16_kernel}


def test_an_int16_kernel_the_firmware_left_out_is_refused_at_load(tmp_path: Path):
    """em_run on the host built as a program's firmware (EM_NN_VARIANTS_SELECTED) whose program has
    no int16 op: every EM_NN_VARIANT_<KIND>_S16 is 0, so each op kind's int16 form is refused at load
    with EM_ERR_VARIANT_NOT_LINKED, and its int8 form still runs bit-exact."""
    assert INT16_KINDS, "no op record says int16_kernel"
    (tmp_path / "em_nn_variants_selected.h").write_text(
        emit_c.variants_h(set(kv.SELECTABLE_VARIANTS), kv.LINK_SWITCHES))
    runner = build_em_run(extra=["-DEM_NN_VARIANTS_SELECTED", f"-I{tmp_path}"])
    host = Target("host")
    pairs = {kind: _int16_and_int8_case(kind) for kind in INT16_KINDS}
    programs = [(write_program(case.graph, host), case.input_bytes(), case.expected())
                for int16, int8 in pairs.values() for case in (int16, int8)]
    verdicts = run_batch(Device("host", "host"), runner, programs, tmp_path / "run").verdicts
    for (kind, (int16, int8)), refused, ran in zip(pairs.items(), verdicts[0::2], verdicts[1::2]):
        assert refused.status == "EM_ERR_VARIANT_NOT_LINKED", (kind, int16.name, refused.status, refused.detail)
        assert ran.matched, (kind, int8.name, ran.status, ran.detail)


def test_an_int16_mul_or_lut_outside_its_contract_is_refused_at_load(tmp_path: Path):
    """An int16 mul with an offset (int16 is symmetric) or clamps past int16, an int16 table of a
    length no step gives: EM_ERR_BAD_OPERATOR at load, never a wrong answer."""
    from cases import lut, mul

    base_mul = next(c for c in mul.cases() if c.output.dtype == "int16")
    base_lut = next(c for c in lut.cases() if c.output.dtype == "int16")
    bad = []
    for attrs in ({"a_offset": 3}, {"output_offset": -1}, {"activation_max": 40000}):
        op = base_mul.graph.ops[0]
        bad.append(replace(base_mul, graph=replace(base_mul.graph, ops=[replace(op, attrs={**op.attrs, **attrs})])))
    table = base_lut.graph.tensors[base_lut.graph.ops[0].inputs[1]]
    short = replace(table, shape=(table.shape[0] - 1,), data=table.data[:-1])
    bad.append(replace(base_lut, graph=replace(base_lut.graph, tensors={**base_lut.graph.tensors, table.name: short})))
    host = Device("host", "host")
    programs = [(write_program(base_mul.graph, host.target), base_mul.input_bytes(), base_mul.expected())]
    programs += [(write_program(c.graph, host.target), c.input_bytes(), bytes(c.output.nbytes)) for c in bad]
    good, *refused = run_batch(host, build_em_run(), programs, tmp_path / "run").verdicts
    assert good.matched, (good.status, good.detail)
    assert [v.status for v in refused] == ["EM_ERR_BAD_OPERATOR"] * len(bad), [(v.status, v.detail) for v in refused]
