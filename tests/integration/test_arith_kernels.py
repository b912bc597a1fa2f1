"""The arithmetic kernels (minimum, maximum, add with a negated multiplier = sub, transposed
conv2d, batched matmul) on every tier — the host, Cortex-M55 (MVE), M4 (DSP) and M3 (scalar) in
QEMU — byte for byte against compiler/reference.py. All cases are independent ops over constant
operands in ONE program, one output each, so each board runs them in one launch. Malformed
operators are refused at load."""
from __future__ import annotations

import numpy as np
import pytest

from compiler.fixedpoint import quantize_multiplier
from compiler.ir import Graph, Op, Quant, Tensor
from compiler.planner import Region, plan_memory
from compiler.program import Program
from compiler.reference import ADD_LEFT_SHIFT, transpose_output_size
from compiler.target import Target
from tests.integration.runners import TIER_DEVICES, outputs_of, run

QUANT = Quant.per_tensor(0.05, 0)
OUT = (2, 3, 5, 17)
# (a shape, b shape) of the min / max cases: same shape, row, scalar (either side), rank-1 row,
# and a row shorter than a DSP word
MIN_MAX_CASES = [("minimum", OUT, OUT), ("maximum", OUT, (1, 1, 1, 17)), ("minimum", (1,), OUT),
                 ("maximum", (17,), OUT), ("minimum", (3, 3), (1, 3))]
# (N, H, W, C_IN), C_OUT, (KH, KW), stride, (top, bottom, left, right): negative bottom / right
# are PyTorch's output_padding
TCONV_CASES = [((1, 5, 7, 3), 4, (3, 3), (2, 2), (1, 0, 1, 0)), ((2, 4, 3, 5), 3, (4, 4), (2, 2), (1, 1, 1, 1)),
               ((1, 3, 6, 2), 5, (2, 3), (3, 2), (0, -2, 1, 0)), ((1, 7, 4, 9), 6, (5, 3), (2, 3), (2, 1, 0, -2))]
# (a shape, b shape, a zero point, b zero point)
BMM_CASES = [((2, 5, 7), (2, 7, 3), -128, 127), ((3, 1, 33), (3, 33, 9), 127, -128), ((4, 6), (6, 5), 0, 3),
             ((2, 8, 64), (2, 64, 8), -5, -128)]


def _codes(rng: np.random.Generator, shape) -> np.ndarray:
    x = rng.integers(-128, 128, size=shape).astype(np.int8)
    x.reshape(-1)[[0, -1]] = (-128, 127) if x.size > 1 else (127, 127)
    return x


class _Builder:
    """Independent ops over constants, each with its own graph output."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.tensors: dict[str, Tensor] = {}
        self.ops: list[Op] = []

    def constant(self, dtype: str, values: np.ndarray) -> str:
        name = f"c{len(self.tensors)}"
        self.tensors[name] = Tensor(name, dtype, values.shape, QUANT, values)
        return name

    def op(self, kind: str, inputs: list[str], out_shape, attrs: dict) -> None:
        name = f"y{len(self.ops)}"
        self.tensors[name] = Tensor(name, "int8", out_shape, QUANT)
        self.ops.append(Op(kind, inputs, [name], attrs))

    def program(self, target: str) -> Program:
        graph = Graph(dict(self.tensors), list(self.ops), [], [op.outputs[0] for op in self.ops])
        return Program(graph, Target(target), "arith", plan_memory(graph, Region("sram", 1 << 20)))


def _elementwise_and_sub(b: _Builder) -> None:
    for kind, a_shape, b_shape in MIN_MAX_CASES:
        inputs = [b.constant("int8", _codes(b.rng, a_shape)), b.constant("int8", _codes(b.rng, b_shape))]
        b.op(kind, inputs, np.broadcast_shapes(a_shape, b_shape), {})
    for (a_shape, b_shape), (zp_a, zp_b, zp_out), scales in [
            ((OUT, (1, 1, 1, 17)), (-128, 127, 5), (0.02, 0.5, 0.3)),
            (((1,), OUT), (127, -128, 0), (0.1, 0.1, 0.2)),
            ((OUT, OUT), (3, -7, 127), (0.4, 0.01, 0.05))]:
        twice = 2 * max(scales[:2])
        (ma, sa), (mb, sb) = (quantize_multiplier(s / twice) for s in scales[:2])
        mo, so = quantize_multiplier(twice / ((1 << ADD_LEFT_SHIFT) * scales[2]))
        attrs = dict(a_offset=-zp_a, a_multiplier=ma, a_shift=sa, b_offset=-zp_b, b_multiplier=-mb, b_shift=sb,
                     output_offset=zp_out, output_multiplier=mo, output_shift=so, activation_min=-120,
                     activation_max=127)
        inputs = [b.constant("int8", _codes(b.rng, a_shape)), b.constant("int8", _codes(b.rng, b_shape))]
        b.op("add", inputs, np.broadcast_shapes(a_shape, b_shape), attrs)


def _products(b: _Builder) -> None:
    for k, (x_shape, c_out, kernel, stride, pads) in enumerate(TCONV_CASES):
        x = _codes(b.rng, x_shape)
        w = _codes(b.rng, (c_out, *kernel, x_shape[3]))
        bias = b.rng.integers(-20000, 20000, c_out).astype(np.int32)
        multiplier, shift = zip(*(quantize_multiplier(float(r)) for r in 2.0 ** b.rng.uniform(-12, -6, c_out)))
        if k == 1:
            shift = (1,) * c_out  # a left shift: the saturating pre-shift of the requantization
        n, h, w_in, _ = x_shape
        out_shape = (n, transpose_output_size(h, kernel[0], stride[0], pads[0], pads[1]),
                     transpose_output_size(w_in, kernel[1], stride[1], pads[2], pads[3]), c_out)
        attrs = dict(stride=stride, padding=pads, input_offset=(128, -127, 0, 9)[k], output_offset=(-3, 127, -128, 0)[k],
                     activation_min=-128 if k % 2 else -100, activation_max=127 if k % 2 else 90,
                     multiplier=np.array(multiplier, np.int32), shift=np.array(shift, np.int32))
        b.op("transpose_conv2d", [b.constant("int8", x), b.constant("int8", w), b.constant("int32", bias)],
             out_shape, attrs)
    for a_shape, b_shape, zp_a, zp_b in BMM_CASES:
        multiplier, shift = quantize_multiplier(float(2.0 ** b.rng.uniform(-16, -11)))
        attrs = dict(a_offset=-zp_a, b_offset=-zp_b, output_offset=zp_a // 2, output_multiplier=multiplier,
                     output_shift=shift, activation_min=-128, activation_max=127)
        out_shape = (*a_shape[:-1], b_shape[-1])
        b.op("batch_matmul", [b.constant("int8", _codes(b.rng, a_shape)), b.constant("int8", _codes(b.rng, b_shape))],
             out_shape, attrs)


def _program(target: str) -> Program:
    """Every case in one program: 16 outputs, em_run's limit."""
    builder = _Builder(1)
    _elementwise_and_sub(builder)
    _products(builder)
    return builder.program(target)


@pytest.mark.parametrize("board,target", TIER_DEVICES)
def test_arith_kernels_equal_reference(tmp_path, board, target):
    program = _program(target)
    want = program.run_reference()
    got = outputs_of(board, program, [], tmp_path)
    assert len(got) == 16
    for name, data, expected in zip(program.graph.outputs, got, want):
        assert len(np.unique(expected)) > 1, name  # not all clamped
        np.testing.assert_array_equal(np.frombuffer(data, np.int8).reshape(expected.shape), expected,
                                      err_msg=f"{board} {name} {program.graph.producer(name).kind}")


def _refused(tmp_path, kind: str, inputs: list[tuple[str, np.ndarray]], out_shape, attrs: dict) -> None:
    b = _Builder(0)
    b.op(kind, [b.constant(dtype, values) for dtype, values in inputs], out_shape, attrs)
    code, console, _ = run("host", b.program("host"), [], tmp_path)
    assert code != 0 and "EM_ERR_BAD_OPERATOR" in console, console


def test_malformed_operators_are_refused_at_load(tmp_path):
    i8 = lambda *shape: ("int8", np.zeros(shape, np.int8))  # noqa: E731
    _refused(tmp_path, "maximum", [i8(2, 3, 5, 2), i8(1, 1, 1, 17)], (2, 3, 5, 17), {})  # does not broadcast
    _refused(tmp_path, "minimum", [i8(2, 3, 5, 1), i8(1, 1, 1, 17)], (2, 3, 5, 1), {})  # y is not the broadcast
    bmm = dict(a_offset=0, b_offset=0, output_offset=0, output_multiplier=1 << 30, output_shift=0,
               activation_min=-128, activation_max=127)
    _refused(tmp_path, "batch_matmul", [i8(2, 3, 4), i8(2, 5, 6)], (2, 3, 6), bmm)  # depths differ
    _refused(tmp_path, "batch_matmul", [i8(2, 3, 4), i8(2, 4, 6)], (2, 3, 6), bmm | {"b_offset": 129})
    tconv = dict(stride=(2, 2), padding=(0, 0, 0, 0), input_offset=0, output_offset=0, activation_min=-128,
                 activation_max=127, multiplier=np.full(2, 1 << 30, np.int32), shift=np.zeros(2, np.int32))
    weights = [i8(1, 4, 4, 3), i8(2, 3, 3, 3), ("int32", np.zeros(2, np.int32))]
    _refused(tmp_path, "transpose_conv2d", weights, (1, 10, 10, 2), tconv)  # 9 x 9, not 10 x 10
    _refused(tmp_path, "transpose_conv2d", weights, (1, 9, 9, 2), tconv | {"shift": np.full(2, 31, np.int32)})
