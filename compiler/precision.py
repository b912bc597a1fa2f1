"""The automatic choice of each layer's precision: int4 weights where they cost the least accuracy,
int16 activations where int8 ones cost the most.

    choice = compiler.precision.choose(model, example, calibration, flash_budget=250_000)
    print(choice.table()); program = compiler.lower(model, example, calibration, quantizer=choice.quantizer())

What it measures, on the calibration data, in float (PyTorch, no lowering), for every layer that
has int4 and int16 kernels (conv1d / conv2d / depthwise, transposed conv, linear):
- its weights fake-quantized per output channel as CortexMQuantizer quantizes them, at 8 and at 4
  bits: the SQNR of the layer's own output (on the float input it receives), and the noise that
  layer alone at 4 bits adds to the model's outputs;
- its output fake-quantized over the calibration range at 8 bits (asymmetric) and at 16
  (symmetric): the SQNR of that output, and the noise each adds to the model's outputs.
Quantization noise of separate layers is nearly independent, so the choice adds its powers.
With `flash_budget`: least int4 noise per byte saved first, layers go to "a8w4" until the program
fits (checked by lowering: the program's bytes are measured, not estimated); a budget the model
cannot meet even with every such layer at int4 is a PrecisionError naming the smallest program it
can reach. With `min_output_sqnr_db`: while the outputs' predicted SQNR (every layer's activation
noise, plus its int4 weights' where chosen) is below the bound, the layer whose int16 activations
remove the most noise per MAC goes to "a16w8"; then, while the bound holds, layers still at int8
go to "a8w4" as above. A bound out of reach with every layer at a16w8 is a PrecisionError.
"""
from __future__ import annotations

import math
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

import torch
from torch import nn

from compiler.errors import EmberCompileError
from compiler.frontend import calibration_batches
from compiler.quantizer import WEIGHT_RANGES, CortexMQuantizer, within_module

# Modules whose weight the lowering keeps in a weighted op with an int4 kernel, and the weight's
# output-channel axis (CortexMQuantizer's per-channel axis).
INT4_MODULES: dict[type, int] = {nn.Conv1d: 0, nn.Conv2d: 0, nn.Linear: 0, nn.ConvTranspose2d: 1}


class PrecisionError(EmberCompileError):
    """No assignment of precisions meets the requested budget or bound."""


@dataclass(frozen=True)
class LayerSensitivity:
    module: str  # its name in the model (CortexMQuantizer.precision_modules' key)
    kind: str  # its class
    weights: int  # elements
    layer_sqnr_w8: float  # dB: the layer's output with 8-bit weights against float
    layer_sqnr_w4: float  # dB: with 4-bit weights
    output_noise_w4: float  # the model outputs' noise power this layer at 4 bits adds, relative to their power
    macs: int = 0  # multiply-accumulates over the calibration data (what int16 activations cost)
    layer_sqnr_a8: float = math.inf  # dB: the layer's output quantized to int8 against float
    layer_sqnr_a16: float = math.inf  # dB: to int16
    output_noise_a8: float = 0.0  # the outputs' relative noise power its int8 output adds
    output_noise_a16: float = 0.0  # its int16 output

    def activation_noise(self, precision: str) -> float:
        return self.output_noise_a16 if precision == "a16w8" else self.output_noise_a8

    @property
    def saved_bytes(self) -> int:
        """About what int4 saves in the program (half a byte per weight; rows round up)."""
        return self.weights // 2


@dataclass
class PrecisionChoice:
    layers: list[LayerSensitivity]  # in the model's order
    chosen: dict[str, str]  # module -> "a8w4" or "a16w8" (the others stay at the quantizer's default)
    predicted_output_sqnr_db: float
    program_bytes: int | None = None  # measured by lowering, when a flash budget was given
    int8_program_bytes: int | None = None
    flash_budget: int | None = None
    base: CortexMQuantizer = field(default_factory=CortexMQuantizer)

    def quantizer(self) -> CortexMQuantizer:
        """The base quantizer with the chosen layers at their precision (its own precision_modules
        kept where it names a layer the choice does not)."""
        return replace(self.base, precision_modules={**self.base.precision_modules, **self.chosen})

    def table(self) -> str:
        """The choice as a markdown table, with the program's bytes where measured."""
        lines = ["| layer | kind | weights | SQNR w8 (dB) | SQNR w4 (dB) | output noise w4 | SQNR a8 (dB) | "
                 "SQNR a16 (dB) | output noise a8 | precision |",
                 "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
        for layer in self.layers:
            lines.append(f"| {layer.module} | {layer.kind} | {layer.weights:,} | {layer.layer_sqnr_w8:.1f} | "
                         f"{layer.layer_sqnr_w4:.1f} | {layer.output_noise_w4:.2e} | {layer.layer_sqnr_a8:.1f} | "
                         f"{layer.layer_sqnr_a16:.1f} | {layer.output_noise_a8:.2e} | "
                         f"{self.chosen.get(layer.module, self.base.precision)} |")
        counts = {p: sum(1 for v in self.chosen.values() if v == p) for p in ("a8w4", "a16w8")}
        summary = (f"{counts['a8w4']} of {len(self.layers)} layers at a8w4"
                   + (f", {counts['a16w8']} at a16w8" if counts["a16w8"] else "")
                   + f"; predicted output SQNR {self.predicted_output_sqnr_db:.1f} dB")
        if self.program_bytes is not None:
            summary += (f"; program {self.program_bytes:,} B (int8 {self.int8_program_bytes:,} B"
                        + (f", budget {self.flash_budget:,} B)" if self.flash_budget is not None else ")"))
        return "\n".join([summary, "", *lines]) + "\n"


def _fake_quantized(weight: torch.Tensor, axis: int, bits: int) -> torch.Tensor:
    """`weight` through CortexMQuantizer's symmetric per-channel quantization at `bits` (scale
    max|w| / quant_max per output channel, as its PerChannelMinMaxObserver)."""
    _, high = WEIGHT_RANGES[bits]
    moved = weight.movedim(axis, 0)
    scale = moved.abs().flatten(1).amax(dim=1).clamp(min=2**-12 * high) / high
    shape = (-1,) + (1,) * (moved.dim() - 1)
    quantized = torch.clamp(torch.round(moved / scale.view(shape)), -high, high) * scale.view(shape)
    return quantized.movedim(0, axis)


def _fake_quantized_activation(x: torch.Tensor, low: float, high: float, bits: int) -> torch.Tensor:
    """`x` through CortexMQuantizer's activation quantization over [low, high]: int8 asymmetric
    (the range widened to hold 0), int16 symmetric (zero point 0)."""
    if bits == 16:
        scale = max(abs(low), abs(high), 1e-12) / 32767.5
        return torch.clamp(torch.round(x / scale), -32768, 32767) * scale
    low, high = min(low, 0.0), max(high, 0.0)
    scale = max(high - low, 1e-12) / 255
    zero_point = round(-128 - low / scale)
    return (torch.clamp(torch.round(x / scale) + zero_point, -128, 127) - zero_point) * scale


def _sqnr_db(signal: float, noise: float) -> float:
    return math.inf if noise <= 0 else 10.0 * math.log10(max(signal, 1e-30) / noise)


def _outputs(model: nn.Module, batches: list[tuple]) -> list[torch.Tensor]:
    with torch.no_grad():
        results = []
        for batch in batches:
            out = model(*batch)
            results += [o.detach().float() for o in (out if isinstance(out, (tuple, list)) else (out,))]
        return results


def int4_layers(model: nn.Module) -> list[tuple[str, nn.Module, int]]:
    """(name, module, output-channel axis) of every layer the choice may put at int4."""
    found = []
    for name, module in model.named_modules():
        axis = INT4_MODULES.get(type(module))
        if axis is None or getattr(module, "weight", None) is None:
            continue
        if isinstance(module, nn.ConvTranspose2d) and module.groups != 1:
            continue  # grouped transposed conv: its weight's axis 1 is not the output channels
        found.append((name, module, axis))
    return found


def measure(model: nn.Module, calibration_data: Iterable) -> list[LayerSensitivity]:
    """Each int4-capable layer's sensitivity on `calibration_data` (batches as compiler.lower takes)."""
    model = model.eval()
    batches = [calibration_batches(batch) for batch in calibration_data]
    if not batches:
        raise PrecisionError("no calibration batches: the sensitivity of each layer is measured on them")
    reference = _outputs(model, batches)
    power = sum(float(r.pow(2).sum()) for r in reference)
    layers = []
    for name, module, axis in int4_layers(model):
        original = module.weight.data.clone()
        layer_noise = {8: 0.0, 4: 0.0}
        layer_power, low, high, macs = 0.0, math.inf, -math.inf, 0

        def hook(mod: nn.Module, inputs: tuple, output: torch.Tensor) -> None:
            nonlocal layer_power, low, high, macs
            layer_power += float(output.float().pow(2).sum())
            low, high = min(low, float(output.min())), max(high, float(output.max()))
            macs += original.numel() // original.shape[axis] * output.numel()
            for bits in (8, 4):
                mod.weight.data = _fake_quantized(original, axis, bits)
                layer_noise[bits] += float((mod.forward(*inputs).float() - output.float()).pow(2).sum())
            mod.weight.data = original

        handle = module.register_forward_hook(hook)
        try:
            _outputs(model, batches)
        finally:
            handle.remove()
            module.weight.data = original
        module.weight.data = _fake_quantized(original, axis, 4)
        try:
            noisy = _outputs(model, batches)
        finally:
            module.weight.data = original
        output_noise = sum(float((n - r).pow(2).sum()) for n, r in zip(noisy, reference))
        activation = {bits: _activation_noise(model, module, batches, reference, low, high, bits) for bits in (8, 16)}
        layers.append(LayerSensitivity(name, type(module).__name__, original.numel(),
                                       _sqnr_db(layer_power, layer_noise[8]), _sqnr_db(layer_power, layer_noise[4]),
                                       output_noise / max(power, 1e-30), macs,
                                       _sqnr_db(layer_power, activation[8][0]), _sqnr_db(layer_power, activation[16][0]),
                                       activation[8][1] / max(power, 1e-30), activation[16][1] / max(power, 1e-30)))
    return layers


def _activation_noise(model: nn.Module, module: nn.Module, batches: list[tuple], reference: list[torch.Tensor],
                      low: float, high: float, bits: int) -> tuple[float, float]:
    """(the noise power of `module`'s output quantized to `bits` over [low, high], the noise
    power that adds to the model's outputs)."""
    layer_noise = 0.0

    def hook(mod: nn.Module, inputs: tuple, output: torch.Tensor) -> torch.Tensor:
        nonlocal layer_noise
        quantized = _fake_quantized_activation(output, low, high, bits)
        layer_noise += float((quantized.float() - output.float()).pow(2).sum())
        return quantized

    handle = module.register_forward_hook(hook)
    try:
        noisy = _outputs(model, batches)
    finally:
        handle.remove()
    return layer_noise, sum(float((n - r).pow(2).sum()) for n, r in zip(noisy, reference))


def _order(layers: list[LayerSensitivity]) -> list[LayerSensitivity]:
    """Least output noise per byte saved first (ties: the larger layer first)."""
    return sorted(layers, key=lambda l: (l.output_noise_w4 / max(l.saved_bytes, 1), -l.weights))


def predicted_sqnr(layers: list[LayerSensitivity], chosen: dict[str, str], default: str = "a8w8") -> float:
    """The outputs' predicted SQNR (dB) with each layer at its chosen precision (else `default`):
    every layer's activation noise, plus its int4 weights' where at a8w4."""
    noise = 0.0
    for layer in layers:
        precision = chosen.get(layer.module, default)
        noise += layer.activation_noise(precision) + (layer.output_noise_w4 if precision == "a8w4" else 0.0)
    return _sqnr_db(1.0, noise)


def _within_bound(layers: list[LayerSensitivity], ordered: list[LayerSensitivity], bound: float,
                  default: str) -> dict[str, str]:
    """int16 activations where they remove the most noise per MAC until the bound holds, then
    int4 weights in `ordered`'s order while it still does."""
    chosen: dict[str, str] = {}
    gain = sorted(layers, key=lambda l: -(l.output_noise_a8 - l.output_noise_a16) / max(l.macs, 1))
    for layer in gain:
        if predicted_sqnr(layers, chosen, default) >= bound:
            break
        if default != "a16w8":
            chosen[layer.module] = "a16w8"
    reached = predicted_sqnr(layers, chosen, default)
    if reached < bound:
        raise PrecisionError(f"an output SQNR of {bound:.1f} dB is out of reach: with int16 activations in every "
                             f"layer the prediction is {reached:.1f} dB; lower the bound")
    for layer in ordered:
        if layer.module in chosen:
            continue
        trial = {**chosen, layer.module: "a8w4"}
        if predicted_sqnr(layers, trial, default) < bound:
            break
        chosen = trial
    return chosen


def choose(model: nn.Module, example_inputs: tuple, calibration_data: Iterable, target: object = "cortex-m55", *,
           flash_budget: int | None = None, min_output_sqnr_db: float | None = None,
           quantizer: CortexMQuantizer | None = None, verbose: bool = True, **lower_options) -> PrecisionChoice:
    """Layers at a8w4 for a program of at most `flash_budget` bytes (lowered with `target` and
    `lower_options` as compiler.lower takes them, to measure it); or, for outputs whose predicted
    SQNR against float is at least `min_output_sqnr_db`, layers at a16w8 until it holds and then
    as many at a8w4 as keep it (the module docstring). Exactly one of the two. Layers the
    base `quantizer` names in its precision_modules or skips keep what it says. With `verbose` the
    chosen table is printed to stderr."""
    from compiler.pipeline import lower

    if (flash_budget is None) == (min_output_sqnr_db is None):
        raise PrecisionError("choose takes a flash_budget (program bytes) or a min_output_sqnr_db, one of them")
    base = quantizer or CortexMQuantizer()
    calibration = list(calibration_data)
    layers = [l for l in measure(model, calibration)
              if not any(within_module(l.module, p) for p in (*base.precision_modules, *base.skip_modules))]
    ordered = _order(layers)
    if min_output_sqnr_db is not None:
        chosen = _within_bound(layers, ordered, min_output_sqnr_db, base.precision)
        choice = PrecisionChoice(layers, chosen, predicted_sqnr(layers, chosen, base.precision), base=base)
    else:
        def program_bytes(chosen: list[LayerSensitivity]) -> int:
            q = replace(base, precision_modules={**base.precision_modules, **{l.module: "a8w4" for l in chosen}})
            return len(lower(model, example_inputs, calibration, target, quantizer=q, report_fallbacks=False,
                             **lower_options).to_bytes())

        int8_bytes = program_bytes([])
        chosen, measured = [], int8_bytes
        while measured > flash_budget:
            needed = measured - flash_budget
            more = []
            for layer in ordered[len(chosen):]:
                more.append(layer)
                if sum(l.saved_bytes for l in more) >= needed:
                    break
            if not more:
                raise PrecisionError(f"a program of {flash_budget:,} B is out of reach: with every int4-capable layer "
                                     f"at a8w4 it takes {measured:,} B (int8: {int8_bytes:,} B); raise the budget "
                                     "or make the model smaller")
            chosen += more
            measured = program_bytes(chosen)
        picked = {l.module: "a8w4" for l in chosen}
        choice = PrecisionChoice(layers, picked, predicted_sqnr(layers, picked, base.precision), measured,
                                 int8_bytes, flash_budget, base)
    if verbose:
        print(f"ember: precision: {choice.table()}", file=sys.stderr)
    return choice

