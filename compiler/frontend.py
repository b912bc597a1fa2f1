"""Front end: torch.export → fold batch norm → PT2E prepare / calibrate / convert → re-export.

Works with torch 2.13 and torchao's PT2E flow as installed. `ExportedProgram.module()` adds a
`_guards_fn` node that checks input shapes at run time; the quantization flow neither needs
nor survives it, so the module is taken without guards.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import torch

from compiler.passes.fold_batch_norm import fold_batch_norm
from compiler.quantizer import CortexMQuantizer

from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e


def export_float(model: torch.nn.Module, example_inputs: tuple) -> torch.fx.GraphModule:
    """Exports `model` in eval mode and folds its batch norms."""
    exported = torch.export.export(model.eval(), example_inputs)
    return fold_batch_norm(exported.module(check_guards=False))


def quantize(
    model: torch.nn.Module,
    example_inputs: tuple,
    calibration_data: Iterable[Sequence[torch.Tensor] | torch.Tensor],
    quantizer: CortexMQuantizer | None = None,
) -> torch.fx.GraphModule:
    """Returns PyTorch's converted (PT2E) quantized model: the numerics Ember must reproduce."""
    prepared = prepare_pt2e(export_float(model, example_inputs), quantizer or CortexMQuantizer())
    calibrated = 0
    with torch.no_grad():
        for batch in calibration_data:
            prepared(*(batch if isinstance(batch, (tuple, list)) else (batch,)))
            calibrated += 1
    if calibrated == 0:
        raise ValueError("calibration_data is empty: give at least one batch of representative inputs")
    return convert_pt2e(prepared, fold_quantize=True)


def reexport(quantized: torch.fx.GraphModule, example_inputs: tuple) -> torch.export.ExportedProgram:
    """Re-exports the converted model so lowering sees plain ATen + quantized_decomposed ops."""
    return torch.export.export(quantized, example_inputs)
