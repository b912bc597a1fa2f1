"""What `python -m compiler inspect PROGRAM` shows: every op with its shapes, quantization,
kernel variant on the program's tier, MACs and constant bytes, every buffer's arena, offset and
size; as a table for a person, JSON for a machine, or a graph for Google's Model Explorer.

    python -m compiler inspect model.embr [--json]
    python -m compiler inspect model.embr [--profile build/<board>-profile/<app>/profile.json] \
        [--model-explorer model.graph.json]

The Model Explorer file is a GraphCollection of the `ai-edge-model-explorer` package's graph
builder (nodes = ops, edges = tensors, the report's data as node attributes); open it with
`model-explorer FILE`. With a profile (tools/op_profile.py's profile.json) each op's count is a
column of the table, a field of the JSON and a value of a node data file (FILE with
.node_data.json) that colours the hot layers: `model-explorer FILE --node_data_paths=...`.
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np

from compiler.errors import ProfileFormatError
from compiler.ir import Graph, Quant, Tensor
from compiler.kernel_variants import chosen_variants, kernel_variant
from compiler.layers import layer_rows
from compiler.planner import aliases, inputs_kept

# After an input's place in the inputs line: whether an invoke leaves its bytes (ember.h,
# em_program_input_kept).
KEPT_TEXT = {True: " (kept by invoke)", False: " (consumed by invoke: write it before each)"}


def _quant(quant: Quant | None) -> dict | None:
    """Per tensor: scale and zero point; per channel: how many scales, their min and max."""
    if quant is None:
        return None
    scale = np.asarray(quant.scale, np.float64).reshape(-1)
    zero_point = np.asarray(quant.zero_point).reshape(-1)
    if quant.axis is None and scale.size == 1:
        return {"scale": float(scale[0]), "zero_point": int(zero_point[0])}
    zps = sorted({int(z) for z in zero_point})
    return {"axis": quant.axis, "channels": int(scale.size), "scale_min": float(scale.min()),
            "scale_max": float(scale.max()), "zero_point": zps[0] if len(zps) == 1 else zps}


def _tensor(graph: Graph, name: str, alias_of: dict[str, str]) -> dict:
    t: Tensor = graph.tensors[name]
    entry = {"name": name, "dtype": t.dtype, "shape": list(t.shape), "bytes": t.nbytes, "quant": _quant(t.quant)}
    if t.is_constant:
        entry["constant"] = True
    else:
        entry["arena"] = graph.arenas[t.arena].name if t.arena < len(graph.arenas) else f"arena{t.arena}"
        entry["offset"] = t.offset
        if name in alias_of:
            entry["alias_of"] = alias_of[name]
    return entry


def describe(program) -> dict:
    """The whole report as plain data (JSON-ready)."""
    graph, tier = program.graph, program.target.tier
    alias_of = aliases(graph)
    chosen = chosen_variants(graph, tier, program.target.optimize)
    kept = program.recorded_inputs_kept if program.recorded_inputs_kept is not None else inputs_kept(graph)
    ops = []
    for i, (op, row) in enumerate(zip(graph.ops, layer_rows(graph))):
        constants = sum(graph.tensors[t].nbytes for t in op.inputs if graph.tensors[t].is_constant)
        ops.append({"index": i, "layer": row["layer"], "op": op.kind, "shape": row["shape"],
                    "precision": row["precision"], "variant": kernel_variant(graph, op, tier, chosen[i]),
                    "variants": sorted(chosen[i]), "macs": row["macs"], "constant_bytes": constants,
                    "origin": op.origin, "inputs": [_tensor(graph, t, alias_of) for t in op.inputs],
                    "outputs": [_tensor(graph, t, alias_of) for t in op.outputs]})
    users: dict[str, list[int]] = {}
    for i, op in enumerate(graph.ops):
        for t in op.inputs + op.outputs:
            users.setdefault(t, []).append(i)
    buffers = [dict(_tensor(graph, name, alias_of), ops=users.get(name, []))
               for name, t in graph.tensors.items() if not t.is_constant]
    buffers.sort(key=lambda b: (b["arena"], -1 if b["offset"] is None else b["offset"], b["ops"][:1], b["name"]))
    return {"program": program.name, "target": program.target.cpu, "tier": tier,
            "arenas": [{"name": a.name, "size": a.size} for a in graph.arenas],
            "inputs": [dict(_tensor(graph, t, alias_of), kept=kept) for t, kept in zip(graph.inputs, kept)],
            "outputs": [_tensor(graph, t, alias_of) for t in graph.outputs],
            "state": [dict(_tensor(graph, s.tensor, alias_of), next=s.next,
                           copied=graph.tensors[s.next].offset != graph.tensors[s.tensor].offset
                           or graph.tensors[s.next].arena != graph.tensors[s.tensor].arena) for s in graph.state],
            "macs": sum(o["macs"] for o in ops), "constant_bytes": sum(o["constant_bytes"] for o in ops),
            "ops": ops, "buffers": buffers}


def _g(x: float) -> str:
    return f"{x:.4g}"


def quant_text(quant: dict | None) -> str:
    if quant is None:
        return "-"
    if "channels" in quant:
        return f"{quant['channels']} scales {_g(quant['scale_min'])}..{_g(quant['scale_max'])}"
    return f"{_g(quant['scale'])} zp {quant['zero_point']}"


def buffer_text(t: dict) -> str:
    if t.get("constant"):
        return f"const {t['bytes']} B"
    offset = "?" if t["offset"] is None else t["offset"]
    return f"{t['arena']}@{offset}+{t['bytes']}"


def _table(headers: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    """Columns padded to their widest cell; the columns in `right` aligned right."""
    widths = [max(len(str(r[c])) for r in [headers] + rows) for c in range(len(headers))]
    def line(cells: list) -> str:
        return "  ".join(str(v).rjust(w) if c in right else str(v).ljust(w)
                         for c, (v, w) in enumerate(zip(cells, widths))).rstrip()
    return [line(headers)] + [line(r) for r in rows]


def text(report: dict) -> str:
    """The report as aligned tables for a person."""
    arenas = ", ".join(f"{a['name']} {a['size']:,} B" for a in report["arenas"])
    lines = [f"program {report['program']}: target {report['target']}, tier {report['tier']}, "
             f"{len(report['ops'])} ops, {report['macs']:,} MACs, constants {report['constant_bytes']:,} B, "
             f"arenas: {arenas}"]
    for role in ("inputs", "outputs"):
        lines.append(f"{role}: " + "; ".join(f"{t['name']} {t['dtype']}{t['shape']} {quant_text(t['quant'])} "
                                            f"at {buffer_text(t)}{KEPT_TEXT.get(t.get('kept'), '')}"
                                            for t in report[role]))
    if report.get("state"):
        lines.append("state (kept between invokes, reset to 0 by em_program_reset_state): " + "; ".join(
            f"{t['name']} {t['dtype']}{t['shape']} at {buffer_text(t)} <- {t['next']}"
            + (" (copied after the last op)" if t["copied"] else " (written in place)") for t in report["state"]))
    rows = []
    for o in report["ops"]:
        weights = next((t for t in o["inputs"] if t.get("constant") and t["quant"] and "channels" in t["quant"]), None)
        out = o["outputs"][0]
        counted = [f"{o['count']:,}"] if "count" in o else []
        rows.append([o["index"], o["layer"], o["op"], o["shape"], o["precision"], o["variant"], f"{o['macs']:,}",
                     *counted,
                     f"{o['constant_bytes']:,}", quant_text(out["quant"]),
                     quant_text(weights["quant"]) if weights else "-", buffer_text(out)])
    unit = [report["profile_unit"]] if "profile_unit" in report else []
    lines += [""] + _table(["#", "layer", "op", "shape", "precision", "kernel variant", "MACs", *unit, "const B",
                            "out scale / zp", "weight scales", "out buffer"], rows, {0, 6, 7, 8} if unit else {0, 6, 7})
    rows = [[b["arena"], "?" if b["offset"] is None else b["offset"], b["bytes"], b["name"],
             b.get("alias_of", ""), f"{b['ops'][0]}..{b['ops'][-1]}" if b["ops"] else "-"] for b in report["buffers"]]
    lines += ["", "buffers:"] + _table(["arena", "offset", "size", "tensor", "alias of", "used by ops"], rows, {1, 2})
    return "\n".join(lines)


def load_profile(path: Path, report: dict) -> dict:
    """tools/op_profile.py's profile.json, checked against the program: per op a "count"."""
    path = Path(path)
    if not path.is_file():
        raise ProfileFormatError(f"profile {path} does not exist: write one with "
                                 "`./scons app=<app> profile=1 run=1` (build/<board>-profile/<app>/profile.json)")
    try:
        profile = json.loads(path.read_text())
        layers = profile["layers"]
        counts = [int(layer["count"]) for layer in layers]
        kinds = [layer["op"] for layer in layers]
    except (ValueError, KeyError, TypeError) as error:
        raise ProfileFormatError(f"profile {path} is not tools/op_profile.py's profile.json "
                                 f"(a 'layers' list with 'op' and 'count' per op): {error!r}") from error
    if kinds != [o["op"] for o in report["ops"]]:
        raise ProfileFormatError(f"profile {path} has {len(kinds)} ops that are not this program's "
                                 f"{len(report['ops'])}: profile the firmware built with this program file")
    if any(c < 0 for c in counts):
        raise ProfileFormatError(f"profile {path} has a negative count")
    return {"unit": str(profile.get("unit", "count")), "counts": counts}


def add_profile(report: dict, profile: dict) -> None:
    """Puts each op's count (and the unit) into the report."""
    report["profile_unit"] = profile["unit"]
    for o, count in zip(report["ops"], profile["counts"]):
        o["count"] = count


INPUT_NODE, OUTPUT_NODE = "inputs", "outputs"


def _kv(items: dict) -> list:
    from model_explorer import graph_builder as gb

    return [gb.KeyValue(key=k, value=str(v)) for k, v in items.items()]


def _tensor_attrs(t: dict) -> dict:
    return {"tensor_name": t["name"], "shape": f"{t['dtype']}{t['shape']}", "quantization": quant_text(t["quant"]),
            "buffer": buffer_text(t), **({"alias_of": t["alias_of"]} if "alias_of" in t else {})}


def model_explorer_graph(report: dict, profile: dict | None = None) -> dict:
    """The report as a Model Explorer GraphCollection (as JSON data): a node per op (plus one for
    the program's inputs and one for its outputs), an edge per activation an op reads."""
    from model_explorer import graph_builder as gb

    producer: dict[str, tuple[str, int]] = {t["name"]: (INPUT_NODE, i) for i, t in enumerate(report["inputs"])}
    nodes = [gb.GraphNode(id=INPUT_NODE, label="Inputs", outputsMetadata=[
        gb.MetadataItem(id=str(i), attrs=_kv(_tensor_attrs(t))) for i, t in enumerate(report["inputs"])])]
    for o in report["ops"]:
        node_id = str(o["index"])
        attrs = {"index": o["index"], "layer": o["layer"], "tier": report["tier"], "kernel variant": o["variant"],
                 "shape": o["shape"], "MACs": o["macs"], "constant bytes": o["constant_bytes"], "origin": o["origin"]}
        if profile is not None:
            attrs[profile["unit"]] = profile["counts"][o["index"]]
        edges, inputs_meta = [], []
        for j, t in enumerate(o["inputs"]):
            inputs_meta.append(gb.MetadataItem(id=str(j), attrs=_kv(_tensor_attrs(t))))
            if not t.get("constant"):
                source, output = producer[t["name"]]
                edges.append(gb.IncomingEdge(sourceNodeId=source, sourceNodeOutputId=str(output),
                                             targetNodeInputId=str(j)))
        for k, t in enumerate(o["outputs"]):
            producer[t["name"]] = (node_id, k)
        layer = o["layer"].split("#")[0]
        nodes.append(gb.GraphNode(
            id=node_id, label=o["op"], namespace=layer.replace(".", "/") if layer != o["op"] else "",
            attrs=_kv(attrs), incomingEdges=edges, inputsMetadata=inputs_meta,
            outputsMetadata=[gb.MetadataItem(id=str(k), attrs=_kv(_tensor_attrs(t))) for k, t in enumerate(o["outputs"])]))
    nodes.append(gb.GraphNode(id=OUTPUT_NODE, label="Outputs", incomingEdges=[
        gb.IncomingEdge(sourceNodeId=producer[t["name"]][0], sourceNodeOutputId=str(producer[t["name"]][1]),
                        targetNodeInputId=str(j)) for j, t in enumerate(report["outputs"])]))
    summary = {"target": report["target"], "tier": report["tier"], "ops": len(report["ops"]),
               "MACs": report["macs"], "constant bytes": report["constant_bytes"],
               **{f"arena {a['name']}": f"{a['size']} B" for a in report["arenas"]}}
    if profile is not None:
        summary[f"{profile['unit']} in the operators"] = sum(profile["counts"])
    graph = gb.Graph(id=report["program"] or "program", nodes=nodes,  # "": shown when no node is selected
                     groupNodeAttributes={"": {k: str(v) for k, v in summary.items()}})
    collection = gb.GraphCollection(label=f"{report['program']} ({report['target']}, {report['tier']})", graphs=[graph])
    return dataclasses.asdict(collection)


def model_explorer_node_data(report: dict, profile: dict) -> str:
    """The profile's counts as Model Explorer node data (JSON text) keyed by op node id."""
    from model_explorer import node_data_builder as nd

    data = nd.GraphNodeData(
        name=profile["unit"],
        results={str(i): nd.NodeDataResult(value=c) for i, c in enumerate(profile["counts"])},
        gradient=[nd.GradientItem(stop=0, bgColor="#ffffff"), nd.GradientItem(stop=1, bgColor="#c0392b")])
    return nd.ModelNodeData(graphsData={report["program"] or "program": data}).to_json_string(indent=2)


def node_data_path(graph_path: Path) -> Path:
    """Where the node data of graph file `x.json` goes: `x.node_data.json`."""
    graph_path = Path(graph_path)
    return graph_path.with_name(graph_path.name.removesuffix(".json") + ".node_data.json")
