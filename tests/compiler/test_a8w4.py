"""A8W4: the quantizer's precision options, int4 weights through lowering and the program file, the
reference against PyTorch's quantized model, and the reports' precision column."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

import compiler
from compiler.errors import ModelError
from compiler.frontend import export_float
from compiler.layers import constant_rows, layer_rows
from compiler.quantizer import CortexMQuantizer
from compiler.reader import read_program
from tools.debug_numerics import op_by_op_lsb

WEIGHTED = ("conv2d", "depthwise_conv2d", "transpose_conv2d", "fully_connected")


class Block(nn.Module):
    def __init__(self, c_in: int, c_out: int) -> None:
        super().__init__()
        self.depthwise = nn.Conv2d(c_in, c_in, 3, padding=1, groups=c_in)
        self.pointwise = nn.Conv2d(c_in, c_out, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.pointwise(torch.relu(self.depthwise(x))))


class Net(nn.Module):
    """Every op with an int4 kernel: conv2d, depthwise, transposed conv, linear, matmul by a constant."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 12, 3, padding=1)
        self.block = Block(12, 17)
        self.up = nn.ConvTranspose2d(17, 5, 2, stride=2)
        self.head = nn.Linear(5 * 14 * 14, 33)
        self.project = nn.Parameter(torch.randn(33, 9))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.up(self.block(torch.relu(self.stem(x))))
        return torch.matmul(self.head(x.flatten(1)), self.project)


def _annotations(quantizer: CortexMQuantizer, model: nn.Module, example: torch.Tensor) -> dict:
    graph = quantizer.annotate(export_float(model, (example,)))
    return {n.name: n for n in graph.graph.nodes if n.op == "call_function"}


def _weight_range(node) -> tuple[int, int]:
    spec = node.meta["quantization_annotation"].input_qspec_map[node.args[1]]
    return spec.quant_min, spec.quant_max


def test_precision_options_choose_the_most_specific_first():
    model, example = Net().eval(), torch.randn(1, 3, 7, 7)
    quantizer = CortexMQuantizer(precision="a8w4", precision_modules={"block": "a8w8", "block.pointwise": "a8w4"},
                                 precision_module_types={nn.ConvTranspose2d: "a8w8"}, precision_ops={"linear": "a8w8"})
    nodes = _annotations(quantizer, model, example)
    assert _weight_range(nodes["conv2d"]) == (-7, 7)  # stem: the default
    assert _weight_range(nodes["conv2d_1"]) == (-127, 127)  # block.depthwise: "block"
    assert _weight_range(nodes["conv2d_2"]) == (-7, 7)  # block.pointwise: the longer name wins
    assert _weight_range(nodes["conv_transpose2d"]) == (-127, 127)  # its type
    assert _weight_range(nodes["linear"]) == (-127, 127)  # its op
    assert quantizer.precision_of(nodes["conv2d_2"]) == ("a8w4", "precision_modules 'block.pointwise'")
    assert quantizer.precision_of(nodes["conv2d"]) == ("a8w4", "default")


def test_default_quantizer_keeps_int8_weights():
    nodes = _annotations(CortexMQuantizer(), Net().eval(), torch.randn(1, 3, 7, 7))
    assert all(_weight_range(nodes[n]) == (-127, 127) for n in ("conv2d", "conv2d_1", "linear", "conv_transpose2d"))


@pytest.mark.parametrize("options, error", [
    (dict(precision="int4"), ValueError), (dict(precision_modules={"stem": "a4w4"}), ValueError),
    (dict(precision_modules=["stem"]), TypeError), (dict(precision_module_types={"Conv2d": "a8w4"}), TypeError)])
def test_bad_precision_options_are_named(options, error):
    with pytest.raises(error, match="precision"):
        CortexMQuantizer(**options)


def test_a_misspelt_precision_module_is_a_model_error():
    with pytest.raises(ModelError, match="precision_modules names 'blok'.*closest: block"):
        CortexMQuantizer(precision_modules={"blok": "a8w4"}).check_names(Net())


@pytest.fixture(scope="module")
def programs() -> dict:
    torch.manual_seed(3)
    model = Net().eval()
    example = (torch.randn(1, 3, 7, 7),)
    calibration = [torch.randn(1, 3, 7, 7) for _ in range(6)]
    return {precision: compiler.lower(model, example, calibration, "cortex-m55", report_fallbacks=False,
                                      quantizer=CortexMQuantizer(precision=precision))
            for precision in ("a8w8", "a8w4")}


def _weights(graph) -> dict[str, object]:
    return {op.kind + str(i): graph.tensors[op.inputs[1]] for i, op in enumerate(graph.ops) if op.kind in WEIGHTED}


def test_every_weighted_op_stores_int4_weights_two_to_a_byte(programs):
    graph, _, _ = read_program(programs["a8w4"].to_bytes())
    int8_graph, _, _ = read_program(programs["a8w8"].to_bytes())
    weights, int8_weights = _weights(graph), _weights(int8_graph)
    assert len(weights) == 6 and {w.dtype for w in weights.values()} == {"int4"}
    for key, w in weights.items():
        rows = w.shape[0] if len(w.shape) > 1 else 1
        per_row = int(np.prod(w.shape)) // rows
        assert w.nbytes == rows * ((per_row + 1) // 2) and w.data.min() >= -8 and w.data.max() <= 7
        assert int8_weights[key].dtype == "int8" and int8_weights[key].shape == w.shape
    assert len(programs["a8w4"].to_bytes()) < 0.62 * len(programs["a8w8"].to_bytes())


def test_int4_program_within_one_lsb_of_pytorch(programs):
    program = programs["a8w4"]
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1, 3, 7, 7)).astype(np.float32)
    ours = [x.transpose(0, 2, 3, 1)]
    assert max(lsb for *_, lsb in op_by_op_lsb(program, ours)) <= 1
    theirs = program.quantized_model(torch.from_numpy(x)).detach().numpy()
    scale = float(program.graph.producer(program.graph.outputs[0]).attrs["scale"])
    assert np.abs(np.rint((program.run_reference(*ours)[0] - theirs) / scale)).max() <= 1


def test_reports_show_each_layers_precision(programs):
    graph = programs["a8w4"].graph
    rows = {row["op"] + row["layer"]: row["precision"] for row in layer_rows(graph)}
    assert rows["conv2dstem"] == "a8w4" and rows["depthwise_conv2dblock.depthwise"] == "a8w4"
    assert rows["quantize" + "quantize"] == "a8" and rows["dequantize" + "dequantize"] == "a8"
    assert {row["precision"] for row in layer_rows(programs["a8w8"].graph) if row["op"] in WEIGHTED} == {"a8w8"}
    constants = constant_rows(graph)
    assert [r["precision"] for r in constants if r["op"] in WEIGHTED] == ["a8w4"] * 6
    assert sum(r["bytes"] for r in constants) == sum(t.nbytes for t in graph.tensors.values() if t.is_constant)
    from compiler.inspection import describe, text

    lines = text(describe(programs["a8w4"])).splitlines()
    header = next(line for line in lines if "kernel variant" in line)
    assert header.split()[4] == "precision"
    assert sum("a8w4" in line for line in lines) == 6
