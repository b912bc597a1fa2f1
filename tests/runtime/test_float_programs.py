"""The float fallback kernels' checks beside their numbers: a function past the enum's end is
refused at load, and the static stack bound follows their function tables. Every float op
against compiler/reference.py on every device (bit for bit, libm functions within
reference.FLOAT_LIBM_ULPS) is the conformance suite's (tests/kernels/cases/float_*.py)."""
from __future__ import annotations

import numpy as np

from compiler import reference
from compiler.ir import Arena, Graph, Op, Tensor
from compiler.program import Program
from compiler.target import Target
from tests.integration.runners import REPO, run


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
