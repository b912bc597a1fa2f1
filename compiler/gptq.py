"""GPTQ rounding of int4 weights: each weight rounded so that the layer's output on the
calibration data moves least, not to its nearest code.

Rounding to nearest at 4 bits leaves each weight up to half a step off, independently; GPTQ
(Frantar et al., 2022, "GPTQ: Accurate Post-Training Quantization for Generative Pre-trained
Transformers") rounds a weight matrix W [rows, K] one column at a time, with each row's scale
fixed as the observer would fix it (max|w| / 7), and spreads the column's rounding error over
the columns not yet rounded, weighted by the inverse of H = Σ x xᵀ, the second moment of the
layer's inputs on the calibration data (x: an input row of a linear, a patch of a convolution,
per group). The result is exactly codes × scale, so PT2E's quantization of it gives those codes:
the rounded weights replace the float ones in the exported graph before prepare_pt2e, and the
weight node carries each output channel's largest code (meta "ember_int4_levels") for the
quantizer's GridObserver, which takes the scale as max|w| / that code (a channel whose largest
weight was rounded down to 6 keeps its scale).

Hand-written rather than torchao's GPTQ, which quantizes nn.Linear modules of language models
into its own int4 tinygemm layout; this one works on the exported graph's convolutions (patches
through torch's unfold, groups and depthwise batched) and linears, at CortexMQuantizer's
symmetric per-channel scales.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch.fx import GraphModule, Node
from torchao.quantization.pt2e.observer import PerChannelMinMaxObserver

from compiler.passes.graph_module import attr_value, set_attr, targets_wrapped

aten = torch.ops.aten
LEVELS = "ember_int4_levels"  # weight node meta: each output channel's largest |code|
DAMPING = 0.01  # of H's mean diagonal, added to its diagonal (as GPTQ's reference code)
QUANT_MAX = 7
EPS = 2**-12  # the observers' least scale
ROUNDED = (aten.conv2d.default, aten.linear.default)


def _moments(target: object, args: tuple) -> torch.Tensor:
    """Σ x xᵀ of this call's inputs per group: [groups, K, K] (K: a row of the weight per group)."""
    x, weight = args[0].detach().double(), args[1]
    if target == aten.linear.default:
        rows = x.reshape(-1, x.shape[-1])
        return (rows.T @ rows)[None]
    stride, padding, dilation, groups = (list(args[3]) if len(args) > 3 else [1, 1], list(args[4]) if len(args) > 4
                                         else [0, 0], list(args[5]) if len(args) > 5 else [1, 1],
                                         args[6] if len(args) > 6 else 1)
    kernel = tuple(weight.shape[2:])
    patches = F.unfold(x, kernel, dilation=dilation, padding=padding, stride=stride)  # [N, C·kh·kw, L]
    n, _, positions = patches.shape
    grouped = patches.reshape(n, groups, -1, positions)
    return torch.einsum("ngkl,ngml->gkm", grouped, grouped)


def _weight_groups(node: Node, weight: torch.Tensor) -> torch.Tensor:
    """The weight as [groups, rows per group, K]."""
    groups = node.args[6] if node.target == aten.conv2d.default and len(node.args) > 6 else 1
    return weight.detach().double().reshape(groups, weight.shape[0] // groups, -1)


def gptq(weights: torch.Tensor, moments: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(codes, scales) of `weights` [G, R, K] given the inputs' moments [G, K, K]: codes -7..7
    [G, R, K], one scale per row [G, R] (max|w| / 7, at least EPS). Columns go in the order of
    their inputs' energy, largest first (GPTQ's "act order": the columns that matter most are
    rounded while the most columns are left to take their error)."""
    scale = (weights.abs().amax(dim=2) / QUANT_MAX).clamp(min=EPS)
    order = torch.argsort(torch.diagonal(moments, dim1=1, dim2=2), dim=1, descending=True)  # [G, K]
    w = torch.gather(weights, 2, order[:, None, :].expand_as(weights)).clone()
    h = torch.gather(torch.gather(moments, 1, order[:, :, None].expand_as(moments)), 2,
                     order[:, None, :].expand_as(moments)).clone()
    groups, rows, k = w.shape
    diagonal = torch.diagonal(h, dim1=1, dim2=2)
    dead = diagonal == 0  # inputs that are always 0: their weights do not matter
    diagonal += torch.where(dead, 1.0, 0.0) + DAMPING * diagonal.mean(dim=1, keepdim=True).clamp(min=1e-12)
    w = torch.where(dead[:, None, :], torch.zeros_like(w), w)
    inverse = torch.cholesky_inverse(torch.linalg.cholesky(h))
    upper = torch.linalg.cholesky(inverse, upper=True)  # [G, K, K]
    codes = torch.empty_like(w)
    for j in range(k):
        column = w[:, :, j]
        codes[:, :, j] = torch.clamp(torch.round(column / scale), -QUANT_MAX, QUANT_MAX)
        error = (column - codes[:, :, j] * scale) / upper[:, j, j][:, None]
        w[:, :, j + 1:] -= error[:, :, None] * upper[:, None, j, j + 1:]
    return torch.empty_like(codes).scatter_(2, order[:, None, :].expand_as(codes), codes), scale


def _recording(moments: dict[Node, torch.Tensor]):
    """A targets_wrapped wrapper that adds each call's input moments to `moments`."""
    def wrap(node: Node, target: object):
        def recording(*args, **kwargs):
            found = _moments(target, args)
            moments[node] = moments[node] + found if node in moments else found
            return target(*args, **kwargs)
        return recording
    return wrap


def round_int4_weights(graph_module: GraphModule, nodes: list[Node], run_calibration) -> None:
    """GPTQ-rounds the weights of `nodes` (linears and conv2ds of the exported float graph with
    constant weights) in place of the float ones; `run_calibration()` runs the calibration data
    through `graph_module`. Each weight node gets LEVELS."""
    moments: dict[Node, torch.Tensor] = {}
    with torch.no_grad(), targets_wrapped(graph_module, nodes, _recording(moments)):
        run_calibration()
    for node in nodes:
        if node not in moments:
            continue  # not reached by the calibration data: rounded to nearest, as without GPTQ
        weight_node = node.args[1]
        weight = attr_value(graph_module, weight_node.target)
        codes, scale = gptq(_weight_groups(node, weight), moments[node])
        rounded = (codes * scale[:, :, None]).reshape(weight.shape).to(weight.dtype)
        set_attr(graph_module, weight_node.target, rounded)
        weight_node.meta[LEVELS] = codes.abs().reshape(weight.shape[0], -1).amax(dim=1).to(torch.float32)


class GridObserver(PerChannelMinMaxObserver):
    """Symmetric per-channel scales for weights already on a grid of codes × scale: max|w| of
    each channel over its largest code (`levels`, LEVELS of round_int4_weights), so that PT2E's
    quantization gives back the codes GPTQ chose; a channel of zeros keeps the least scale."""

    def __init__(self, levels: torch.Tensor, **kwargs) -> None:
        super().__init__(**kwargs)
        self.levels = levels

    @torch.jit.export
    def calculate_qparams(self) -> tuple[torch.Tensor, torch.Tensor]:
        scale, zero_point = super().calculate_qparams()
        peak = torch.maximum(self.min_val.abs(), self.max_val.abs())
        levels = self.levels.to(peak.dtype)
        grid = torch.where(levels > 0, peak / levels.clamp(min=1), scale.to(peak.dtype))
        return torch.maximum(grid, torch.full_like(grid, float(self.eps))).to(scale.dtype), zero_point
