"""Front end: torch.export → decompose → simplify the float graph → PT2E prepare / calibrate /
convert → re-export.

The exported graph is first said in ops Ember lowers (compiler/decompositions.py, which also
functionalizes it), then the float graph passes of `FLOAT_GRAPH_PASSES` simplify it (identity
ops, unused pooling indices, constants, batch norms), so PT2E quantizes what Ember will run.

Works with torch 2.13 and torchao's PT2E flow as installed. `ExportedProgram.module()` adds a
`_guards_fn` node that checks input shapes at run time; the quantization flow neither needs
nor survives it, so the module is taken without guards.
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterable, Sequence

import torch
from torch.utils import _pytree as pytree

from compiler.decompositions import cia_ops_listed_once, decomposition_table
from compiler.gptq import round_int4_weights
from compiler.importer import CALIBRATORS, FIXED_BATCH, imported_targets, unsupported_ops
from compiler.passes import FLOAT_GRAPH_PASSES
from compiler.passes.graph_module import targets_wrapped
from compiler.errors import CalibrationError, ModelError, UnsupportedOpsError
from compiler.quantizer import CortexMQuantizer, StateSharing

from torchao.quantization.pt2e.observer import HistogramObserver
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e


def export_float(model: torch.nn.Module, example_inputs: tuple) -> torch.fx.GraphModule:
    """Exports `model` in eval mode, in the ops Ember lowers, simplified."""
    exported = torch.export.export(model.eval(), example_inputs)
    with cia_ops_listed_once():
        exported = exported.run_decompositions(decomposition_table(imported_targets()))
    graph_module = exported.module(check_guards=False)
    for simplify in FLOAT_GRAPH_PASSES:
        graph_module = simplify(graph_module)
    return graph_module


class ExampleBatched(torch.nn.Module):
    """A module traced at the example inputs' shapes (torch.export and the decompositions fix
    every shape, the batch too) that takes inputs whose batch, dim 0, is any multiple of the
    example's: it runs them at once where the traced graph takes them (its shapes then carry no
    batch, and every output's batch scales with the input's) and otherwise chunk by chunk,
    concatenating the outputs along dim 0. (At once is also how PyTorch computes a batch: its
    float sums may round differently from one sample's.)

    Inputs whose per-sample shape differs from the example's are refused with CalibrationError
    (not reshaped). `module` is the traced GraphModule, `graph` its graph."""

    def __init__(self, module: torch.fx.GraphModule, example_inputs: tuple, output_batches: list[int]) -> None:
        super().__init__()
        self.module = module
        # a Python number among the inputs is folded into the trace: its value, not a shape
        self.example_shapes = [tuple(x.shape) if isinstance(x, torch.Tensor) else x for x in example_inputs]
        self.output_batches = output_batches  # dim 0 of each output for the example inputs
        # ops that must not see another batch than the example's (Import.fixed_batch)
        self.at_once = not any(node.target in FIXED_BATCH for node in module.graph.nodes)

    @property
    def graph(self) -> torch.fx.Graph:
        return self.module.graph

    @staticmethod
    def output_batches_of(traced: torch.fx.GraphModule) -> list[int]:
        """Dim 0 of each output of an exported graph, for its example inputs (-1 for a scalar)."""
        (output,) = [node for node in traced.graph.nodes if node.op == "output"]
        values = [arg.meta.get("val") for arg in pytree.tree_leaves(output.args)]
        return [int(v.shape[0]) if isinstance(v, torch.Tensor) and v.dim() else -1 for v in values]

    def chunks(self, inputs: Sequence) -> int:
        """How many example-sized chunks `inputs` hold."""
        if len(inputs) != len(self.example_shapes):
            raise CalibrationError(f"the model takes {len(self.example_shapes)} input(s) (as the example inputs), "
                                   f"got {len(inputs)}: give each batch as a tuple of that many tensors")
        counts = set()
        for k, (x, example) in enumerate(zip(inputs, self.example_shapes)):
            if not isinstance(example, tuple):
                if x != example:
                    raise CalibrationError(f"input {k} is the Python number {x!r}, but the model was exported with "
                                           f"{example!r}: numbers are folded into the program at export, so "
                                           "give the same value everywhere (or make it a tensor input)")
                continue
            shape = tuple(getattr(x, "shape", ()))
            batch = example[0] if example else 1
            if not isinstance(x, torch.Tensor) or shape[1:] != example[1:] or not shape or shape[0] % batch:
                raise CalibrationError(
                    f"input {k} has shape {list(shape)} but the model was exported for {list(example)}: give "
                    f"batches of [n·{batch}, {', '.join(map(str, example[1:]))}] float tensors (same per-sample "
                    "shape as the example input, in the model's own layout)")
            counts.add(shape[0] // batch)
        if len(counts) != 1:
            raise CalibrationError(f"the inputs of one batch hold different numbers of samples ({sorted(counts)})")
        return counts.pop()

    def forward(self, *inputs):
        n = self.chunks(inputs)
        if n == 1:
            return self.module(*inputs)
        try:
            whole = self.module(*inputs) if self.at_once else None
        except RuntimeError:  # a shape the trace fixed to the example's batch
            whole = None
        if whole is not None and all(out.shape[:1] == (n * example,) for out, example in
                                     zip(pytree.tree_leaves(whole), self.output_batches)):
            return whole
        outputs = [self.module(*(x.chunk(n)[k] if isinstance(x, torch.Tensor) else x for x in inputs))
                   for k in range(n)]
        leaves, spec = zip(*(pytree.tree_flatten(out) for out in outputs))
        return pytree.tree_unflatten([torch.cat(parts) for parts in zip(*leaves)], spec[0])


@contextlib.contextmanager
def _observed_per_batch(prepared: torch.fx.GraphModule):
    """Histogram observers see each calibration batch whole, as if the model had run it at once
    (ExampleBatched runs it chunk by chunk): they keep what each chunk shows them and observe it
    all when `batch_done()` is called. A histogram grown chunk by chunk is binned differently."""
    observers = [m for m in prepared.modules() if isinstance(m, HistogramObserver)]
    seen: dict[int, list[torch.Tensor]] = {id(m): [] for m in observers}

    def keep(observer):
        def forward(x: torch.Tensor) -> torch.Tensor:
            seen[id(observer)].append(x.detach())
            return x
        return forward

    def batch_done() -> None:
        for observer in observers:
            values = seen[id(observer)]
            if values:
                type(observer).forward(observer, torch.cat([v.reshape(-1) for v in values]))
                values.clear()

    for observer in observers:
        observer.forward = keep(observer)
    try:
        yield batch_done
    finally:
        for observer in observers:
            del observer.forward


@contextlib.contextmanager
def _calibrating(prepared: torch.fx.GraphModule):
    """While calibrating, the ops with ranges inside that PT2E cannot observe (Import.calibrate:
    an LSTM's cell state) run through a wrapper that records them: the union over every batch
    lands in the node's meta["ember_ranges"], which convert_pt2e keeps and the importer reads."""
    nodes = [n for n in prepared.graph.nodes if n.op == "call_function" and n.target in CALIBRATORS]
    for node in nodes:
        node.meta["ember_ranges"] = {}

    def wrap(node: torch.fx.Node, target: object):
        def recording(*args, **kwargs):
            result = target(*args, **kwargs)
            seen = node.meta["ember_ranges"]
            for name, (low, high) in CALIBRATORS[target](node, args, result).items():
                old = seen.get(name, (low, high))
                seen[name] = (min(old[0], low), max(old[1], high))
            return result
        return recording

    with targets_wrapped(prepared, nodes, wrap):
        yield


def calibration_batches(batch: object) -> tuple:
    """One calibration item as the model's positional inputs: a tensor or NumPy array, or a
    tuple / list of them."""
    items = batch if isinstance(batch, (tuple, list)) else (batch,)
    return tuple(torch.from_numpy(item) if hasattr(item, "__array__") and not isinstance(item, torch.Tensor)
                 else item for item in items)


def quantize(
    model: torch.nn.Module,
    example_inputs: tuple,
    calibration_data: Iterable[Sequence[torch.Tensor] | torch.Tensor],
    quantizer: CortexMQuantizer | None = None,
    state: tuple[tuple[int, int], ...] = (),
) -> ExampleBatched:
    """Returns PyTorch's converted (PT2E) quantized model: the numerics Ember must reproduce.

    Each item of `calibration_data` is one batch (a tensor, or a tuple of one per input; NumPy
    arrays are taken too) whose dim 0 is a multiple of the example's batch; one tensor or array
    is one such batch. `state` (compiler.lower's): each state input is quantized as the output
    that feeds it (quantizer.StateSharing)."""
    if not isinstance(model, torch.nn.Module):
        raise ModelError(f"the model must be a torch.nn.Module, got {type(model).__name__}"
                         + (" (does the build function return it?)" if model is None else ""))
    quantizer = quantizer or CortexMQuantizer()
    quantizer.check_names(model)
    traced = export_float(model, example_inputs)
    problems = unsupported_ops(traced, set(quantizer.pointwise_regions(traced)))
    if problems:  # before calibration: the user learns of every one at once, and soon
        raise UnsupportedOpsError(problems)
    batches = ExampleBatched.output_batches_of(traced)
    if isinstance(calibration_data, torch.Tensor) or hasattr(calibration_data, "__array__"):
        calibration_data = [calibration_data]  # one array of samples: one batch
    calibration_data = list(calibration_data)
    rounded = quantizer.gptq_nodes(traced)
    if rounded:
        runner = ExampleBatched(traced, example_inputs, batches)
        round_int4_weights(traced, rounded, lambda: [runner(*calibration_batches(b)) for b in calibration_data])
    prepared = ExampleBatched(prepare_pt2e(traced, StateSharing(quantizer, state) if state else quantizer),
                              example_inputs, batches)
    calibrated = 0
    with torch.no_grad(), _observed_per_batch(prepared.module) as batch_done, _calibrating(prepared.module):
        for batch in calibration_data:
            prepared(*calibration_batches(batch))
            batch_done()
            calibrated += 1
    if calibrated == 0:
        raise CalibrationError("calibration_data is empty: give at least one batch of representative inputs")
    return ExampleBatched(convert_pt2e(prepared.module, fold_quantize=True), example_inputs, batches)


def importable(quantized: ExampleBatched | torch.fx.GraphModule, example_inputs: tuple) -> torch.fx.GraphModule:
    """The converted model as the importer reads it: plain ATen + quantized_decomposed nodes,
    each with its value for the example inputs in meta["val"] (the quantize / dequantize nodes
    PT2E added have none of their own), named as torch.export names nodes (no "_default")."""
    module = getattr(quantized, "module", quantized)
    taken = {node.name for node in module.graph.nodes}
    for node in module.graph.nodes:
        short = node.name.replace("_default", "")
        if short != node.name and short not in taken:
            taken.add(short)
            node.name = short
    module.recompile()
    values = {}

    class Recorder(torch.fx.Interpreter):
        def run_node(self, node):
            values[node] = result = super().run_node(node)
            return result

    with torch.no_grad():
        Recorder(module).run(*example_inputs)
    for node, value in values.items():
        tensors = isinstance(value, (tuple, list)) and value and all(isinstance(v, torch.Tensor) for v in value)
        if isinstance(value, torch.Tensor) or tensors:  # a tuple: a GRU's (y, h_n)
            node.meta["val"] = value
    return module
