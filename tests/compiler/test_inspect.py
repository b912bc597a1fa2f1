"""`python -m compiler inspect`: the report, the kernel-variant rules (one case per branch of
the C dispatch they mirror), --json, the Model Explorer graph and its node data, named errors."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn

import compiler
from compiler import kernel_variants as kv
from compiler import scratch
from compiler.cli import main
from compiler.errors import ProfileFormatError
from compiler.inspection import describe, load_profile, model_explorer_graph, text
from compiler.ir import Arena, Graph, Op, Quant, Tensor
from compiler.layers import layer_rows
from compiler.fixedpoint import REQUANTIZE_S64_MAX_SHIFT
from compiler.ops import OP_TABLE, add, conv2d, conv_options, depthwise_conv2d, lut
from compiler.program import Program

REPO = Path(__file__).resolve().parents[2]


class Net(nn.Module):
    """conv3x3 → depthwise 3x3 → two 1x1 convs added → flatten → linear."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.dw = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.pw_a, self.pw_b = nn.Conv2d(8, 8, 1), nn.Conv2d(8, 8, 1)
        self.fc = nn.Linear(8 * 6 * 6, 4)

    def forward(self, x):
        y = torch.relu(self.dw(torch.relu(self.conv(x))))
        return self.fc(torch.flatten(torch.relu(self.pw_a(y) + self.pw_b(y)), 1))


@pytest.fixture(scope="module")
def program_file(tmp_path_factory) -> Path:
    calibration = [torch.randn(2, 3, 6, 6, generator=torch.Generator().manual_seed(i)) for i in range(4)]
    program = compiler.lower(Net().eval(), (torch.zeros(1, 3, 6, 6),), calibration, target="cortex-m55", name="net")
    return program.save(tmp_path_factory.mktemp("inspect") / "net.embr")


@pytest.fixture(scope="module")
def report(program_file) -> dict:
    return describe(Program.load(program_file))


# --- the report -----------------------------------------------------------------------------

def test_report_lists_ops_in_order_with_variants_macs_constants_and_buffers(program_file, report):
    program = Program.load(program_file)
    graph = program.graph
    assert [o["op"] for o in report["ops"]] == [op.kind for op in graph.ops]
    assert report["tier"] == "mve" and report["target"] == "cortex-m55"
    rows = layer_rows(graph)
    for o, row, op in zip(report["ops"], rows, graph.ops):
        assert (o["layer"], o["shape"], o["macs"]) == (row["layer"], row["shape"], row["macs"])
        assert o["variant"] == kv.kernel_variant(graph, op, "mve")
        assert o["constant_bytes"] == sum(graph.tensors[t].nbytes for t in op.inputs if graph.tensors[t].is_constant)
    assert report["macs"] == sum(r["macs"] for r in rows) > 0
    assert report["constant_bytes"] == sum(o["constant_bytes"] for o in report["ops"]) > 0
    by_kind = {o["op"]: o for o in reversed(report["ops"])}  # the first op of each kind
    assert by_kind["conv2d"]["variant"].startswith("im2col general; MVE 4-pixel blocks")
    dw = next(op for op in graph.ops if op.kind == "depthwise_conv2d")  # C 8, 3x3 stride 1: blocks unless a shift > -2
    assert by_kind["depthwise_conv2d"]["variant"] == ("generic path (C 8 < 16, a shift > -2); MVE 4-channel lanes"
                                                      if max(dw.attrs["shift"]) > -2 else
                                                      "M=1 fast path; MVE 3x3 4-pixel blocks, padded rows staged")
    assert by_kind["fully_connected"]["variant"] == "MVE 4 rows x 16 lanes"
    pointwise = [o for o in report["ops"] if o["op"] == "conv2d" and "k1x1" in o["shape"]]
    assert pointwise and all(o["variant"].startswith("1x1 pointwise, in place") for o in pointwise)
    # every activation has a buffer: arena, 16-byte aligned offset, size; reshapes name their root
    names = {b["name"] for b in report["buffers"]}
    assert names == {n for n, t in graph.tensors.items() if not t.is_constant}
    arenas = {a["name"]: a["size"] for a in report["arenas"]}
    for b in report["buffers"]:
        assert b["offset"] % 16 == 0 and b["offset"] + b["bytes"] <= arenas[b["arena"]]
        if "alias_of" in b:
            assert b["offset"] == graph.tensors[b["alias_of"]].offset
    # quantization: activations per tensor, weights per channel (count, min, max)
    conv = by_kind["conv2d"]
    assert set(conv["outputs"][0]["quant"]) == {"scale", "zero_point"}
    weights = conv["inputs"][1]["quant"]
    scales = graph.tensors[conv["inputs"][1]["name"]].quant.scale
    assert weights["channels"] == 8 and weights["scale_min"] == pytest.approx(scales.min())
    assert weights["scale_max"] == pytest.approx(scales.max())


def test_text_is_aligned_columns(report):
    lines = text(report).splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith(" #  layer") or line.startswith("#  layer"))
    table = lines[header:header + 1 + len(report["ops"])]
    column = table[0].index("kernel variant")
    for line, o in zip(table[1:], report["ops"]):
        assert line[column:].startswith(o["variant"])
    assert "buffers:" in lines


def test_inputs_say_whether_an_invoke_consumes_them_as_the_file_records(program_file, report):
    from compiler.inspection import KEPT_TEXT
    from compiler.schema import program_generated as fb

    root = fb.Program.GetRootAs(Path(program_file).read_bytes(), 0)
    assert [t["kept"] for t in report["inputs"]] == [bool(root.InputsKept(i)) for i in range(root.InputsLength())]
    inputs = next(line for line in text(report).splitlines() if line.startswith("inputs: "))
    assert all(KEPT_TEXT[t["kept"]] in inputs for t in report["inputs"])
    loaded = Program.load(program_file)
    loaded.recorded_inputs_kept = [not k for k in loaded.recorded_inputs_kept]  # the file's word, not the plan's
    assert [t["kept"] for t in describe(loaded)["inputs"]] == loaded.recorded_inputs_kept


def test_cli_json_and_text(program_file, capsys):
    assert main(["inspect", str(program_file), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data == json.loads(json.dumps(describe(Program.load(program_file))))
    assert main(["inspect", str(program_file)]) == 0
    out = capsys.readouterr().out
    assert "kernel variant" in out and "MVE 4 rows x 16 lanes" in out


def test_a_profile_adds_each_ops_count_to_the_table_and_the_json(program_file, report, tmp_path, capsys):
    profile = _profile(report, tmp_path / "profile.json")
    assert main(["inspect", str(program_file), "--profile", str(profile), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [o["count"] for o in data["ops"]] == [100 + 7 * i for i in range(len(report["ops"]))]
    assert data["profile_unit"] == "instructions (QEMU)"
    assert main(["inspect", str(program_file), "--profile", str(profile)]) == 0
    table = capsys.readouterr().out.splitlines()
    header = next(line for line in table if "kernel variant" in line)
    assert "instructions (QEMU)" in header
    column = header.index("instructions (QEMU)") + len("instructions (QEMU)")  # right-aligned
    rows = [line for line in table if line[:3].strip().isdigit()][:len(report["ops"])]
    assert [int(r[:column].split()[-1].replace(",", "")) for r in rows] == [100 + 7 * i for i in range(len(rows))]


# --- Model Explorer -------------------------------------------------------------------------

def _profile(report: dict, path: Path) -> Path:
    layers = [{"layer": o["layer"], "op": o["op"], "shape": o["shape"], "macs": o["macs"], "count": 100 + 7 * i}
              for i, o in enumerate(report["ops"])]
    path.write_text(json.dumps({"app": "net", "tier": "mve", "unit": "instructions (QEMU)", "total": 1,
                                "operators_total": 1, "layers": layers}))
    return path


def test_model_explorer_graph_has_a_node_per_op_and_an_edge_per_tensor(program_file, report, tmp_path, capsys):
    out = tmp_path / "net.json"
    profile = _profile(report, tmp_path / "profile.json")
    assert main(["inspect", str(program_file), "--model-explorer", str(out), "--profile", str(profile)]) == 0
    assert "model-explorer" in capsys.readouterr().out
    collection = json.loads(out.read_text())
    (graph,) = collection["graphs"]
    nodes = {n["id"]: n for n in graph["nodes"]}
    ops = [n for n in graph["nodes"] if n["id"] not in ("inputs", "outputs")]
    assert [n["label"] for n in ops] == [o["op"] for o in report["ops"]]
    # edges: (producer node, its output, consumer node, its input) for every activation read
    program = Program.load(program_file).graph
    producer = {t: ("inputs", str(i)) for i, t in enumerate(program.inputs)}
    expected = set()
    for i, op in enumerate(program.ops):
        for j, t in enumerate(op.inputs):
            if not program.tensors[t].is_constant:
                expected.add((*producer[t], str(i), str(j)))
        for k, t in enumerate(op.outputs):
            producer[t] = (str(i), str(k))
    for j, t in enumerate(program.outputs):
        expected.add((*producer[t], "outputs", str(j)))
    edges = {(e["sourceNodeId"], e["sourceNodeOutputId"], n["id"], e["targetNodeInputId"])
             for n in graph["nodes"] for e in n["incomingEdges"]}
    assert edges == expected
    assert all(e[0] in nodes for e in edges)
    attrs = {kv_["key"]: kv_["value"] for kv_ in ops[0]["attrs"]}
    assert attrs["kernel variant"] == report["ops"][0]["variant"]
    assert attrs["instructions (QEMU)"] == "100"
    assert graph["groupNodeAttributes"][""]["tier"] == "mve"
    # node values: the profile's counts keyed by op node id
    data = json.loads((tmp_path / "net.node_data.json").read_text())
    results = data[graph["id"]]["results"]
    assert {k: v["value"] for k, v in results.items()} == {str(i): 100 + 7 * i for i in range(len(ops))}


def test_model_explorer_graph_is_the_package_graph_builders_format(report):
    """Strictly typed back into graph_builder.GraphCollection (no unknown field, every type right)."""
    import dataclasses

    import dacite  # ai-edge-model-explorer's own dependency
    from model_explorer import graph_builder as gb

    data = model_explorer_graph(report)
    collection = dacite.from_dict(gb.GraphCollection, data, config=dacite.Config(strict=True))
    assert dataclasses.asdict(collection) == data
    assert len(collection.graphs[0].nodes) == len(report["ops"]) + 2  # + the inputs and outputs nodes


# --- named errors ---------------------------------------------------------------------------

def test_missing_or_malformed_profile_is_a_named_error(program_file, report, tmp_path, capsys):
    with pytest.raises(ProfileFormatError, match="does not exist"):
        load_profile(tmp_path / "none.json", report)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ProfileFormatError, match="not tools/op_profile.py's profile.json"):
        load_profile(bad, report)
    bad.write_text(json.dumps({"layers": [{"op": "conv2d", "count": 1}]}))
    with pytest.raises(ProfileFormatError, match="not this program's"):
        load_profile(bad, report)
    code = main(["inspect", str(program_file), "--model-explorer", str(tmp_path / "g.json"), "--profile", str(bad)])
    assert code == 2 and "not this program's" in capsys.readouterr().err
    assert not (tmp_path / "g.json").exists()


def test_missing_or_malformed_program_is_a_named_error(tmp_path, capsys):
    assert main(["inspect", str(tmp_path / "none.embr")]) == 2
    assert "does not exist" in capsys.readouterr().err
    junk = tmp_path / "junk.embr"
    junk.write_bytes(b"\x00" * 64)
    assert main(["inspect", str(junk)]) == 2
    assert "not an Ember program" in capsys.readouterr().err


# --- kernel variant rules, one case per branch of the C dispatch -----------------------------

def _graph(x: tuple, w: tuple, out: tuple, scratch: int | None = None, weights: np.ndarray | None = None) -> Graph:
    tensors = {
        "x": Tensor("x", "int8", x, Quant.per_tensor(0.1, 0), offset=0),
        "w": Tensor("w", "int8", w, data=np.ones(w, np.int8) if weights is None else weights),
        "y": Tensor("y", "int8", out, Quant.per_tensor(0.1, 0), offset=0),
    }
    if scratch is not None:
        tensors["s"] = Tensor("s", "int8", (scratch,), offset=0)
    return Graph(tensors, [], ["x"], ["y"], [Arena("sram")])


def _conv_attrs(stride=1, dilation=1, pad=0, groups=1, m=1, shift=-5, channels=1) -> dict:
    return {"stride": (stride, stride), "dilation": (dilation, dilation), "padding": (pad,) * 4, "groups": groups,
            "depth_multiplier": m, "shift": np.full(channels, shift, np.int32)}


def _out(size: int, k: int, stride: int, pad: int) -> int:
    return (size + 2 * pad - k) // stride + 1


def conv(tier: str, cin: int, k: tuple, hw: int = 8, stride=1, pad=0, groups=1, dilation=1, scratch=2304) -> str:
    """The variant of a conv2d with `scratch` bytes of planned scratch (a second output; None: none,
    the adapter's fallback)."""
    kh, kw = k
    oh, ow = _out(hw, (kh - 1) * dilation + 1, stride, pad), _out(hw, (kw - 1) * dilation + 1, stride, pad)
    g = _graph((1, hw, hw, cin), (8, kh, kw, cin // groups), (1, oh, ow, 8), scratch)
    op = Op("conv2d", ["x", "w"], ["y"] + (["s"] if scratch is not None else []),
            _conv_attrs(stride, dilation, pad, groups))
    g.ops.append(op)  # for linked_variants(), which walks the graph
    return kv.kernel_variant(g, op, tier) if tier != "linked" else sorted(kv.linked_variants(g, "mve"))


@pytest.mark.parametrize("case, tier, expected", [
    # em_nn_conv_in_place: KH 1, KW 1 or dilation_w 1, groups 1, window inside the input
    (dict(cin=16, k=(1, 1)), "mve", "1x1 pointwise, in place; MVE 4-pixel blocks"),
    (dict(cin=16, k=(1, 1), stride=2), "scalar", "1x1 pointwise, in place; scalar 6/4 rows per byte"),
    (dict(cin=16, k=(1, 3)), "mve", "1x3 rows in place; MVE 4-pixel blocks"),
    (dict(cin=16, k=(1, 1), pad=1), "mve", "in place, im2col at the borders; MVE 4-pixel blocks"),
    (dict(cin=16, k=(1, 1), groups=2), "mve", "im2col general; MVE 4-pixel blocks"),
    (dict(cin=16, k=(1, 3), dilation=2), "mve", "im2col general; MVE 4-pixel blocks"),
    # MVE: packable = min(EM_NN_CONV_BLOCK, scratch / round16(K)); scratch 2304 unless given
    (dict(cin=8, k=(3, 3), pad=1), "mve", "im2col general; MVE 4-pixel blocks"),
    (dict(cin=128, k=(3, 3)), "mve", "im2col general; MVE 2-pixel blocks"),  # 2304 / 1152
    (dict(cin=8, k=(3, 3), scratch=100), "mve", "im2col general; MVE 1-pixel blocks"),  # 100 / 80
    (dict(cin=512, k=(3, 3)), "mve", "taps in place (no scratch for a column); MVE pixel by pixel"),
    (dict(cin=2400, k=(1, 1), pad=1), "mve",
     "in place, taps in place (no scratch for a column) at the borders; MVE 4-pixel blocks"),
    # DSP: pairs when scratch >= 4·round4(K) and K >= 32, else one pixel; no scratch: taps
    (dict(cin=8, k=(3, 3)), "dsp", "im2col general; DSP pixel pairs (SMLAD 2x2)"),  # K 72
    (dict(cin=3, k=(3, 3)), "dsp", "im2col general; DSP one pixel, 4 rows (SMLAD)"),  # K 27 < 32
    (dict(cin=128, k=(3, 3)), "dsp", "im2col general; DSP one pixel, 4 rows (SMLAD)"),  # 4·1152 > 2304
    (dict(cin=512, k=(3, 3)), "dsp", "taps in place (no scratch for a column); DSP one pixel, 4 rows (SMLAD)"),
    (dict(cin=64, k=(1, 1)), "dsp", "1x1 pointwise, in place; DSP pixel pairs (SMLAD 2x2)"),
    (dict(cin=8, k=(3, 3)), "scalar", "im2col general; scalar 6/4 rows per byte"),
])
def test_conv2d_variants(case, tier, expected):
    assert conv(tier, **case) == expected


def test_staged_rows_rule_is_the_kernels_own_sizing():
    """depthwise_conv2d.rows_bytes is em_nn_dwf_rows_bytes() (compiled for the host, what the
    planner reserves) on seeded random fast-path layers: any kernel, stride, dilation, padding."""
    rng = np.random.default_rng(11)
    cap = int(re.search(r"#define EM_NN_DWF_ROWS_MAX (\d+)",
                        (REPO / "runtime/kernels/include/em_nn_functions.h").read_text()).group(1))
    staged = 0
    for _ in range(300):
        c = int(rng.choice([16, 20, 48, 64, 136]))
        kh, kw = (int(v) for v in rng.integers(1, 6, 2))
        (sh, sw), (dh, dw) = rng.integers(1, 3, 2), rng.integers(1, 3, 2)
        h, w = (int(v) for v in rng.integers(max(kh, kw) * 2, 14, 2))
        pads = tuple(int(v) for v in rng.integers(0, 3, 4))
        oh = (h + pads[0] + pads[1] - dh * (kh - 1) - 1) // sh + 1
        ow = (w + pads[2] + pads[3] - dw * (kw - 1) - 1) // sw + 1
        g = _graph((1, h, w, c), (kh, kw, c), (1, oh, ow, c))
        op = Op("depthwise_conv2d", ["x", "w"], ["y"], {"stride": (int(sh), int(sw)), "dilation": (int(dh), int(dw)),
                                                         "padding": pads, "depth_multiplier": 1, "input_zero_point": 0,
                                                         "output_offset": 0, "activation_min": -128,
                                                         "activation_max": 127})
        rows = depthwise_conv2d.rows_bytes(g, op)
        assert scratch.scratch_bytes(g, op, "mve") == (rows if rows <= cap else 0), (kh, kw, sh, sw, dh, dw, pads, h, w, c)
        assert scratch.scratch_bytes(g, op, "dsp") == 0 == scratch.scratch_bytes(g, op, "scalar")
        staged += rows <= cap
    assert 30 < staged < 300  # both sides of the cap seen


def test_without_planned_scratch_the_rules_take_the_adapters_stack_fallback():
    """No second output: conv2d gets CONV2D_STACK_SCRATCH bytes (0 once scratch is planned in the
    arena: then it reads taps in place), depthwise stages rows in DEPTHWISE_ROWS_STACK bytes."""
    packs = conv_options.CONV2D_STACK_SCRATCH >= 80  # K = 3·3·8 rounded to 16
    assert conv("mve", cin=8, k=(3, 3), scratch=None) == \
        ("im2col general; MVE 4-pixel blocks" if packs else "taps in place (no scratch for a column); MVE pixel by pixel")
    assert conv("mve", cin=8, k=(1, 1), scratch=None) == "1x1 pointwise, in place; MVE 4-pixel blocks"
    staged = conv_options.DEPTHWISE_ROWS_STACK >= 480  # 3 rows of (1 + 8 + 1) pixels x 16 channels
    assert depthwise("mve", c=16, scratch=None).endswith("padded rows staged" if staged else "tap tables at the borders")


def depthwise(tier: str, c: int, k: int = 3, m: int = 1, hw: int = 8, stride: int = 1, shift: int = -5,
              weight: int = 1, scratch=3072) -> str:
    oh = _out(hw, k, stride, 1)
    weights = np.full((k, k, c * m), weight, np.int8)
    g = _graph((1, hw, hw, c), (k, k, c * m), (1, oh, oh, c * m), scratch, weights)
    op = Op("depthwise_conv2d", ["x", "w"], ["y"] + (["s"] if scratch is not None else []),
            _conv_attrs(stride, 1, 1, 1, m, shift, c * m))
    g.ops.append(op)  # for linked_variants(), which walks the graph
    return kv.kernel_variant(g, op, tier) if tier != "linked" else sorted(kv.linked_variants(g, "mve"))


@pytest.mark.parametrize("case, tier, expected", [
    # em_nn_depthwise_m1_s8: M 1, KH·KW <= EM_NN_DWF_MAX_TAPS, C <= EM_NN_DWF_MAX_CHANNELS
    (dict(c=8, m=2), "mve", "generic path (M=2); MVE 4-channel lanes, gathers with stride M=2"),
    (dict(c=8, m=2), "dsp", "generic path (M=2); scalar"),
    (dict(c=8, k=8, hw=16), "dsp", "generic path (8x8 taps > 49); DSP 4 channels per word (SXTB16)"),
    (dict(c=600), "scalar", "generic path (C 600 > 512); scalar"),
    (dict(c=8), "scalar", "M=1 fast path; tap tables, scalar pixel by pixel"),
    (dict(c=8, stride=2), "dsp", "M=1 fast path; tap tables, DSP pixel by pixel"),
    # MVE: C >= 16 or 3x3 blocks (C % 4 == 0, 3x3, stride_w 1, dilation_w 1, shifts <= -2), no weight -128
    (dict(c=8, stride=2), "mve", "generic path (C 8 < 16, not 3x3 stride 1 with C % 4 == 0); MVE 4-channel lanes"),
    (dict(c=16, stride=2), "mve", "M=1 fast path; MVE 16 channels per step, padded rows staged"),
    (dict(c=64, weight=-128), "mve", "generic path (a weight is -128); MVE 4-channel lanes"),
    (dict(c=8, shift=-1), "mve", "generic path (C 8 < 16, a shift > -2); MVE 4-channel lanes"),
    (dict(c=64, stride=2), "mve", "M=1 fast path; MVE 16 channels per step, padded rows staged"),
    (dict(c=64, shift=-1), "mve", "M=1 fast path; MVE 16 channels per step, padded rows staged"),
    # padded rows staged when KH·(pad_left + W + right)·C fits the scratch (3072 B unless given)
    (dict(c=64, stride=2, scratch=100), "mve", "M=1 fast path; MVE 16 channels per step, tap tables"),
    (dict(c=64, stride=2, hw=40), "mve", "M=1 fast path; MVE 16 channels per step, tap tables"),
    # block4, and its rows staged likewise
    (dict(c=16), "mve", "M=1 fast path; MVE 3x3 4-pixel blocks, padded rows staged"),
    (dict(c=16, hw=70), "mve", "M=1 fast path; MVE 3x3 4-pixel blocks, tap tables at the borders"),
    (dict(c=16, scratch=100), "mve", "M=1 fast path; MVE 3x3 4-pixel blocks, tap tables at the borders"),
])
def test_depthwise_variants(case, tier, expected):
    assert depthwise(tier, **case) == expected


# --- the variants a program links (em_nn_variants.h): the same branches, as macro names -------

@pytest.mark.parametrize("case, expected", [
    (dict(cin=16, k=(1, 1)), []),  # every column in place: neither packing nor taps
    (dict(cin=16, k=(1, 3)), []),
    (dict(cin=16, k=(1, 1), pad=1), ["CONV_MVE_PACK"]),  # the borders pack
    (dict(cin=8, k=(3, 3), scratch=100), ["CONV_MVE_PACK"]),  # 100 >= 80: one column fits
    (dict(cin=512, k=(3, 3)), ["CONV_MVE_TAPS"]),  # no column fits
    (dict(cin=2400, k=(1, 1), pad=1), ["CONV_MVE_TAPS"]),
])
def test_conv2d_linked_variants(case, expected):
    assert conv("linked", **case) == expected


@pytest.mark.parametrize("case, expected", [
    (dict(c=8, m=2), ["DW_MVE_STRIDED"]),
    (dict(c=8, stride=2), ["DW_MVE_FULL_KW3"]),  # the general path, KW = 3 unrolled
    (dict(c=10, stride=2), ["DW_MVE_FULL_KW3", "DW_MVE_TAIL"]),
    (dict(c=16, stride=2), ["DWF_MVE_PIXEL", "DWF_MVE_ROWS"]),
    (dict(c=16, stride=2, scratch=100), ["DWF_MVE_PIXEL", "DWF_MVE_TAPS"]),
    (dict(c=2, stride=2), ["DW_MVE_TAIL"]),
    (dict(c=8, k=8, hw=16), ["DW_MVE_FULL"]),  # 64 taps: general, any KW
    (dict(c=64, weight=-128), ["DW_MVE_FULL_KW3"]),
    (dict(c=64, stride=2), ["DWF_MVE_PIXEL", "DWF_MVE_ROWS"]),
    (dict(c=64, k=5, stride=2), ["DWF_MVE_PIXEL", "DWF_MVE_ROWS"]),  # 5 rows of 9 pixels: 2880 B
    (dict(c=64, k=5, stride=2, hw=9), ["DWF_MVE_PIXEL", "DWF_MVE_TAPS"]),  # 5 rows of 11 pixels: 3520 B
    (dict(c=64, shift=-1), ["DWF_MVE_PIXEL_LEFT", "DWF_MVE_ROWS"]),
    (dict(c=64, shift=-1, scratch=100), ["DWF_MVE_PIXEL_LEFT", "DWF_MVE_TAPS"]),
    (dict(c=16), ["DWF_MVE_BLOCK4", "DWF_MVE_PIXEL", "DWF_MVE_ROWS"]),  # no tap tables
    (dict(c=16, hw=70), ["DWF_MVE_BLOCK4", "DWF_MVE_PIXEL", "DWF_MVE_TAPS"]),
])
def test_depthwise_linked_variants(case, expected):
    assert depthwise("linked", **case) == expected


def _classifier(conv_channels: int) -> tuple[Graph, Op]:
    """A 1x1 conv (conv_channels² MACs per pixel of 8x8; none when 0) and a 64 -> 12 classifier
    (768 MACs), the FC one of the graph's ops."""
    g = _graph((1, 8, 8, 64), (12, 64), (1, 12))
    fc = Op("fully_connected", ["x", "w"], ["y"], {})
    if conv_channels:
        g.tensors["cw"] = Tensor("cw", "int8", (conv_channels, 1, 1, 64), data=np.ones((conv_channels, 1, 1, 64), np.int8))
        g.tensors["cy"] = Tensor("cy", "int8", (1, 8, 8, conv_channels), Quant.per_tensor(0.1, 0), offset=0)
        g.ops.append(Op("conv2d", ["x", "cw"], ["cy"], _conv_attrs(channels=conv_channels)))
    g.ops.append(fc)
    return g, fc


@pytest.mark.parametrize("conv_channels, rows4", [
    (0, True),  # the FC is all the MACs (the autoencoder)
    (1, True),  # 4,096 conv MACs: the FC's 768 are 16 %
    (64, False),  # 262,144 conv MACs: the FC is 0.3 % (the MLPerf classifiers' 0.01..0.03 %)
])
def test_fully_connected_takes_four_rows_only_where_it_pays(conv_channels, rows4):
    g, fc = _classifier(conv_channels)
    assert ("FC_MVE_ROWS4" in kv.linked_variants(g, "mve")) is rows4
    assert kv.kernel_variant(g, fc, "mve").startswith("MVE 4 rows" if rows4 else "MVE 1 row")
    assert [kv.kernel_variant(g, fc, t) for t in ("scalar", "dsp")] == ["scalar 6/4 rows", "DSP 4 rows (SMLAD)"]
    assert "FC_MVE_ROWS4" not in kv.linked_variants(g, "dsp")


def test_linked_variants_are_the_headers_names_and_none_below_mve():
    text = (REPO / "runtime/kernels/include/em_nn_variants.h").read_text()
    assert sorted(re.findall(r"#ifndef EM_NN_VARIANT_(\w+)", text)) == sorted(kv.LINK_SWITCHES)
    g = _graph((1, 8, 8, 8), (3, 3, 16), (1, 8, 8, 16), 3072)
    g.ops.append(Op("depthwise_conv2d", ["x", "w"], ["y", "s"], _conv_attrs(1, 1, 1, 1, 2, -5, 16)))
    assert kv.linked_variants(g, "mve") == {"DW_MVE_STRIDED"}
    assert kv.linked_variants(g, "dsp") == set() == kv.linked_variants(g, "scalar")


def test_variants_header_defines_every_name():
    from compiler.emit_c import variants_h

    text = variants_h({"DWF_MVE_PIXEL"}, kv.SELECTABLE_VARIANTS)
    assert "#define EM_NN_VARIANT_DWF_MVE_PIXEL 1\n" in text and "#define EM_NN_VARIANT_DW_MVE_FULL 0\n" in text
    assert text.count("#define EM_NN_VARIANT_") == len(kv.SELECTABLE_VARIANTS)


def _binary(a: tuple, b: tuple, out: tuple) -> tuple[Graph, Op]:
    g = Graph({n: Tensor(n, "int8", s, offset=0) for n, s in (("a", a), ("b", b), ("y", out))}, [], ["a", "b"], ["y"])
    return g, Op("add", ["a", "b"], ["y"], {})


@pytest.mark.parametrize("shapes, tier, expected", [
    # em_add_s8.c: tables when neither operand is broadcast and n >= EM_NN_ADD_TABLE_MIN
    (((1, 8, 8, 16),) * 3, "dsp", "same shapes; rescaling tables (256 codes per input), scalar"),
    (((1, 4, 4, 16),) * 3, "scalar", "same shapes; scalar per element"),  # 256 < 1024
    (((1, 8, 8, 16), (1,), (1, 8, 8, 16)), "dsp", "scalar operand broadcast; scalar per element"),
    (((1, 8, 8, 16), (16,), (1, 8, 8, 16)), "scalar", "row operand broadcast; scalar per element"),
    (((1, 8, 8, 16),) * 3, "mve", "same shapes; MVE 4 lanes"),
    # general broadcasts (em_nn_broadcast.c): both operands broadcast, a middle axis
    (((1, 8, 8, 1), (1, 1, 1, 16), (1, 8, 8, 16)), "dsp",
     "general broadcast: 64 runs of 16, one operand repeated along each; scalar per element"),
    (((2, 3, 4), (1, 3, 1), (2, 3, 4)), "mve", "general broadcast: 6 runs of 4, one operand repeated along each; MVE 4 lanes"),
    (((2, 3, 4), (2, 1, 4), (2, 3, 4)), "scalar", "general broadcast: 6 runs of 4; scalar per element"),
    (((2, 3, 4), (1, 3, 4), (2, 3, 4)), "scalar", "row operand broadcast; scalar per element"),
    (((1,), (1, 1, 1, 1), (1, 1, 1, 1)), "dsp", "same shapes; scalar per element"),
])
def test_add_variants(shapes, tier, expected):
    assert kv.kernel_variant(*_binary(*shapes), tier) == expected


def _lut(x_shape: tuple, table_shape: tuple, attrs: dict) -> tuple[Graph, Op]:
    g = Graph({"x": Tensor("x", "int8", x_shape, offset=0), "y": Tensor("y", "int8", x_shape, offset=0),
               "t": Tensor("t", "int8", table_shape, data=np.zeros(table_shape, np.int8))}, [], ["x"], ["y"])
    return g, Op("lut", ["x", "t"], ["y"], attrs)


@pytest.mark.parametrize("x_shape, table_shape, attrs, tier, expected", [
    # em_op_lut.c: a [256] table, em_lut_s8 (whatever the axis)
    ((1, 4, 4, 16), (256,), {}, "mve", "MVE 16-lane byte gather"),
    ((1, 4, 4, 16), (256,), {"axis": 1}, "dsp", "scalar"),
    # em_lut_channels_s8.c: inner == 1, inner >= EM_NN_LUT_MVE_RUN_MIN, else scalar
    ((1, 4, 4, 16), (16, 256), {}, "mve", "per-channel tables, the channel last; MVE 8 lanes per gather, each from its channel's row"),
    ((1, 4, 4, 16), (16, 256), {"axis": 3}, "scalar", "per-channel tables, runs of 1; scalar"),
    ((1, 4, 4, 16), (4, 256), {"axis": 1}, "mve", "per-channel tables, runs of 64; MVE 16-lane byte gather per run"),
    ((1, 4, 4, 16), (4, 256), {"axis": -3}, "dsp", "per-channel tables, runs of 64; scalar"),
    ((2, 5, 15), (5, 256), {"axis": 1}, "mve", "per-channel tables, runs of 15; scalar"),
    ((2, 5, 16), (5, 256), {"axis": -2}, "mve", "per-channel tables, runs of 16; MVE 16-lane byte gather per run"),
])
def test_lut_variants(x_shape, table_shape, attrs, tier, expected):
    assert kv.kernel_variant(*_lut(x_shape, table_shape, attrs), tier) == expected


def test_reshape_tier_table_and_float_variants():
    g = Graph({"x": Tensor("x", "int8", (1, 4), offset=32), "y": Tensor("y", "int8", (4,), offset=32)}, [], ["x"], ["y"])
    op = Op("reshape", ["x"], ["y"], {})
    assert kv.kernel_variant(g, op, "mve") == "alias: no copy"
    g.tensors["y"].offset = 64
    assert kv.kernel_variant(g, op, "mve") == "one memmove"
    assert kv.kernel_variant(g, Op("softmax", ["x"], ["y"], {}), "dsp") == "scalar (every tier)"
    assert kv.kernel_variant(g, Op("float_unary", ["x"], ["y"], {}), "mve") == "portable float32"
    assert all(kv.kernel_variant(g, Op(kind, ["x"], ["y"], {}), "dsp") for kind, spec in OP_TABLE.items()
               if not callable(spec.path))


# The rules' constants are the C sources' (a #define gone from the C — e.g. stack scratch moved
# into the arena — means the rule's fallback must be 0).
C_CONSTANTS = [
    ("runtime/ops/em_op_conv2d.c", "EM_CONV2D_STACK_SCRATCH", conv_options.CONV2D_STACK_SCRATCH),
    ("runtime/kernels/em_depthwise_conv2d_m1_s8.c", "EM_NN_DWF_ROWS_BYTES", conv_options.DEPTHWISE_ROWS_STACK),
    ("runtime/kernels/include/em_nn_functions.h", "EM_NN_DWF_MAX_TAPS", depthwise_conv2d.DW_FAST_MAX_TAPS),
    ("runtime/kernels/include/em_nn_functions.h", "EM_NN_DWF_MAX_CHANNELS", depthwise_conv2d.DW_FAST_MAX_CHANNELS),
    ("runtime/kernels/include/em_nn_conv2d_mve.h", "EM_NN_CONV_BLOCK", conv2d.CONV_MVE_BLOCK),
    ("runtime/kernels/em_add_s8.c", "EM_NN_ADD_TABLE_MIN", add.ADD_TABLE_MIN),
    ("runtime/kernels/em_lut_channels_s8.c", "EM_NN_LUT_MVE_RUN_MIN", lut.LUT_MVE_RUN_MIN),
    ("runtime/kernels/include/em_nn_s16.h", "EM_NN_S16_SUM32_MAX_TERMS", conv_options.S16_SUM32_MAX_TERMS),
    ("runtime/kernels/include/em_nn_s16.h", "EM_NN_S16_VECTOR_MIN_SHIFT", conv_options.S16_VECTOR_MIN_SHIFT),
    ("runtime/kernels/include/em_nn_s16.h", "EM_NN_S16_MAX_SHIFT", REQUANTIZE_S64_MAX_SHIFT),
]


@pytest.mark.parametrize("path, name, value", C_CONSTANTS)
def test_rule_constants_match_the_c_sources(path, name, value):
    found = re.search(rf"#define {name} \(?(-?\d+)\)?", (REPO / path).read_text())
    assert (int(found.group(1)) if found else 0) == value, f"{name} in {path}: update the op's record in compiler/ops/"


def test_c_conditions_the_rules_copy_are_still_there():
    """The dispatch lines the path descriptions (and below Helium, pixel_order) follow, verbatim: a
    change there must change the rule too. Helium's variants are the compiler's choice, refused
    at load where they do not fit (tests/runtime/test_kernel_paths.py)."""
    conv = (REPO / "runtime/kernels/include/em_nn_conv_window.h").read_text()
    assert "d->kernel_h == 1 && (d->kernel_w == 1 || p->dilation_w == 1) && p->groups == 1" in conv
    assert "ctx->size >= 4 * col_bytes && k >= 32" in (REPO / "runtime/kernels/em_conv2d_s8_scalar_dsp.c").read_text()
    m1 = (REPO / "runtime/kernels/em_depthwise_conv2d_m1_s8.c").read_text()
    assert "p.depth_multiplier != 1 || kh * kw > EM_NN_DWF_MAX_TAPS || cs > EM_NN_DWF_MAX_CHANNELS" in m1
    assert "cs % 4 == 0 && kh == 3 && kw == 3 && p.stride_w == 1 && p.dilation_w == 1" in m1
    lut = (REPO / "runtime/kernels/em_lut_channels_s8.c").read_text()
    assert "if (inner == 1) {" in lut and "if (inner >= EM_NN_LUT_MVE_RUN_MIN) {" in lut
    adapter = (REPO / "runtime/ops/em_op_lut.c").read_text()
    assert "if (table->rank == 1) {" in adapter and "table->dtype == EM_DTYPE_INT16) {" in adapter
