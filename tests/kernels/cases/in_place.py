"""In place: conv2d, depthwise_conv2d and the elementwise ops with the output overlapping the
input as tightly as compiler/ops/overlap.py allows (offset(input) − offset(output) = the margin
rounded up to the arena alignment), so that a kernel that wrote a byte before its last read of it
would fail here on its tier. Shapes of the MLPerf layers (DS-CNN 1x1 / 3x3 depthwise, ResNet 3x3,
MobileNet expansion and stride 2) and the paths each kernel takes: Helium conv blocks of 4 columns
with and without scratch, DSP pixel pairs; depthwise fast-path rows copy, 4-pixel blocks,
per-pixel tap tables; batches, dilation, groups, channel tails."""
from __future__ import annotations

import numpy as np

from compiler import planner
from conformance import (Case, conv_case, edge_int8, elementwise_cases, int8_tensor, requantization, rng_for,
                         single_op)

# name: (input NHWC, kernel, C_OUT, groups, stride, dilation, padding (t, b, l, r), input zp)
CONV = {
    "1x1_c64_dscnn": ((1, 25, 5, 64), (1, 1), 64, 1, (1, 1), (1, 1), (0, 0, 0, 0), -128),
    "3x3_c16_resnet": ((1, 12, 11, 16), (3, 3), 16, 1, (1, 1), (1, 1), (1, 1, 1, 1), 127),
    "3x3_s2_c16_o32": ((1, 9, 10, 16), (3, 3), 32, 1, (2, 2), (1, 1), (0, 1, 0, 1), 0),
    "1x1_c8_o16_expand": ((1, 12, 12, 8), (1, 1), 16, 1, (1, 1), (1, 1), (0, 0, 0, 0), 3),
    "10x4_s2_c1_o64_dscnn": ((1, 49, 10, 1), (10, 4), 64, 1, (2, 2), (1, 1), (4, 5, 1, 2), -128),
    "3x3_c128_no_scratch": ((1, 4, 3, 128), (3, 3), 7, 1, (1, 1), (1, 1), (1, 1, 1, 1), 127),
    "3x3_groups4_c32": ((1, 6, 5, 32), (3, 3), 32, 4, (1, 1), (1, 1), (1, 0, 2, 1), 5),
    "5x3_dil2_c17": ((1, 9, 8, 17), (5, 3), 17, 1, (1, 1), (2, 2), (4, 4, 2, 2), -7),
    "1x1_c17_o15": ((1, 5, 7, 17), (1, 1), 15, 1, (1, 1), (1, 1), (0, 0, 0, 0), 1),
    "3x3_b2_c5": ((2, 6, 7, 5), (3, 3), 5, 1, (1, 1), (1, 1), (1, 1, 1, 1), -128),
}

# name: (input NHWC, kernel, stride, dilation, padding, input zp); every case takes the pixel-order
# fast path on Helium (C >= 32 as compiler/ops/overlap.py asks, or 3x3 stride-1 blocks with C % 4 == 0
# and shifts <= -2)
DEPTHWISE = {
    "3x3_c64_dscnn_rows": ((1, 25, 5, 64), (3, 3), (1, 1), (1, 1), (1, 1, 1, 1), -128),
    "3x3_c32_wide_tables": ((1, 5, 44, 32), (3, 3), (1, 1), (1, 1), (1, 1, 1, 1), 127),  # rows > 4096 B: tap tables
    "3x3_c8_blocks": ((1, 12, 12, 8), (3, 3), (1, 1), (1, 1), (1, 1, 1, 1), 0),
    "3x3_s2_c32": ((1, 9, 9, 32), (3, 3), (2, 2), (1, 1), (0, 1, 0, 1), 3),
    "3x3_dil2_c48": ((1, 9, 8, 48), (3, 3), (1, 1), (2, 2), (2, 2, 2, 2), -5),
    "5x5_c36": ((1, 7, 7, 36), (5, 5), (1, 1), (1, 1), (2, 2, 2, 2), 127),
    "3x3_b2_c32": ((2, 5, 6, 32), (3, 3), (1, 1), (1, 1), (1, 1, 1, 1), -128),
    "3x3_c20_tail": ((1, 6, 9, 20), (3, 3), (1, 1), (1, 1), (1, 1, 1, 1), 9),
}


def tightest(case: Case, index: int = 0) -> Case:
    """`case` re-placed with its output overlapping input `index` by the least the planner allows;
    any other activation after both. Checked by the planner's verifier."""
    graph = case.graph
    op = graph.ops[0]
    buffers = planner.lifetimes(graph)
    allowed = planner.overlaps(graph, buffers)
    out, x = op.outputs[0], op.inputs[index]
    margin = allowed[out, x]  # KeyError: this case cannot run in place (a wrong case)
    gap = planner._align(margin) if margin >= 0 else -(-margin // planner.ALIGNMENT * planner.ALIGNMENT)
    offsets = {out: max(0, -gap), x: max(0, gap)}
    sizes = {b.name: b.size for b in buffers}
    if offsets[x] >= offsets[out] + sizes[out] or offsets[out] >= offsets[x] + sizes[x]:
        raise ValueError(f"case {case.id}: margin {margin} leaves the output disjoint from the input")
    end = max(offsets[n] + sizes[n] for n in offsets)
    for b in buffers:
        if b.name not in offsets:
            offsets[b.name], end = planner._align(end), planner._align(end) + b.size
    planner.verify(buffers, offsets, allowed)
    for name, offset in offsets.items():
        graph.tensors[name].offset = offset
    graph.arenas[0].size = planner.peak(buffers, offsets)
    case.name = f"in_place_{case.name}"
    case.params = {**case.params, "in_place": f"input {index} − output = {gap} B (margin {margin})"}
    return case


def conv(k: int, name: str, shape, kernel, c_out, groups, stride, dilation, padding, in_zp) -> Case:
    rng = rng_for("in_place", "conv2d", name)
    w = edge_int8(rng, (c_out, *kernel, shape[3] // groups))
    multiplier, shift = requantization(rng, c_out, kernel[0] * kernel[1] * shape[3] // groups)
    bias = rng.integers(-20000, 20000, size=c_out, dtype=np.int32)
    attrs = dict(stride=stride, dilation=dilation, padding=padding, groups=groups, input_zero_point=in_zp,
                 output_offset=[-128, 127, 0, 5][k % 4], activation_min=-128, activation_max=127,
                 multiplier=multiplier, shift=shift)
    return tightest(conv_case("conv2d", name, edge_int8(rng, shape), w, bias, attrs, {}))


def depthwise(k: int, name: str, shape, kernel, stride, dilation, padding, in_zp) -> Case:
    rng = rng_for("in_place", "depthwise_conv2d", name)
    c = shape[3]
    w = np.maximum(edge_int8(rng, (*kernel, c)), -127)  # -128 sends Helium to the channel-block path
    multiplier, shift = requantization(rng, c, kernel[0] * kernel[1])
    shift = np.minimum(shift, -2)  # Helium 4-pixel blocks need every shift <= -2
    bias = rng.integers(-20000, 20000, size=c, dtype=np.int32)
    attrs = dict(stride=stride, dilation=dilation, padding=padding, depth_multiplier=1, input_zero_point=in_zp,
                 output_offset=[-128, 127, 0, 5][k % 4], activation_min=-128 if k % 3 else -100,
                 activation_max=127 if k % 3 else 90, multiplier=multiplier, shift=shift)
    return tightest(conv_case("depthwise_conv2d", name, edge_int8(rng, shape), w, bias, attrs, {}))


def elementwise() -> list[Case]:
    """add / mul of two program inputs (the output over either), requantize and LUT in place."""
    from cases import add, mul

    found = []
    for index in (0, 1):
        for op, module in (("add", add), ("mul", mul)):
            for case in elementwise_cases(op, [((1, 5, 7, 19), (1, 5, 7, 19), False)], module.params, (1, 3, 3, 3)):
                if case.graph.ops[0].inputs[0] != case.graph.ops[0].inputs[1]:  # not x op x
                    case.name = f"{case.name}_over{index}"
                    found.append(tightest(case, index))
    rng = rng_for("in_place", "unary")
    shape = (1, 3, 5, 33)
    x = edge_int8(rng, shape)
    attrs = {"input_offset": 3, "output_offset": -5, "output_multiplier": 1 << 30, "output_shift": 1}
    found.append(tightest(single_op("requantize", [int8_tensor("x", shape, -3)], int8_tensor("y", shape, -5), attrs,
                                    [x], name="requantize_1x3x5x33", params={"shape": shape, **attrs})))
    table = rng.integers(-128, 128, size=256).astype(np.int8)
    found.append(tightest(single_op("lut", [int8_tensor("x", shape), int8_tensor("table", (256,), data=table)],
                                    int8_tensor("y", shape), {}, [x], name="lut_1x3x5x33", params={"shape": shape})))
    # per-channel tables: the channel last (Helium's 8-channel steps), runs of 33 (its 16-lane
    # gather per run) and of 5 (scalar)
    for shape, axis in (((1, 3, 5, 33), 3), ((1, 3, 5, 33), 2), ((2, 7, 5), 1)):
        x = edge_int8(rng, shape)
        tables = rng.integers(-128, 128, size=(shape[axis], 256)).astype(np.int8)
        found.append(tightest(single_op("lut", [int8_tensor("x", shape), int8_tensor("table", tables.shape, data=tables)],
                                        int8_tensor("y", shape), {"axis": axis}, [x],
                                        name=f"lut_channels_{'x'.join(map(str, shape))}_axis{axis}",
                                        params={"shape": shape, "axis": axis})))
    return found


SCRATCH_USED, SCRATCH_STRIPPED = "conv2d/scratch_used_3x3_c16", "conv2d/scratch_stripped_3x3_c16"


def scratch_pair() -> list[Case]:
    """One 3x3 conv twice: as planned (packed columns in its arena scratch) and with the scratch
    output removed (taps read in place): the same bytes, and on Helium and DSP the first must run
    in fewer instructions, or the adapter did not hand the kernel its scratch
    (test_conformance.py::test_planned_scratch_reaches_the_kernel)."""
    found = []
    for name in (SCRATCH_USED, SCRATCH_STRIPPED):
        case = conv(0, name.split("/")[1], (1, 8, 8, 16), (3, 3), 16, 1, (1, 1), (1, 1), (1, 1, 1, 1), 3)
        case.name = name.split("/")[1]
        op = case.graph.ops[0]
        assert len(op.outputs) == 2, "a 3x3 conv has scratch on every tier"
        if name == SCRATCH_STRIPPED:
            del case.graph.tensors[op.outputs.pop()]
        found.append(case)
    return found


def cases() -> list[Case]:
    return ([conv(k, name, *spec) for k, (name, spec) in enumerate(CONV.items())]
            + [depthwise(k, name, *spec) for k, (name, spec) in enumerate(DEPTHWISE.items())]
            + elementwise() + scratch_pair())
