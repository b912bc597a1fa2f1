"""The memory planner: lifetimes, no overlap of live buffers, smallest strategy, clear errors."""
from __future__ import annotations

import numpy as np
import pytest

from compiler.errors import PlanError
from compiler.ir import Graph, Op, Tensor
from compiler.planner import ALIGNMENT, Buffer, Region, lifetimes, peak, plan_memory, verify


def _chain(sizes: list[int]) -> Graph:
    """t0 -> op -> t1 -> op -> ... : a straight line of int8 tensors of the given sizes."""
    tensors = {f"t{i}": Tensor(f"t{i}", "int8", (s,)) for i, s in enumerate(sizes)}
    ops = [Op("relu", [f"t{i}"], [f"t{i + 1}"]) for i in range(len(sizes) - 1)]
    return Graph(tensors, ops, ["t0"], [f"t{len(sizes) - 1}"])


def test_chain_reuses_memory_of_dead_tensors():
    graph = _chain([100, 200, 50, 300])
    plan = plan_memory(graph, Region("sram", 10_000))
    # at most two neighbours are alive at once: the largest neighbouring pair bounds the peak
    assert plan.size == max(112 + 208, 208 + 64, 64 + 304)
    assert graph.arenas[0].size == plan.size and graph.arenas[0].name == "sram"
    assert all(graph.tensors[n].offset % ALIGNMENT == 0 for n in graph.tensors)


def test_random_graphs_never_overlap_live_buffers():
    rng = np.random.default_rng(0)
    for _ in range(50):
        n = int(rng.integers(2, 30))
        bufs = []
        for i in range(n):
            first = int(rng.integers(0, 20))
            bufs.append(Buffer(f"b{i}", int(rng.integers(1, 64)) * 16, first, first + int(rng.integers(0, 8))))
        from compiler.planner import STRATEGIES, _first_fit
        for order in STRATEGIES.values():
            offsets = _first_fit(order(bufs))
            verify(bufs, offsets)
            assert peak(bufs, offsets) <= sum(b.size for b in bufs)


def test_verify_catches_an_overlap():
    a, b = Buffer("a", 32, 0, 2), Buffer("b", 32, 1, 3)
    with pytest.raises(PlanError, match="overlap"):
        verify([a, b], {"a": 0, "b": 16})


def test_plan_that_does_not_fit_names_region_bytes_and_largest_buffers():
    with pytest.raises(PlanError) as error:
        plan_memory(_chain([1000, 4000, 10]), Region("dtcm", 2048))
    message = str(error.value)
    assert "dtcm" in message and "2048" in message and "t1 (4000 B)" in message


def test_outputs_live_to_the_end_and_chart_prints_every_buffer():
    graph = _chain([16, 16, 16, 16])
    graph.outputs = ["t1", "t3"]
    by_name = {b.name: b for b in lifetimes(graph)}
    assert by_name["t1"].last == 2  # read at step 1, kept to the last step as an output
    assert by_name["t0"].last == 0 and by_name["t2"].first == 1
    plan = plan_memory(graph, Region("sram", 1024))
    chart = plan.chart()
    assert all(name in chart for name in graph.tensors)
    data = plan.as_json()
    assert data["size"] == plan.size and {b["name"] for b in data["buffers"]} == set(graph.tensors)
    assert all(b["offset"] + b["size"] <= data["size"] for b in data["buffers"])


# ---- every strategy, in place, random graphs -------------------------------------------------

from compiler import scratch  # noqa: E402
from compiler.ops import OP_TABLE, overlap  # noqa: E402
from compiler.planner import STRATEGIES, _first_fit, overlaps  # noqa: E402


def _margin(graph: Graph, op: Op, index: int) -> int | None:
    return OP_TABLE[op.kind].margin(graph, op, index)


def _conv(graph: Graph, x: str, name: str, c_out: int, kernel: int, stride: int, rng) -> str:
    """Adds a conv2d x -> name (padding "same"-like) with random constant weights."""
    n, h, w, c = graph.tensors[x].shape
    pad = kernel // 2
    oh, ow = (h + 2 * pad - kernel) // stride + 1, (w + 2 * pad - kernel) // stride + 1
    weights = Tensor(f"{name}_w", "int8", (c_out, kernel, kernel, c), data=rng.integers(-127, 128, (c_out, kernel, kernel, c)))
    graph.tensors[weights.name] = weights
    graph.tensors[name] = Tensor(name, "int8", (n, oh, ow, c_out))
    attrs = {"stride": (stride, stride), "dilation": (1, 1), "padding": (pad, pad, pad, pad), "groups": 1,
             "input_zero_point": 0, "output_offset": 0, "activation_min": -128, "activation_max": 127}
    graph.ops.append(Op("conv2d", [x, weights.name], [name], attrs))
    return name


def _random_graph(rng) -> Graph:
    """A seeded random DAG: convolutions (in place with a margin), same-shape adds (in place),
    reshapes (aliases), softmax (never in place), reading any earlier tensor of the right shape."""
    x = Tensor("x", "int8", (1, int(rng.integers(2, 9)), int(rng.integers(2, 9)), int(rng.integers(1, 17))))
    graph = Graph({"x": x}, [], ["x"], [])
    made = ["x"]
    for i in range(int(rng.integers(2, 16))):
        kind = rng.choice(["conv2d", "conv2d", "add", "reshape", "softmax"])
        src = made[int(rng.integers(max(0, len(made) - 4), len(made)))]  # mostly recent tensors
        shape = graph.tensors[src].shape
        name = f"t{i}"
        if kind == "conv2d" and len(shape) == 4:
            made.append(_conv(graph, src, name, int(rng.integers(1, 17)), int(rng.choice([1, 3])), int(rng.choice([1, 1, 2])), rng))
            continue
        if kind == "add":
            same = [t for t in made if graph.tensors[t].shape == shape]
            other = same[int(rng.integers(len(same)))]
            graph.tensors[name] = Tensor(name, "int8", shape)
            graph.ops.append(Op("add", [src, other], [name]))
        elif kind == "reshape":
            graph.tensors[name] = Tensor(name, "int8", (int(np.prod(shape)),))
            graph.ops.append(Op("reshape", [src], [name]))
        else:
            graph.tensors[name] = Tensor(name, "int8", shape)
            graph.ops.append(Op("softmax", [src], [name]))
        made.append(name)
    graph.outputs = [made[-1]] + ([made[len(made) // 2]] if rng.random() < 0.3 else [])
    return graph


def test_random_graphs_every_strategy_verifies_and_in_place_pairs_are_producer_and_dying_input():
    rng = np.random.default_rng(5)
    for _ in range(150):
        graph = _random_graph(rng)
        scratch.attach(graph, None)  # as plan_memory does: conv scratch, alive during its op
        buffers = lifetimes(graph)
        allowed = overlaps(graph, buffers)
        by_name = {b.name: b for b in buffers}
        for (out, x), margin in allowed.items():
            assert by_name[x].last == by_name[out].first  # the input dies where the output is born
        sizes = []
        for order in STRATEGIES.values():
            offsets = _first_fit(order(buffers), allowed)
            verify(buffers, offsets, allowed)
            sizes.append(peak(buffers, offsets))
        plan = plan_memory(graph, Region("sram", 1 << 24))
        assert plan.size == min(sizes) <= sum(b.size for b in buffers)
        assert plan.size >= max(b.size for b in buffers)


def test_in_place_chain_needs_one_tensor_the_margins_and_scratch_not_two_tensors():
    rng = np.random.default_rng(1)
    graph = Graph({"x": Tensor("x", "int8", (1, 10, 6, 32))}, [], ["x"], [])
    t = "x"
    for i in range(6):
        t = _conv(graph, t, f"c{i}", 32, [1, 3][i % 2], 1, rng)
    graph.outputs = [t]
    plan = plan_memory(graph, Region("sram", 1 << 20))
    margins = sum(overlaps(graph, lifetimes(graph)).values())
    largest_scratch = max(b.size for b in plan.buffers if b.name.endswith(scratch.SUFFIX))
    assert largest_scratch == 4 * 3 * 3 * 32  # Helium's 4 columns of 3x3x32 (the most of any tier)
    assert plan.size <= 1920 + margins + largest_scratch < 2 * 1920 + largest_scratch
    chart = plan.chart()
    assert "c5" in chart and "(over c4)" in chart and plan.as_json()["strategy"] == plan.strategy
    assert {b["name"]: b.get("in_place_over") for b in plan.as_json()["buffers"]}["c5"] == "c4"


def test_verify_allows_an_in_place_pair_only_at_its_margin():
    out, x = Buffer("y", 256, 1, 2), Buffer("x", 256, 0, 1)
    verify([out, x], {"y": 0, "x": 64}, {("y", "x"): 64})
    with pytest.raises(PlanError, match="overlap"):
        verify([out, x], {"y": 0, "x": 48}, {("y", "x"): 64})
    with pytest.raises(PlanError, match="overlap"):  # the output above its input: never
        verify([out, x], {"y": 64, "x": 0}, {("y", "x"): 64})
    with pytest.raises(PlanError, match="overlap"):  # no pair allowed: disjoint only
        verify([out, x], {"y": 0, "x": 64})


def test_no_in_place_over_a_broadcast_operand_a_constant_or_a_tensor_read_later():
    graph = Graph({"a": Tensor("a", "int8", (1, 4, 4, 8)), "b": Tensor("b", "int8", (1, 1, 1, 8)),
                   "y": Tensor("y", "int8", (1, 4, 4, 8)), "r": Tensor("r", "int8", (128,)),
                   "z": Tensor("z", "int8", (1, 4, 4, 8))},
                  [Op("add", ["a", "b"], ["y"]), Op("reshape", ["a"], ["r"]), Op("add", ["y", "y"], ["z"])],
                  ["a", "b"], ["z", "r"])
    assert _margin(graph, graph.ops[0], 0) == 0 and _margin(graph, graph.ops[0], 1) is None
    # a lives on as r (an output); b is broadcast; y may be overwritten by z (same shape, dies there)
    assert set(overlaps(graph, lifetimes(graph))) == {("z", "y")}


def test_depthwise_in_place_only_where_every_tier_runs_pixel_order():
    def depthwise(c: int, w_min: int, shift: int) -> tuple[Graph, Op]:
        w = np.full((3, 3, c), 5, np.int8)
        w[0, 0, 0] = w_min
        tensors = {"x": Tensor("x", "int8", (1, 6, 6, c)), "w": Tensor("w", "int8", (3, 3, c), data=w),
                   "y": Tensor("y", "int8", (1, 6, 6, c))}
        op = Op("depthwise_conv2d", ["x", "w"], ["y"], {"stride": (1, 1), "dilation": (1, 1), "padding": (1, 1, 1, 1),
                                                      "depth_multiplier": 1, "shift": np.full(c, shift)})
        return Graph(tensors, [op], ["x"], ["y"]), op

    # pixel p writes up to (p + 1)·C; pixel p − 3 reads from its window corner, a row and a column back
    assert _margin(*depthwise(32, -127, 0), 0) == (6 + 4 + 1) * 32
    assert _margin(*depthwise(32, -128, -3), 0) is None  # Helium: int16 pair sums need w >= -127
    assert _margin(*depthwise(8, -127, -3), 0) is not None  # 3x3 blocks
    assert _margin(*depthwise(8, -127, 0), 0) is None  # Helium's channel-block path


def _conv_in_memory(memory: np.ndarray, x_at: int, y_at: int, shape, c_out: int, kernel: int, stride: int,
                    block: int, w: np.ndarray) -> None:
    """A sliding-window op run on one flat memory, as adversarially as WINDOW_BLOCK allows: per
    block of `block` pixels, channel by channel, each output byte computed from the memory as it is
    then and written at once."""
    n, h, wd, c = shape
    pad = kernel // 2
    oh, ow = (h + 2 * pad - kernel) // stride + 1, (wd + 2 * pad - kernel) // stride + 1
    pixels = [(b, oy, ox) for b in range(n) for oy in range(oh) for ox in range(ow)]
    for first in range(0, len(pixels), block):
        for o in range(c_out):
            for p, (b, oy, ox) in enumerate(pixels[first:first + block], first):
                acc = 0
                for ky in range(kernel):
                    for kx in range(kernel):
                        iy, ix = oy * stride - pad + ky, ox * stride - pad + kx
                        if 0 <= iy < h and 0 <= ix < wd:
                            at = x_at + ((b * h + iy) * wd + ix) * c
                            acc += int(np.dot(memory[at:at + c].astype(np.int64), w[o, ky, kx]))
                memory[y_at + p * c_out + o] = acc % 251


@pytest.mark.parametrize("shape,c_out,kernel,stride", [((1, 5, 4, 3), 3, 3, 1), ((2, 4, 5, 2), 4, 1, 1),
                                                      ((1, 7, 6, 2), 5, 3, 2), ((1, 3, 8, 4), 2, 3, 1)])
def test_window_margin_is_safe_for_the_most_interleaved_pixel_order(shape, c_out, kernel, stride):
    rng = np.random.default_rng(sum(shape) + c_out)
    w = rng.integers(-3, 4, (c_out, kernel, kernel, shape[3]))
    x = rng.integers(0, 100, int(np.prod(shape)))
    pad = kernel // 2
    out_shape = (shape[0], (shape[1] + 2 * pad - kernel) // stride + 1, (shape[2] + 2 * pad - kernel) // stride + 1, c_out)
    margin = overlap.window_margin(shape, out_shape, (kernel, kernel), (stride, stride), (pad,) * 4)
    size = x.size + int(np.prod(out_shape)) + abs(margin) + 64
    apart = np.zeros(size, np.int64)
    apart[:x.size] = x
    _conv_in_memory(apart, 0, x.size, shape, c_out, kernel, stride, overlap.WINDOW_BLOCK, w)
    expected = apart[x.size:x.size + int(np.prod(out_shape))]
    x_at, y_at = max(margin, 0), max(-margin, 0)
    memory = np.zeros(size, np.int64)
    memory[x_at:x_at + x.size] = x
    _conv_in_memory(memory, x_at, y_at, shape, c_out, kernel, stride, overlap.WINDOW_BLOCK, w)
    np.testing.assert_array_equal(memory[y_at:y_at + expected.size], expected)


def test_scratch_comes_from_the_kernels_sizing_functions_of_each_tier():
    rng = np.random.default_rng(2)
    graph = Graph({"x": Tensor("x", "int8", (1, 8, 8, 64))}, [], ["x"], [])
    _conv(graph, "x", "y", 16, 3, 1, rng)
    graph.outputs = ["y"]
    op = graph.ops[0]
    # K = 3·3·64 = 576: Helium packs 4 columns, DSP a pair and its interleaved copy, scalar one
    assert {t: scratch.scratch_bytes(graph, op, t) for t in scratch.TIERS} == {"mve": 2304, "dsp": 2304, "scalar": 576}
    plan = plan_memory(graph, Region("sram", 1 << 20), "scalar")
    assert op.outputs == ["y", "y.scratch"] and graph.tensors["y.scratch"].shape == (576,)
    spans = {n: (plan.offsets[n], plan.offsets[n] + graph.tensors[n].nbytes) for n in ("x", "y", "y.scratch")}
    for other in ("x", "y"):  # alive with its op's input and output: apart from both
        assert spans["y.scratch"][1] <= spans[other][0] or spans[other][1] <= spans["y.scratch"][0]
    plan_memory(graph, Region("sram", 1 << 20), "mve")  # planned again: resized, not added twice
    assert op.outputs == ["y", "y.scratch"] and graph.tensors["y.scratch"].shape == (2304,)
    odd = Graph({"x": Tensor("x", "int8", (1, 4, 4, 3))}, [], ["x"], [])
    _conv(odd, "x", "y", 4, 1, 1, rng)  # K = 3: rounded up to 16 (Helium) and 4 (the others)
    assert {t: scratch.scratch_bytes(odd, odd.ops[0], t) for t in scratch.TIERS} == {"mve": 64, "dsp": 16, "scalar": 4}


def test_depthwise_scratch_is_helium_s_padded_rows_where_they_fit():
    def layer(width: int, c: int, stride: int = 1) -> tuple[Graph, Op]:
        tensors = {"x": Tensor("x", "int8", (1, 6, width, c)), "w": Tensor("w", "int8", (3, 3, c), data=np.ones((3, 3, c))),
                   "y": Tensor("y", "int8", (1, 6 // stride, width // stride, c))}
        op = Op("depthwise_conv2d", ["x", "w"], ["y"], {
            "stride": (stride, stride), "dilation": (1, 1), "padding": (1, 1, 1, 1) if stride == 1 else (0, 1, 0, 1),
            "depth_multiplier": 1, "input_zero_point": 0, "output_offset": 0, "activation_min": -128, "activation_max": 127})
        return Graph(tensors, [op], ["x"], ["y"]), op

    # 3 rows of (1 + 24 + 1) pixels x 32 channels; the other tiers read taps in place
    assert {t: scratch.scratch_bytes(*layer(24, 32), t) for t in scratch.TIERS} == {"mve": 2496, "dsp": 0, "scalar": 0}
    assert scratch.scratch_bytes(*layer(48, 32), "mve") == 0  # 4800 B of rows: past EM_NN_DWF_ROWS_MAX
    assert scratch.scratch_bytes(*layer(24, 30), "mve") == 2340  # 16-lane pixels, any C from 16
    assert scratch.scratch_bytes(*layer(24, 12), "mve") == 936  # C 12: the 4-pixel blocks only
    assert scratch.scratch_bytes(*layer(24, 10), "mve") == 0  # C 10, C % 4 != 0: the general path
    assert scratch.scratch_bytes(*layer(24, 12, stride=2), "mve") == 0  # C 12, no blocks at stride 2
    assert scratch.scratch_bytes(*layer(24, 32, stride=2), "mve") == 2400  # 3 rows of 24 + 1 (right) pixels


def test_depthwise_rows_of_a_huge_padding_are_not_wrapped_into_a_small_size():
    """A malformed program's padding of 2^27 - 2 columns at stride 2^27: its one padded row of
    (2^27 + 1)·32 bytes wraps to 32 in int32; the sizing must say 0 (no staging), not 32."""
    pad, stride = (1 << 27) - 2, 1 << 27
    tensors = {"x": Tensor("x", "int8", (1, 1, 3, 32)), "w": Tensor("w", "int8", (1, 1, 32), data=np.ones((1, 1, 32))),
               "y": Tensor("y", "int8", (1, 1, 2, 32))}
    op = Op("depthwise_conv2d", ["x", "w"], ["y"], {
        "stride": (1, stride), "dilation": (1, 1), "padding": (0, 0, pad, 0), "depth_multiplier": 1,
        "input_zero_point": 0, "output_offset": 0, "activation_min": -128, "activation_max": 127})
    assert scratch.scratch_bytes(Graph(tensors, [op], ["x"], ["y"]), op, "mve") == 0


def test_inputs_kept_says_whether_the_plan_reuses_an_inputs_bytes():
    from compiler.planner import inputs_kept

    consumed = _chain([100, 200, 50, 300])
    plan_memory(consumed, Region("sram", 10_000))
    assert inputs_kept(consumed) == [False]  # t2 lands on t0's bytes once t0 is dead
    kept = _chain([100, 200, 50, 300])
    kept.outputs = ["t0", "t3"]  # an output too: alive to the end, so nothing reuses it
    plan_memory(kept, Region("sram", 10_000))
    assert inputs_kept(kept) == [True]
    assert inputs_kept(_chain([16, 16])) == [False]  # not planned: nothing says it survives
