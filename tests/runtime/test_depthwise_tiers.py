"""Depthwise conv2d on every tier's QEMU board (corstone300 mve, mps2_an386 dsp, mps2_an385
scalar) and the host, against compiler.reference byte for byte: each path of the kernels
(em_depthwise_conv2d_m1_s8.c's tap tables for M = 1, its Helium forms: 16-channel groups with
a predicated tail, 3x3 unrolled, positive pre-shift, 4-pixel blocks of inner pixels; the general path for M > 1, for weights of
−128 on Helium and for C < 16 there) and their edges: channel tails, stride 2, asymmetric
padding, dilation, odd kernels, edge values −128 / 127 and zero points at both ends.

Each layer is one program (em_run writes one output); input shapes follow the list, so layer
i + 1 takes layer i's output shape."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from build_host import build_em_run, build_em_run_firmware
from compiler import kernel_variants as kv
from compiler import reference
from compiler.fixedpoint import quantize_multiplier
from compiler.ir import Graph, Op, Quant, Tensor
from compiler.planner import Region, plan_memory
from compiler.target import Target
from compiler.writer import write_program
from ember_build.board import load_board, one_board_per_tier
from test_em_run_qemu import qemu

# board -> CPU: the host and a QEMU board of each tier (bsp/): corstone300, mps2_an386, mps2_an385
BOARDS = {b.name: b.cpu for b in [load_board("host"), *one_board_per_tier()]}


def dw_layer(rng, c: int, *, k=(3, 3), m=1, stride=(1, 1), dilation=(1, 1), padding=(1, 1, 1, 1),
             in_zp=0, out_zp=0, act=(-128, 127), w_min=-127, big_shift=False):
    w = rng.integers(w_min, 128, size=(k[0], k[1], c * m), dtype=np.int8)
    w.reshape(-1)[:3] = [w_min, 127, w_min]
    spread = float(np.log2(0.012 / np.sqrt(k[0] * k[1])))
    reals = 2.0 ** rng.uniform(spread - 1.0, spread + 1.0, size=c * m)
    if big_shift:  # shift > −2 on some channels: the saturating pre-shift
        reals[1::5] = 3.0
    pairs = [quantize_multiplier(float(r)) for r in reals]
    bias = rng.integers(-20000, 20000, size=c * m, dtype=np.int32)
    attrs = dict(stride=stride, dilation=dilation, padding=padding, input_zero_point=in_zp,
                 output_offset=out_zp, activation_min=act[0], activation_max=act[1], depth_multiplier=m,
                 multiplier=np.array([p for p, _ in pairs], np.int32),
                 shift=np.array([s for _, s in pairs], np.int32))
    return w, bias, attrs


def chain(input_shape, layers) -> Graph:
    """x -> layer 0 -> ... -> the last layer's output."""
    tensors = {"x": Tensor("x", "int8", input_shape, Quant.per_tensor(0.05, layers[0][2]["input_zero_point"]))}
    ops, shape, prev = [], tuple(input_shape), "x"
    for i, (w, bias, attrs) in enumerate(layers):
        kh, kw, c_out = w.shape
        oh = reference.output_size(shape[1], kh, attrs["stride"][0], attrs["dilation"][0], *attrs["padding"][:2])
        ow = reference.output_size(shape[2], kw, attrs["stride"][1], attrs["dilation"][1], *attrs["padding"][2:])
        shape = (shape[0], oh, ow, c_out)
        tensors[f"w{i}"] = Tensor(f"w{i}", "int8", w.shape, data=w)
        tensors[f"b{i}"] = Tensor(f"b{i}", "int32", bias.shape, data=bias)
        tensors[f"y{i}"] = Tensor(f"y{i}", "int8", shape, Quant.per_tensor(0.1, attrs["output_offset"]))
        ops.append(Op("depthwise_conv2d", [prev, f"w{i}", f"b{i}"], [f"y{i}"], dict(attrs), origin="test"))
        prev = f"y{i}"
    graph = Graph(tensors, ops, ["x"], [prev])
    plan_memory(graph, Region("sram", 1 << 20))
    return graph


def _chains():
    rng = np.random.default_rng(7)
    return {
        # 16-channel groups + a tail of 3; then stride 2 with TFLite's asymmetric "same" padding
        # (zero points at the ends, a clamp); then a 5x3 kernel (15 taps: a single tap after the
        # pairs), dilation 2 rows, padding past one side only.
        "fast": ((1, 9, 7, 35), [
            dw_layer(rng, 35, in_zp=-128, out_zp=127),
            dw_layer(rng, 35, stride=(2, 2), padding=(0, 1, 0, 1), in_zp=127, out_zp=-128, act=(-100, 90)),
            dw_layer(rng, 35, k=(5, 3), dilation=(2, 1), padding=(4, 3, 0, 2), in_zp=5, out_zp=-3),
        ]),
        # Positive pre-shifts; a weight of −128 (Helium: general path); C = 32 exactly, then 1x1.
        "shifts": ((2, 6, 5, 32), [
            dw_layer(rng, 32, big_shift=True, in_zp=-7),
            dw_layer(rng, 32, w_min=-128, in_zp=-128, out_zp=-128),
            dw_layer(rng, 32, k=(1, 1), padding=(0, 0, 0, 0), stride=(1, 2), in_zp=-128),
        ]),
        # Few channels (C < 16 takes Helium's general path; an odd count), depth multipliers > 1,
        # 3x3 on a 1-pixel-wide map, then C = 18 (4-channel words and a tail of 2).
        "small": ((1, 5, 1, 3), [
            dw_layer(rng, 3, in_zp=127, out_zp=3),
            dw_layer(rng, 3, m=2, in_zp=3),
            dw_layer(rng, 6, m=3, k=(2, 1), padding=(1, 0, 0, 0), in_zp=-1),
            dw_layer(rng, 18, k=(3, 3), padding=(1, 1, 1, 1), in_zp=-128),
        ]),
        # Helium's 4-pixel blocks (3x3, stride 1, C % 4 == 0, 4-channel lanes) on zero-point
        # padded row copies: C = 36 (groups across 16-lane boundaries), 2 images, rows of 11
        # (two blocks and 3 pixels), a clamp, dilation 2 rows and 2 padded rows, then no padding.
        "blocks": ((2, 8, 11, 36), [
            dw_layer(rng, 36, in_zp=-128, out_zp=127, act=(-100, 90)),
            dw_layer(rng, 36, dilation=(2, 1), padding=(2, 2, 1, 1), in_zp=127, out_zp=-128),
            dw_layer(rng, 36, padding=(0, 0, 0, 0), in_zp=5, out_zp=-3),
        ]),
        # Rows too long for the copies (3 x 42 x 36 bytes > EM_NN_DWF_ROWS_MAX): blocks of inner
        # pixels only, the border and the last inner pixel through tap tables; right padding of 2.
        "blocks_wide": ((1, 4, 40, 36), [
            dw_layer(rng, 36, in_zp=-1, out_zp=5),
            dw_layer(rng, 36, padding=(1, 1, 0, 2), in_zp=-128, act=(-90, 100)),
        ]),
        # C = 8 and 12 (< 32: blocks only; Helium's general path otherwise), a positive pre-shift
        # on C = 12 (general path), one 5-wide row (a block and a pixel).
        "blocks_narrow": ((1, 6, 5, 8), [
            dw_layer(rng, 8, in_zp=127, out_zp=-128),
            dw_layer(rng, 8, m=1, k=(3, 3), padding=(0, 0, 1, 1), in_zp=-128),
        ]),
        # Helium's walk over the input with tap tables (rows of 3 x 93 x 16 bytes, too long to
        # stage): stride 2 and dilation 2, a padded column past the input on the right.
        "taps_wide": ((1, 5, 90, 16), [
            dw_layer(rng, 16, stride=(2, 2), dilation=(2, 2), padding=(2, 2, 2, 2), in_zp=-128, out_zp=3),
        ]),
        "blocks_narrow_shift": ((1, 3, 6, 12), [
            dw_layer(rng, 12, big_shift=True, in_zp=0),
            dw_layer(rng, 12, in_zp=-3, act=(-50, 50)),
        ]),
    }


CHAINS = _chains()


@pytest.fixture(scope="module", params=list(BOARDS))
def device(request):
    board = request.param
    if board == "host":
        return board, build_em_run()
    return board, build_em_run_firmware(board)


# Helium's fast-path walks the compiler chooses for the chains above (kernel_variants):
# a limit moved in the kernels must not silently leave a walk untested.
HELIUM_WALKS = {"blocks": "DWF_MVE_ROWS", "fast": "DWF_MVE_ROWS", "blocks_wide": "DWF_MVE_TAPS",
                "taps_wide": "DWF_MVE_TAPS"}


@pytest.mark.parametrize("name, walk", list(HELIUM_WALKS.items()))
def test_each_helium_walk_is_exercised(name, walk):
    shape, layers = CHAINS[name]
    taken = kv.linked_variants(chain(shape, [layers[0]]), "mve")
    assert walk in taken and ({"DWF_MVE_ROWS", "DWF_MVE_TAPS"} - {walk}).isdisjoint(taken), taken


@pytest.mark.parametrize("name", list(CHAINS))
def test_depthwise_paths_match_reference(device, tmp_path: Path, name: str):
    import subprocess

    board, exe = device
    shape, layers = CHAINS[name]
    rng = np.random.default_rng(len(name))
    for i, layer in enumerate(layers):
        graph = chain(shape, [layer])
        x = rng.integers(-128, 128, size=shape, dtype=np.int8)
        x.reshape(-1)[: 2 * shape[3]] = -128
        x.reshape(-1)[-2 * shape[3]:] = 127
        want = reference.run(graph, [x])[graph.outputs[0]]
        (tmp_path / "p.embr").write_bytes(write_program(graph, Target(BOARDS[board])))
        (tmp_path / "in.bin").write_bytes(x.tobytes())
        args = "p.embr --input in.bin --output out.bin"
        if board == "host":
            result = subprocess.run([str(exe), *args.split()], cwd=tmp_path, capture_output=True,
                                    text=True, timeout=60)
        else:
            result = qemu(exe, tmp_path, args, board=board)
        assert result.returncode == 0, result.stdout + result.stderr
        got = np.frombuffer((tmp_path / "out.bin").read_bytes(), np.int8).reshape(want.shape)
        np.testing.assert_array_equal(got, want, err_msg=f"{board} {name} layer {i}")
        shape = want.shape
