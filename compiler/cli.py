"""Command line of the compiler, for a user's own model (`ember` once installed: pyproject.toml).

    python -m compiler lower --model path/to/model.py:build --input-shape 1,640 \
        --calibration calib.npy --target cortex-m55 -o model.embr [--emit-c DIR] [--int8-io]
        [--skip-modules head,blocks.3] [--skip-ops softmax,div] [--front-end mfcc_kws]
        [--precision a8w4] [--int4-modules head,blocks.3] [--int16-modules stem] [--flash-budget 250000]
    python -m compiler inspect model.embr [--json] [--model-explorer graph.json] [--profile profile.json]
    python -m compiler run model.embr --input x.npy [--output y.npy]

`--model` names a function returning an nn.Module (with trained weights), as FILE.py:FUNC or
package.module:FUNC. `--calibration` is a .npy array whose first axis runs over calibration
samples, each of the input shape without its batch dimension (or with batch 1).
`--front-end` (mfcc_kws, log_mel_anomaly: compiler.audio_features) makes the program take raw
int16 audio and compute the model's input on the device; the calibration stays features.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from pathlib import Path

import numpy as np

from compiler.errors import EmberCompileError
from compiler.target import TIERS

def _load_model_factory(spec: str):
    location, _, function = spec.rpartition(":")
    if not location or not function:
        raise SystemExit(f"error: --model must be FILE.py:FUNCTION or module:FUNCTION, got {spec!r}")
    if location.endswith(".py"):
        path = Path(location)
        if not path.exists():
            raise SystemExit(f"error: model file {path} does not exist")
        module_spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(module_spec)
        sys.path.insert(0, str(path.parent.resolve()))
        module_spec.loader.exec_module(module)
    else:
        module = importlib.import_module(location)
    if not hasattr(module, function):
        raise SystemExit(f"error: {location} has no function {function!r}")
    return getattr(module, function)


def _input_shape(text: str) -> tuple[int, ...]:
    try:
        shape = tuple(int(d) for d in text.split(","))
    except ValueError:
        shape = ()
    if not shape or any(d < 1 for d in shape):
        raise SystemExit(f"error: --input-shape takes the example input's dims as positive integers separated by "
                         f"commas, e.g. 1,640 or 1,3,96,96; got {text!r}")
    return shape


def _calibration(path: Path, shape: tuple[int, ...]):
    """The .npy's samples as batches of the input's shape: an array [N, *sample] where `shape` is
    [batch, *sample], or [N, *shape] (each sample with its batch)."""
    import torch

    if not path.exists():
        raise SystemExit(f"error: calibration file {path} does not exist")
    try:
        samples = np.load(path, allow_pickle=False).astype(np.float32)
    except (ValueError, OSError) as error:
        raise SystemExit(f"error: {path} is not a NumPy .npy array of numbers ({error})") from None
    sample = tuple(shape[1:])
    if samples.ndim == len(shape) and tuple(samples.shape[1:]) == sample and samples.shape[0] >= 1:
        batches = samples.reshape((-1, shape[0]) + sample) if samples.shape[0] % shape[0] == 0 else None
    elif samples.ndim == len(shape) + 1 and tuple(samples.shape[1:]) == tuple(shape):
        batches = samples
    else:
        batches = None
    if batches is None:
        raise SystemExit(f"error: {path} holds an array of shape {list(samples.shape)}: give one of shape "
                         f"[samples, {', '.join(map(str, sample))}] for --input-shape {','.join(map(str, shape))} "
                         "(the input's shape without its batch, in the model's own layout)")
    return [torch.from_numpy(np.ascontiguousarray(b)) for b in batches]


def _lower(args: argparse.Namespace) -> int:
    from compiler.target import Target

    target = Target(args.target, args.tier or "")  # a bad CPU or tier fails before torch loads
    import torch

    from compiler import lower
    from compiler.quantizer import CortexMQuantizer

    shape = _input_shape(args.input_shape)
    model = _load_model_factory(args.model)()
    quantizer = CortexMQuantizer(skip_modules=_names(args.skip_modules), skip_ops=_names(args.skip_ops),
                                 precision=args.precision,
                                 precision_modules={**{name: "a16w8" for name in _names(args.int16_modules)},
                                                    **{name: "a8w4" for name in _names(args.int4_modules)}})
    front_end = None
    if args.front_end:
        from compiler.audio_features import FRONT_ENDS

        if args.front_end not in FRONT_ENDS:
            raise SystemExit(f"error: unknown --front-end {args.front_end!r}; known: {', '.join(FRONT_ENDS)}")
        front_end = FRONT_ENDS[args.front_end]
    example, calibration = (torch.zeros(shape),), _calibration(args.calibration, shape)
    if args.flash_budget is not None:
        from compiler import precision

        quantizer = precision.choose(model, example, calibration, target, flash_budget=args.flash_budget,
                                     quantizer=quantizer, int8_io=args.int8_io, front_end=front_end).quantizer()
    program = lower(model, example, calibration,
                    target, int8_io=args.int8_io, name=args.name, quantizer=quantizer, front_end=front_end)
    program.save(args.output)
    print(program.summary())
    print(f"wrote {args.output} ({len(program.to_bytes())} bytes)")
    if args.emit_c:
        for path in program.emit_c(args.emit_c):
            print(f"wrote {path}")
    return 0


def _names(text: str | None) -> tuple[str, ...]:
    return tuple(name.strip() for name in (text or "").split(",") if name.strip())


def _inspect(args: argparse.Namespace) -> int:
    import json

    from compiler import inspection
    from compiler.program import Program, float_fallback_report, write_atomically

    if not args.program.is_file():
        raise FileNotFoundError(f"program file {args.program} does not exist: write one with "
                                "`python -m compiler lower ... -o FILE`")
    program = Program.load(args.program)
    report = inspection.describe(program)
    profile = inspection.load_profile(args.profile, report) if args.profile else None
    if profile is not None:
        inspection.add_profile(report, profile)
    if args.model_explorer:
        graph = inspection.model_explorer_graph(report, profile)
        write_atomically(args.model_explorer, json.dumps(graph, indent=1) + "\n")
        opened = f"model-explorer {args.model_explorer}"
        if profile is not None:
            data_path = inspection.node_data_path(args.model_explorer)
            write_atomically(data_path, inspection.model_explorer_node_data(report, profile) + "\n")
            opened += f" --node_data_paths={data_path}"
        print(f"wrote {args.model_explorer}; view it with: {opened}", file=sys.stderr if args.json else sys.stdout)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(inspection.text(report))
        fallback = float_fallback_report(program.graph)
        if fallback:
            print(fallback)
    return 0


def _run(args: argparse.Namespace) -> int:
    from compiler.program import Program

    if not args.program.is_file():
        raise FileNotFoundError(f"program file {args.program} does not exist")
    if not args.input.is_file():
        raise FileNotFoundError(f"input file {args.input} does not exist")
    program = Program.load(args.program)
    try:
        x = np.load(args.input, allow_pickle=False)
    except (ValueError, OSError) as error:
        raise SystemExit(f"error: {args.input} is not a NumPy .npy array ({error})") from None
    outputs = program.run_reference(x)
    if args.output:
        np.save(args.output, outputs[0])
    print(outputs[0])
    return 0


def main(argv: list[str] | None = None) -> int:
    # `ember …` (the console script pyproject.toml installs) or `python -m compiler …`: the same
    # command line, named as the user typed it in usage and errors.
    prog = "ember" if Path(sys.argv[0]).name == "ember" else "python -m compiler"
    parser = argparse.ArgumentParser(prog=prog, description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("lower", help="PyTorch model -> program file")
    p.add_argument("--model", required=True, help="FILE.py:FUNCTION or module:FUNCTION returning the nn.Module")
    p.add_argument("--input-shape", required=True, help="example input shape, e.g. 1,640")
    p.add_argument("--calibration", required=True, type=Path, help=".npy of representative inputs")
    p.add_argument("--target", default="cortex-m55")
    p.add_argument("--tier", default=None, help=f"a lower tier than the CPU's best ({', '.join(TIERS)}): "
                   "e.g. dsp for an M55 built without MVE; the program records it and a runtime of "
                   "another tier refuses it (EM_ERR_WRONG_TIER)")
    p.add_argument("--int8-io", action="store_true", help="take and return int8 instead of float32")
    p.add_argument("--skip-modules", help="submodules to leave in float, e.g. head,blocks.3 (float32 kernels)")
    p.add_argument("--skip-ops", help="ATen ops to leave in float, e.g. softmax,add")
    p.add_argument("--precision", default="a8w8", choices=["a8w8", "a8w4", "a16w8"],  # quantizer.PRECISIONS (no torch)
                   help="every layer's precision (a8w4: int4 weights where an int4 kernel exists; a16w8: int16 "
                   "activations where an int16 kernel exists)")
    p.add_argument("--int4-modules", help="submodules at a8w4 (int4 weights), e.g. head,blocks.3")
    p.add_argument("--int16-modules", help="submodules at a16w8 (int16 activations), e.g. stem")
    p.add_argument("--flash-budget", type=int, help="program bytes: layers go to a8w4, least sensitive first, "
                   "until the program fits (compiler/precision.py; the chosen table is printed)")
    p.add_argument("--front-end", help="an audio front end run on the device (mfcc_kws, log_mel_anomaly): "
                   "the program takes int16 audio; --calibration stays the model's features")
    p.add_argument("--name", default="model")
    p.add_argument("-o", "--output", type=Path, default=Path("model.embr"))
    p.add_argument("--emit-c", type=Path, help="also write the C sources into this folder")
    p.set_defaults(handler=_lower)
    p = commands.add_parser("inspect", help="print a program's ops, shapes, quantization, kernel variants and memory")
    p.add_argument("program", type=Path)
    p.add_argument("--json", action="store_true", help="print the report as JSON instead of tables")
    p.add_argument("--model-explorer", type=Path, metavar="FILE",
                   help="write the lowered graph for Google's Model Explorer (view: model-explorer FILE)")
    p.add_argument("--profile", type=Path, help="tools/op_profile.py's profile.json: each op's count in the report, "
                   "and as Model Explorer node values (FILE.node_data.json next to the --model-explorer FILE)")
    p.set_defaults(handler=_inspect)
    p = commands.add_parser("run", help="run a program on the reference interpreter")
    p.add_argument("program", type=Path)
    p.add_argument("--input", required=True, type=Path, help=".npy input")
    p.add_argument("--output", type=Path, help=".npy to write the first output to")
    p.set_defaults(handler=_run)
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except (EmberCompileError, FileNotFoundError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
