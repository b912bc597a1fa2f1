"""The int16 (A16W8) kernels of the non-weighted ops together in one program, as an A16W8 region
between int8 ones has them: float32 -> quantize (int16) -> max_pool2d and avg_pool2d of it ->
add of the two -> pad (A16W8's zero border) -> requantize int16 -> int8 -> requantize int8 -> int16
-> requantize int16 -> int16 (in place where the planner lets it) -> dequantize (float32), planned
into one arena, byte for byte against compiler/reference.py on the host and on every tier in QEMU
(the single ops are tests/kernels/cases/'s)."""
from __future__ import annotations

import numpy as np
import pytest

from compiler import reference
from compiler.fixedpoint import quantize_multiplier
from compiler.ir import Graph, Op, Quant, Tensor
from compiler.planner import Region, plan_memory
from compiler.schema import program_generated as fb
from compiler.writer import write_program
from conformance import ARENA_BYTES, Device, run_batch

SHAPE = (1, 9, 11, 17)
S16 = 4.0 / 32768  # the int16 region's scale (zero point 0)


def _t(name: str, dtype: str, shape, scale: float | None = None, zero_point: int = 0) -> Tensor:
    return Tensor(name, dtype, tuple(shape), None if scale is None else Quant.per_tensor(scale, zero_point))


def chain() -> Graph:
    n, h, w, c = SHAPE
    window = dict(kernel=(3, 3), stride=(2, 2), padding=(1, 1, 1, 1), activation_min=-32768, activation_max=32767)
    oh, ow = reference.output_size(h, 3, 2, 1, 1, 1), reference.output_size(w, 3, 2, 1, 1, 1)
    pooled = (n, oh, ow, c)
    padded = (n, oh + 1, ow + 3, c)
    s_sum, s8 = 2 * S16, 0.04
    twice = 2 * max(S16, S16)
    ma, sa = quantize_multiplier(S16 / twice)
    mo, so = quantize_multiplier(twice / ((1 << reference.ADD_LEFT_SHIFT_S16) * s_sum))
    m_down, s_down = quantize_multiplier(s_sum / s8)
    m_up, s_up = quantize_multiplier(s8 / S16)
    m_same, s_same = quantize_multiplier(S16 / (S16 * 1.5))
    tensors = {t.name: t for t in [
        _t("x", "float32", SHAPE), _t("q", "int16", SHAPE, S16), _t("mx", "int16", pooled, S16),
        _t("av", "int16", pooled, S16), _t("sum", "int16", pooled, s_sum), _t("pad", "int16", padded, s_sum),
        _t("down", "int8", padded, s8, -5), _t("up", "int16", padded, S16), _t("same", "int16", padded, S16 * 1.5),
        _t("y", "float32", padded)]}
    ops = [
        Op("quantize", ["x"], ["q"], {"inv_scale": np.float32(1 / S16), "zero_point": 0, "output_type": fb.DType.INT16}),
        Op("max_pool2d", ["q"], ["mx"], dict(window)),
        Op("avg_pool2d", ["q"], ["av"], dict(window, count_include_pad=False, zero_point=0)),
        Op("add", ["mx", "av"], ["sum"], dict(a_offset=0, a_multiplier=ma, a_shift=sa, b_offset=0, b_multiplier=ma,
                                              b_shift=sa, output_offset=0, output_multiplier=mo, output_shift=so,
                                              activation_min=-32768, activation_max=32767)),
        Op("pad", ["sum"], ["pad"], {"before": [0, 1, 2, 0], "after": [0, 0, 1, 0], "value": 0}),
        Op("requantize", ["pad"], ["down"], {"input_offset": 0, "output_offset": -5, "output_multiplier": m_down,
                                             "output_shift": s_down, "output_type": fb.DType.INT8}),
        Op("requantize", ["down"], ["up"], {"input_offset": 5, "output_offset": 0, "output_multiplier": m_up,
                                            "output_shift": s_up, "output_type": fb.DType.INT16}),
        Op("requantize", ["up"], ["same"], {"input_offset": 0, "output_offset": 0, "output_multiplier": m_same,
                                            "output_shift": s_same, "output_type": fb.DType.INT16}),
        Op("dequantize", ["same"], ["y"], {"scale": np.float32(S16 * 1.5), "zero_point": 0}),
    ]
    graph = Graph(tensors, ops, ["x"], ["y"])
    plan_memory(graph, Region("sram", ARENA_BYTES))
    return graph


def _input() -> np.ndarray:
    rng = np.random.default_rng(1616)
    x = (rng.standard_normal(SHAPE) * 1.5).astype(np.float32)
    x.reshape(-1)[:4] = [5.0, -5.0, 3.99, -4.0]  # past both ends of the int16 range, and at them
    return x


DEVICES = [Device("host", "host"), Device("corstone300", "corstone300"), Device("mps2_an386", "mps2_an386"),
           Device("mps2_an385", "mps2_an385")]


@pytest.mark.parametrize("device", [pytest.param(d, marks=[] if d.name == "host" else [pytest.mark.qemu])
                                    for d in DEVICES], ids=lambda d: d.name)
def test_an_a16w8_chain_runs_bit_exact(device: Device, tmp_path):
    graph, x = chain(), _input()
    want = np.ascontiguousarray(reference.run(graph, [x])[graph.outputs[0]], np.float32)
    assert np.abs(want).max() > 0.5  # the chain carries signal to its end
    program = write_program(graph, device.target)
    (verdict,) = run_batch(device, device.build_runner(), [(program, [x.tobytes()], want.tobytes())],
                           tmp_path).verdicts
    assert verdict.matched, (verdict.status, verdict.detail, verdict.console)
