"""Numerics debugger: one input through the model at every stage, layer by layer.

    ./scons app=anomaly numerics=1 [board=…]          # QEMU: build/<board>/<app>/numerics.{md,json}
    python -m tools.debug_numerics --app anomaly --board corstone300 [--tier T] [--model M] [--vector N]
                                   [--port URL] [--build DIR]   # from the checkout's root

Stages, compared at every op output of the lowered program:
  float       the PyTorch model, eager (batch norms folded as for export), every node's value
  pt2e        PT2E's quantized model (torchao convert_pt2e), the int8 value of each quantize node
  reference   Ember's integer reference (compiler/reference.py), every tensor
  device      the firmware (a `serve=1` build) over the serial link: operators 0..k run with
              RUN_TO k+1, then op k's outputs read with GET_TENSOR before a later op reuses them

The report gives per layer the SQNR (dB) of pt2e, reference and device against float; the
share of elements where the reference is within 1 LSB of PT2E; the share where the device equals
the reference exactly; and the first layer where device and reference differ (the divergence to
chase). Tensors are matched by name: Ember keeps the quantize node names of the PT2E graph, and a
quantize node's input is the float node it quantizes. Ember activations are NHWC, PyTorch's
NCHW: 4-D float values are transposed before comparing.
"""
from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from compiler.ir import Graph
from compiler.layers import layer_name, precision
from compiler.program import Program, write_atomically
from tools.ember_link import Link, LinkError, serve
from ember_build.paths import BUILD_ROOT



class NumericsError(LinkError):
    """The firmware does not run the program this tool lowered (rebuild it), or bad arguments."""


def capture(module: torch.fx.GraphModule, inputs: tuple) -> dict[str, torch.Tensor]:
    """Every node's value of one run of an FX graph module, by node name."""
    values: dict[str, torch.Tensor] = {}

    class Recorder(torch.fx.Interpreter):
        def run_node(self, node):
            result = super().run_node(node)
            if isinstance(result, torch.Tensor):
                values[node.name] = result.detach()
            return result

    with torch.no_grad():
        Recorder(module).run(*inputs)
    return values


def _to_ember_layout(value: np.ndarray, shape: tuple[int, ...]) -> np.ndarray | None:
    """A PyTorch value in an Ember tensor's layout: a 4-D map NCHW → NHWC (PyTorch's 4-D
    activations are all NCHW, Ember's all NHWC) and then under the tensor's shape (a reduction's
    result is named on the op that computes it, whose [N·H·W, 1] holds the map's NHWC bytes:
    lower_reductions), other ranks as they are."""
    if value.size != int(np.prod(shape)):
        return None
    if value.ndim == 4:
        value = value.transpose(0, 2, 3, 1)
    return value.reshape(shape)


def dequantize(graph: Graph, name: str, value: np.ndarray) -> np.ndarray:
    tensor = graph.tensors[name]
    if tensor.quant is None or tensor.dtype.startswith("float"):
        return value.astype(np.float64)
    return (value.astype(np.float64) - float(tensor.quant.zero_point[0])) * float(tensor.quant.scale[0])


def sqnr(reference: np.ndarray, value: np.ndarray) -> float:
    """Signal-to-quantization-noise ratio in dB (inf when equal)."""
    noise = float(np.sum((reference - value) ** 2))
    signal = float(np.sum(reference ** 2))
    if noise == 0.0:
        return float("inf")
    return 10.0 * np.log10(signal / noise) if signal > 0 else float("-inf")


@dataclass
class Layer:
    index: int
    layer: str
    op: str
    tensor: str
    shape: tuple[int, ...]
    precision: str = ""  # compiler.layers.precision: "a8w8", "a8w4", "f32" …
    sqnr: dict[str, float] = field(default_factory=dict)  # stage → dB against float
    reference_vs_pt2e_1lsb: float | None = None
    device_equal: float | None = None
    device_max_lsb: int | None = None


def _to_torch_layout(x: np.ndarray) -> torch.Tensor:
    """A program input (NHWC if 4-D) as PyTorch takes it (NCHW)."""
    x = np.asarray(x, np.float32)
    return torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2) if x.ndim == 4 else x))


def _model_inputs(graph, inputs: list[np.ndarray], reference: dict) -> list[np.ndarray]:
    """What the PyTorch model takes: the program's inputs, or, for a program that starts with an
    audio front end (compiler/passes/add_front_end.py), the features it computes (the reshape
    after it; dequantized when the model's input is int8)."""
    if not any(op.kind == "mel_features" for op in graph.ops):
        return inputs
    model_input = next(op.outputs[0] for op in graph.ops if op.kind == "reshape")
    value, tensor = reference[model_input], graph.tensors[model_input]
    if tensor.dtype == "int8":
        value = (value.astype(np.float32) - tensor.quant.zero_point[0]) * tensor.quant.scale[0]
    return [np.asarray(value, np.float32)]


def stage_values(model: torch.nn.Module, program: Program, inputs: list[np.ndarray]) -> dict[str, dict[str, np.ndarray]]:
    """Each stage's values by Ember tensor name (float ones in Ember's layout, int8 ones raw).
    `inputs` are the program's (Ember's layout: 4-D ones NHWC, as the test vectors are)."""
    from compiler.frontend import export_float

    graph = program.graph
    inputs = [np.asarray(x).reshape(graph.tensors[name].shape) for x, name in zip(inputs, graph.inputs)]
    reference = program.run_reference(*inputs, keep_all=True)
    torch_inputs = tuple(_to_torch_layout(x) for x in _model_inputs(graph, inputs, reference))
    floats = {k: v.numpy() for k, v in capture(export_float(model, torch_inputs), torch_inputs).items()}
    quantized = getattr(program.quantized_model, "module", program.quantized_model)  # the GraphModule
    pt2e_nodes = {n.name: n for n in quantized.graph.nodes}
    pt2e = capture(quantized, torch_inputs)
    stages: dict[str, dict[str, np.ndarray]] = {"float": {}, "pt2e": {}, "reference": {}}
    for name, tensor in graph.tensors.items():
        if tensor.is_constant or name not in reference:  # constants; kernel scratch (".scratch")
            continue
        stages["reference"][name] = reference[name]
        node = pt2e_nodes.get(name)
        if node is None:
            continue
        if name in pt2e or node.name in pt2e:
            value = _to_ember_layout(pt2e[node.name].numpy(), tensor.shape)
            if value is not None:
                stages["pt2e"][name] = value
        source = node.args[0].name if node.args and hasattr(node.args[0], "name") else None
        if name.startswith("quantize") and source in floats:
            value = _to_ember_layout(floats[source], tensor.shape)
            if value is not None:
                stages["float"][name] = value
    return stages


CODE_DTYPES = {"int8": torch.int8, "int16": torch.int16}


def pt2e_codes(program: Program, inputs: list[np.ndarray]) -> dict[str, np.ndarray]:
    """PyTorch's quantized model's int8 (and A16W8's int16) codes by Ember tensor name, in Ember's
    layout, for the program's `inputs` (Ember's layout)."""
    graph = program.graph
    inputs = [np.asarray(x).reshape(graph.tensors[name].shape) for x, name in zip(inputs, graph.inputs)]
    torch_inputs = tuple(_to_torch_layout(x) for x in inputs)
    quantized = getattr(program.quantized_model, "module", program.quantized_model)
    pt2e = capture(quantized, torch_inputs)
    codes = {}
    for name, tensor in graph.tensors.items():
        value = pt2e.get(name)
        if (tensor.dtype in CODE_DTYPES and not tensor.is_constant and value is not None
                and value.dtype == CODE_DTYPES[tensor.dtype]):
            laid_out = _to_ember_layout(value.numpy(), tensor.shape)
            if laid_out is not None:
                codes[name] = laid_out
    return codes


def op_by_op_lsb(program: Program, inputs: list[np.ndarray]) -> list[tuple[int, str, int]]:
    """Each op's own distance from PyTorch's quantized model: the op runs on PyTorch's int8 codes
    of its inputs where PyTorch has them (its own reference values elsewhere), and its int8
    output is compared with PyTorch's. (op index, kind, most LSBs apart) for every op whose
    output PyTorch has; an end-to-end comparison adds up every earlier op's rounding instead."""
    from compiler.ops import OP_TABLE

    codes = pt2e_codes(program, inputs)
    graph = program.graph
    values = {name: t.data for name, t in graph.tensors.items() if t.is_constant}
    for name, x in zip(graph.inputs, inputs):
        values[name] = np.asarray(x).reshape(graph.tensors[name].shape).astype(np.dtype(
            {"int8": np.int8, "float32": np.float32, "int16": np.int16}[graph.tensors[name].dtype]))
    rows = []
    for k, op in enumerate(graph.ops):
        results = OP_TABLE[op.kind].reference(op, [codes.get(t, values.get(t)) for t in op.inputs])
        worst = None
        for name, result in zip(op.outputs, results):
            values[name] = result.reshape(graph.tensors[name].shape)
            if name in codes:
                lsb = int(np.abs(values[name].astype(np.int32) - codes[name].astype(np.int32)).max(initial=0))
                worst = lsb if worst is None else max(worst, lsb)
        if worst is not None:
            rows.append((k, op.kind, worst))
    return rows


def device_values(link: Link, program: Program, built: Program, inputs: list[np.ndarray]) -> dict[str, np.ndarray]:
    """Every op's outputs on the device, op by op (RUN_TO k+1, then GET_TENSOR)."""
    info = link.info()
    if info.program_bytes != len(built.to_bytes()):
        raise NumericsError("the firmware runs another program than this lowering: rebuild it "
                            "(`scons app=<app> serve=1`) from the same checkpoint and sources")
    index = {name: i for i, name in enumerate(built.graph.tensors)}
    values = {}
    for k, op in enumerate(program.graph.ops):
        for i, x in enumerate(inputs):  # an in-place op may have written over an input
            link.set_input(i, np.asarray(x, info.inputs[i].dtype))
        if info.state:  # RUN_TO may have written part of the state: each starts from a reset
            link.reset_state()
        link.run_to(k + 1)
        for name in op.outputs:
            tensor = program.graph.tensors[name]
            dtype = np.dtype({"int8": np.int8, "int32": np.int32, "float32": np.float32}.get(tensor.dtype, np.int8))
            raw = link.tensor(index[name], int(np.prod(tensor.shape)) * dtype.itemsize)
            values[name] = np.frombuffer(raw, dtype).reshape(tensor.shape)
    return values


def compare(program: Program, stages: dict[str, dict[str, np.ndarray]]) -> list[Layer]:
    graph = program.graph
    rows = []
    for k, op in enumerate(graph.ops):
        name = op.outputs[0]
        row = Layer(k, layer_name(op), op.kind, name, graph.tensors[name].shape, precision(graph, op))
        reference = stages["reference"].get(name)
        float_value = stages["float"].get(name)
        for stage in ("pt2e", "reference", "device"):
            value = stages.get(stage, {}).get(name)
            if float_value is not None and value is not None:
                row.sqnr[stage] = sqnr(float_value.astype(np.float64), dequantize(graph, name, value))
        pt2e = stages["pt2e"].get(name)
        if pt2e is not None and reference is not None and reference.dtype == np.int8:
            row.reference_vs_pt2e_1lsb = float(np.mean(np.abs(reference.astype(np.int32) - pt2e.astype(np.int32)) <= 1))
        device = stages.get("device", {}).get(name)
        if device is not None and reference is not None:
            row.device_equal = float(np.mean(device == reference))
            diff = np.abs(device.astype(np.float64) - reference.astype(np.float64))
            row.device_max_lsb = int(np.nanmax(diff)) if reference.dtype == np.int8 else None
        rows.append(row)
    return rows


def report(rows: list[Layer], title: str) -> tuple[str, dict]:
    first = next((r for r in rows if r.device_equal is not None and r.device_equal < 1.0), None)
    verdict = ("device and reference agree on every layer" if first is None and any(r.device_equal is not None for r in rows)
               else f"first divergence: layer {first.index} {first.layer} ({first.op})" if first
               else "no device stage")

    def db(v: float | None) -> str:
        return "—" if v is None else ("exact" if v == float("inf") else f"{v:.1f}")

    def pct(v: float | None) -> str:
        return "—" if v is None else f"{v:.1%}"

    lines = [f"{title}: {verdict}", "",
             "| # | layer | op | shape | precision | SQNR pt2e | SQNR reference | SQNR device | ref vs pt2e ≤1 LSB "
             "| device = reference |",
             "|---:|---|---|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r.index} | {r.layer} | {r.op} | {'x'.join(map(str, r.shape))} | {r.precision} | "
                     f"{db(r.sqnr.get('pt2e'))} | "
                     f"{db(r.sqnr.get('reference'))} | {db(r.sqnr.get('device'))} | {pct(r.reference_vs_pt2e_1lsb)} | "
                     f"{pct(r.device_equal)} |")
    data = {"title": title, "first_divergence": None if first is None else first.index, "verdict": verdict,
            "layers": [{**r.__dict__, "shape": list(r.shape),
                        "sqnr": {k: (None if not np.isfinite(v) else v) for k, v in r.sqnr.items()}} for r in rows]}
    return "\n".join(lines) + "\n", data


def debug_app(app_name: str, board, elf: Path | None, gen: Path, out: Path | None, vector: int = 0,
              port: str | None = None, variant: str = "") -> tuple[str, dict]:
    """Lowers the app for `board`, runs test vector `vector` through every stage (the device
    stage through `elf` in QEMU or the natively built host firmware, or a real board on `port`),
    writes numerics.md / .json to `out` and returns them."""
    from ember_build.app_build import load_app, lower_app, model_module

    app = load_app(app_name, variant)  # variant: app.yaml's model= (person_detect yolo / vww)
    module = model_module(app)
    program, model, _ = lower_app(app, module, board)
    built = Program.load(gen / "program.embr")
    if built.to_bytes() != program.to_bytes():
        raise NumericsError(f"{gen / 'program.embr'} differs from a fresh lowering of {app_name}: rebuild it")
    vectors = np.load(gen / "expected.npz")["inputs"]
    if not 0 <= vector < len(vectors):
        raise NumericsError(f"test vector {vector} does not exist: the app embeds {len(vectors)}")
    inputs = [vectors[vector]]
    stages = stage_values(model, program, inputs)
    if port:
        with Link.open(port) as link:
            stages["device"] = device_values(link, program, built, inputs)
    elif elf is not None:
        with serve(board, elf) as link:
            stages["device"] = device_values(link, program, built, inputs)
            link.shutdown()
    text, data = report(compare(program, stages), f"{app_name} on {board.name} ({board.tier}), test vector {vector}")
    if out is not None:
        write_atomically(out / "numerics.md", text)
        write_atomically(out / "numerics.json", json.dumps(data, indent=2) + "\n")
    return text, data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--app", required=True)
    parser.add_argument("--board", default="corstone300")
    parser.add_argument("--tier", default="", help="the tier the app was built for (scons tier=; default: the board's)")
    parser.add_argument("--model", default="", help="the app's model, for apps with several (scons model=)")
    parser.add_argument("--vector", type=int, default=0, help="which embedded test vector (default 0)")
    parser.add_argument("--port", help="a real board's serial port running the serve=1 firmware")
    parser.add_argument("--no-device", action="store_true", help="float, PT2E and reference only")
    parser.add_argument("--build", type=Path, help="the app's build folder (default: build/<board>[-<tier>]/<app>[-<model>])")
    args = parser.parse_args()
    from ember_build.board import load_board

    board = load_board(args.board).for_tier(args.tier)
    base = args.build or BUILD_ROOT / board.build_name / (f"{args.app}-{args.model}" if args.model else args.app)
    elf = base / "serve" / ("firmware.elf" if board.emulator else "firmware")
    if not args.no_device and not args.port and not elf.exists():
        raise SystemExit(f"error: no serving firmware at {elf}: build it with "
                         f"`./scons app={args.app} board={args.board} serve=1` (or pass --no-device)")
    text, _ = debug_app(args.app, board, None if args.no_device else elf, base / "gen", base, args.vector, args.port,
                        args.model)
    print(text)


if __name__ == "__main__":
    main()
