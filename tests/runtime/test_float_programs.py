"""The float fallback kernels (runtime/kernels/em_float_*.c, through their adapters) against
compiler/reference.py: every case in ONE program per board, run once by em_run on the host,
and in QEMU on corstone300 (M55, FPU), mps2_an386 (M4, FPU) and mps2_an385 (M3, soft-float).

Ops built from + - * / and sqrt are bit-exact with the reference; ops that call libm (exp,
log, tanh, erf: sigmoid, SiLU, GELU, softmax …) must agree within reference.FLOAT_LIBM_ULPS
units in the last place or reference.FLOAT_LIBM_ABS absolute (newlib, glibc and NumPy round
them differently); NaN where the reference has NaN. The batch: each case reads constants and writes its own arena tensor, and
one extra program output spans the whole arena, so em_run's single output file holds them all.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from compiler import reference
from compiler.ir import Arena, Graph, Op, Tensor
from compiler.program import Program
from compiler.target import Target
from ember_build.board import load_board, one_board_per_tier
from tests.integration.runners import REPO, run

# board -> CPU: the host and a QEMU board of each tier (bsp/): corstone300, mps2_an386, mps2_an385
BOARDS = {b.name: b.cpu for b in [load_board("host"), *one_board_per_tier()]}
ALIGN = 16


@dataclass
class Case:
    name: str
    kind: str
    inputs: list[np.ndarray]
    attrs: dict
    libm: bool = False  # compared within FLOAT_LIBM_ULPS instead of bit for bit


def _randn(rng, *shape, scale=1.0) -> np.ndarray:
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def _cases() -> list[Case]:
    rng = np.random.default_rng(7)
    cases = [
        Case("fc_1x1x1", "float_fully_connected", [_randn(rng, 1, 1), _randn(rng, 1, 1), _randn(rng, 1)], {}),
        Case("fc_relu6", "float_fully_connected", [_randn(rng, 3, 37), _randn(rng, 11, 37), _randn(rng, 11)],
             {"activation_min": 0.0, "activation_max": 6.0}),
        Case("fc_130", "float_fully_connected", [_randn(rng, 2, 130), _randn(rng, 5, 130), _randn(rng, 5)], {}),
        Case("fc_tokens", "float_fully_connected", [_randn(rng, 2, 3, 9), _randn(rng, 4, 9), _randn(rng, 4)], {}),
    ]
    conv = [  # NHWC input, C_OUT, kernel, stride, padding, dilation, groups, clamp
        ((1, 7, 9, 5), 6, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1, (-np.inf, np.inf)),
        ((2, 6, 5, 6), 9, (2, 3), (2, 1), (1, 0, 2, 1), (1, 2), 3, (-1.0, 1.5)),
        ((1, 8, 7, 4), 8, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 4, (0.0, 6.0)),  # depthwise, multiplier 2
        ((1, 5, 5, 3), 1, (5, 5), (1, 1), (0, 0, 0, 0), (1, 1), 1, (-np.inf, np.inf)),
    ]
    for k, (shape, c_out, (kh, kw), stride, padding, dilation, groups, (low, high)) in enumerate(conv):
        cases.append(Case(f"conv_{k}", "float_conv2d",
                          [_randn(rng, *shape), _randn(rng, c_out, kh, kw, shape[3] // groups), _randn(rng, c_out)],
                          {"stride": stride, "dilation": dilation, "padding": padding, "groups": groups,
                           "activation_min": low, "activation_max": high}))
    edges = np.array([np.nan, 1.0, -np.inf, np.inf, -0.0, 0.0, 3.0], np.float32)
    for function in reference.FLOAT_BINARY_FUNCTIONS:
        for a_shape, b_shape in (((2, 3, 5, 7), (1, 3, 1, 7)), ((1,), (3, 1, 3)), ((6, 1), (1, 7))):
            a, b = _randn(rng, *a_shape), _randn(rng, *b_shape)
            cases.append(Case(f"{function}_{a_shape}_{b_shape}", "float_binary", [a, b], {"function": function}))
        cases.append(Case(f"{function}_edges", "float_binary", [edges, edges[::-1].copy()],
                          {"function": function, "activation_min": -2.0, "activation_max": np.inf}))
    x = np.concatenate([_randn(rng, 113, scale=4.0),
                        np.array([0.0, -0.0, 1e-30, -1e-30, 88.0, -88.0, 1e6, -1e6, np.inf, -np.inf], np.float32)])
    for function in reference.FLOAT_UNARY_FUNCTIONS:
        cases.append(Case(f"unary_{function}", "float_unary", [x], {"function": function, "alpha": 0.125,
                          "min": -0.5, "max": 2.0}, libm=function in reference.FLOAT_LIBM_FUNCTIONS))
    for shape in ((3, 10), (2, 3, 17), (1, 1)):
        cases.append(Case(f"softmax_{shape}", "float_softmax", [_randn(rng, *shape, scale=5.0)], {}, libm=True))
    for shape in ((5, 33), (2, 3, 8), (1, 1)):
        cases.append(Case(f"layer_norm_{shape}", "float_layer_norm",
                          [_randn(rng, *shape, scale=3.0) + 1.0, _randn(rng, shape[-1]), _randn(rng, shape[-1])],
                          {"epsilon": np.float32(1e-5)}))
    pools = [((1, 9, 7, 5), (3, 3), (2, 2), (1, 1, 1, 1)), ((2, 8, 8, 3), (2, 2), (2, 2), (0, 0, 0, 0)),
             ((1, 7, 10, 4), (3, 2), (1, 3), (2, 0, 1, 1)), ((1, 5, 4, 6), (5, 4), (1, 1), (0, 0, 0, 0))]
    for k, (shape, kernel, stride, padding) in enumerate(pools):
        window = {"kernel": kernel, "stride": stride, "padding": padding}
        x = _randn(rng, *shape)
        cases.append(Case(f"max_pool_{k}", "float_max_pool2d", [x], window | {"activation_min": -0.5}))
        for include in (True, False):
            cases.append(Case(f"avg_pool_{k}_{include}", "float_avg_pool2d", [x], window | {"count_include_pad": include}))
    return cases


CASES = _cases()


def _out_shape(case: Case) -> tuple[int, ...]:
    x = case.inputs[0]
    if case.kind == "float_fully_connected":
        return x.shape[:-1] + (case.inputs[1].shape[0],)
    if case.kind == "float_conv2d":
        n, h, w, _ = x.shape
        c_out, kh, kw, _ = case.inputs[1].shape
        (sh, sw), (dh, dw), (top, bottom, left, right) = case.attrs["stride"], case.attrs["dilation"], case.attrs["padding"]
        return (n, reference.output_size(h, kh, sh, dh, top, bottom), reference.output_size(w, kw, sw, dw, left, right), c_out)
    if case.kind in ("float_max_pool2d", "float_avg_pool2d"):
        n, h, w, c = x.shape
        (kh, kw), (sh, sw), (top, bottom, left, right) = case.attrs["kernel"], case.attrs["stride"], case.attrs["padding"]
        return (n, reference.output_size(h, kh, sh, 1, top, bottom), reference.output_size(w, kw, sw, 1, left, right), c)
    if case.kind == "float_binary":
        return np.broadcast_shapes(x.shape, case.inputs[1].shape)
    return x.shape


def batch_program(target: str) -> tuple[Program, dict[str, tuple[int, tuple[int, ...]]]]:
    """All cases in one program: inputs as constants, outputs laid one after another in the
    arena (16-aligned), and program output `all` [arena floats] spanning them."""
    tensors, ops, layout, offset = {}, [], {}, 0
    for k, case in enumerate(CASES):
        names = []
        for i, value in enumerate(case.inputs):
            names.append(f"c{k}_in{i}")
            tensors[names[-1]] = Tensor(names[-1], "float32", value.shape, data=value)
        shape = _out_shape(case)
        out = Tensor(f"c{k}_out", "float32", shape, offset=offset)
        tensors[out.name] = out
        ops.append(Op(case.kind, names, [out.name], dict(case.attrs), origin=case.name))
        layout[case.name] = (offset // 4, shape)
        offset += (out.nbytes + ALIGN - 1) // ALIGN * ALIGN
    tensors["all"] = Tensor("all", "float32", (offset // 4,), offset=0)
    graph = Graph(tensors, ops, [], ["all"], arenas=[Arena("sram", offset)])
    return Program(graph, Target(target), "float_kernels"), layout


def _ordered(values: np.ndarray) -> np.ndarray:
    """float32 bits as integers ordered like the floats (so ULP distance is a difference)."""
    bits = values.view(np.int32).astype(np.int64)
    return np.where(bits < 0, -(bits & 0x7FFFFFFF), bits)


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs(_ordered(np.ascontiguousarray(a, np.float32)) - _ordered(np.ascontiguousarray(b, np.float32)))


def check_outputs(got_all: np.ndarray, program: Program, layout: dict) -> dict[str, int]:
    """Asserts every case against the reference; returns the worst ULP distance of each libm case."""
    want = reference.run(program.graph, [], keep_all=True)
    worst = {}
    for k, case in enumerate(CASES):
        start, shape = layout[case.name]
        got = got_all[start:start + int(np.prod(shape))].reshape(shape)
        expected = want[f"c{k}_out"]
        nan = np.isnan(expected)
        np.testing.assert_array_equal(np.isnan(got), nan, err_msg=case.name)
        if case.libm:
            distance = ulp_distance(got[~nan], expected[~nan])
            with np.errstate(invalid="ignore"):  # inf - inf where both are inf: the ULP test takes them
                close = np.abs(got[~nan].astype(np.float64) - expected[~nan]) <= reference.FLOAT_LIBM_ABS
            worst[case.name] = int(distance[~close].max(initial=0))
            assert worst[case.name] <= reference.FLOAT_LIBM_ULPS, (case.name, worst[case.name])
        else:
            np.testing.assert_array_equal(got[~nan].view(np.int32), expected[~nan].view(np.int32), err_msg=case.name)
    return worst


@pytest.mark.parametrize("board", list(BOARDS))
def test_float_kernels_match_reference(tmp_path, board):
    program, layout = batch_program(BOARDS[board])
    code, console, output = run(board, program, [], tmp_path)
    assert code == 0, console
    got = np.frombuffer(output, np.float32)
    assert got.size == program.graph.tensors["all"].shape[0]
    worst = check_outputs(got, program, layout)
    print(board, "worst libm ULPs:", worst)


def test_bad_function_is_refused_at_load(tmp_path, monkeypatch):
    """A FLOAT_UNARY whose function is past the enum's end fails em_program_load (check())."""
    tensors = {"x": Tensor("x", "float32", (4,), data=np.ones(4, np.float32)),
               "y": Tensor("y", "float32", (4,), offset=0)}
    graph = Graph(tensors, [Op("float_unary", ["x"], ["y"], {"function": "abs"})], [], ["y"], [Arena("sram", 16)])
    program = Program(graph, Target("host"), "bad")
    assert run("host", program, [], tmp_path)[0] == 0
    monkeypatch.setattr(reference, "FLOAT_UNARY_FUNCTIONS", reference.FLOAT_UNARY_FUNCTIONS + ("beyond",))
    graph.ops[0].attrs["function"] = "beyond"  # written as FloatUnaryFunction value 15
    code, console, _ = run("host", program, [], tmp_path)
    assert code != 0 and "EM_ERR_BAD_OPERATOR" in console


def test_stack_bound_resolves_the_float_kernels_function_tables(tmp_path):
    """The float kernels call em_nn_float_fn_* through tables: the static stack bound resolves
    those indirect calls to the table's leaves (not to the op adapters, which would be a cycle)."""
    import sys
    sys.path.insert(0, str(REPO / "site_scons"))
    from ember_build.stack_bound import EXCEPTION_FRAME_BYTES, static_bound

    def node(name: str, size: int) -> str:
        return f'node: {{ title: "{name}" label: "{name}\\nunit.c:1:1\\n{size} bytes (static)" }}'

    def edge(source: str, target: str) -> str:
        return f'edge: {{ sourcename: "{source}" targetname: "{target}" label: "unit.c:2:2" }}'

    graph = [node("Reset_Handler", 8), node("em_program_invoke", 40), node("em_funary_eval", 24),
             node("em_float_unary_f32", 32), node("em_nn_float_fn_gelu", 16), node("em_nn_float_fn_abs", 0),
             edge("Reset_Handler", "em_program_invoke"), edge("em_program_invoke", "__indirect_call"),
             edge("em_funary_eval", "em_float_unary_f32"), edge("em_float_unary_f32", "__indirect_call")]
    (tmp_path / "unit.ci").write_text('graph: { title: "unit.c"\n' + "\n".join(graph) + "\n}\n")
    bound = static_bound([tmp_path / "unit.ci"])
    assert bound.bytes == 8 + 40 + 24 + 32 + 16 + EXCEPTION_FRAME_BYTES, bound.reason
    assert bound.path[:5] == ["Reset_Handler", "em_program_invoke", "em_funary_eval", "em_float_unary_f32",
                              "em_nn_float_fn_gelu"]
