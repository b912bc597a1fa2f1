"""Op-level cases: one line a user writes each, as the issue "Any PyTorch model a user brings"
lists them (conv1d, clamp, mean / sum over any dims, Linear on any rank, chunk / split / unbind,
alpha, Python numbers, identity ops, in-place ops, elementwise functions of one tensor as tables,
softmax over any dim, pooling options, transposed convolution with groups and dilation,
reflect / replicate padding, broadcasting, constants made in forward, shared weights, GRU /
LSTM), each between int8 layers so it runs as it would inside a model. Odd sizes on purpose.

A case is an `Architecture` (tests/zoo/architectures.py), so the zoo's harness runs both.
"""
from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import nn

from tests.zoo.architectures import Architecture


class Case(nn.Module):
    """`forward(self, *inputs)` given as a function of the module and its inputs; `layers` are
    its submodules (self.layers[k]), built under a fixed seed."""

    def __init__(self, forward: Callable, layers: Callable[[], list[nn.Module]]) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.layers = nn.ModuleList(layers())
        self.function = forward

    def forward(self, *inputs: torch.Tensor):
        return self.function(self.layers, *inputs)


def _case(name: str, forward: Callable, shapes: tuple, layers: Callable[[], list[nn.Module]] = list) -> Architecture:
    return Architecture(name, lambda: Case(forward, layers).eval(), shapes, "issue 15: a line users write", "op")


def lin(i: int, o: int) -> nn.Linear:
    return nn.Linear(i, o)


def conv(i: int, o: int, k: int = 3, **kw) -> nn.Conv2d:
    return nn.Conv2d(i, o, k, **kw)


def conv1(i: int, o: int, k: int = 3, **kw) -> nn.Conv1d:
    return nn.Conv1d(i, o, k, **kw)


def _lstm_step(layers, x):
    out, (h, c) = layers[0](x)
    return layers[1](out) + h.transpose(0, 1)


CASES: list[Architecture] = [
    # conv1d as conv2d over a height of 1
    _case("conv1d", lambda m, x: m[0](x), ((1, 4, 17),), lambda: [conv1(4, 7, 3, padding=1)]),
    _case("conv1d_stride_dilation", lambda m, x: F.relu(m[0](x)), ((1, 5, 23),),
          lambda: [conv1(5, 6, 3, stride=2, dilation=2)]),
    _case("conv1d_depthwise", lambda m, x: m[1](m[0](x)), ((1, 8, 19),),
          lambda: [conv1(8, 8, 5, padding=2, groups=8), conv1(8, 3, 1)]),
    _case("conv1d_groups_same", lambda m, x: m[0](x), ((1, 6, 20),), lambda: [conv1(6, 9, 4, padding="same", groups=3)]),
    _case("conv1d_unbatched_chain", lambda m, x: m[1](F.relu(m[0](x))), ((1, 3, 33),),
          lambda: [conv1(3, 5, 3), conv1(5, 4, 3)]),
    _case("conv_transpose1d", lambda m, x: m[0](x), ((1, 4, 9),), lambda: [nn.ConvTranspose1d(4, 3, 4, stride=2, padding=1)]),
    # relu6, hardtanh, clamp (number and tensor bounds)
    _case("relu6_fused", lambda m, x: F.relu6(m[0](x)), ((1, 11),), lambda: [lin(11, 13)]),
    _case("relu6_alone", lambda m, x: F.relu6(x * 3), ((1, 7),)),
    _case("hardtanh_bounds", lambda m, x: F.hardtanh(m[0](x), -0.3, 0.8), ((1, 3, 7, 6),), lambda: [conv(3, 5)]),
    _case("clamp_both", lambda m, x: torch.clamp(m[0](x), -0.5, 0.7), ((1, 9),), lambda: [lin(9, 6)]),
    _case("clamp_min_only", lambda m, x: torch.clamp(m[0](x), min=0.1), ((1, 9),), lambda: [lin(9, 6)]),
    _case("clamp_max_only", lambda m, x: m[0](x).clamp(max=0.2), ((1, 9),), lambda: [lin(9, 6)]),
    _case("clamp_tensor_bounds", lambda m, x, lo: torch.clamp(m[0](x), min=m[1](lo)), ((1, 9), (1, 9)),
          lambda: [lin(9, 6), lin(9, 6)]),
    # mean / sum over any dims, keepdim or not, ranks 2..4
    _case("mean_hw", lambda m, x: m[0](x).mean([2, 3]), ((1, 3, 9, 7),), lambda: [conv(3, 6)]),
    _case("mean_neg_dims_keep", lambda m, x: m[0](x).mean([-2, -1], keepdim=True), ((1, 3, 8, 8),), lambda: [conv(3, 5)]),
    _case("mean_w", lambda m, x: m[0](x).mean(3), ((1, 3, 8, 9),), lambda: [conv(3, 5)]),
    _case("mean_channels", lambda m, x: m[0](x).mean(1, keepdim=True), ((1, 3, 8, 8),), lambda: [conv(3, 7)]),
    _case("mean_c_and_h", lambda m, x: m[0](x).mean([1, 2]), ((1, 3, 7, 8),), lambda: [conv(3, 5)]),
    _case("sum_hw", lambda m, x: m[0](x).sum([2, 3]), ((1, 3, 8, 8),), lambda: [conv(3, 5)]),
    _case("mean_tokens", lambda m, x: m[0](x).mean(1), ((2, 5, 8),), lambda: [lin(8, 6)]),
    _case("sum_features", lambda m, x: m[0](x).sum(-1, keepdim=True), ((1, 5, 8),), lambda: [lin(8, 6)]),
    _case("mean_all", lambda m, x: m[0](x).mean(), ((1, 3, 6, 6),), lambda: [conv(3, 4)]),
    _case("mean_rank2_batch", lambda m, x: m[0](x).mean(0, keepdim=True), ((3, 8),), lambda: [lin(8, 5)]),
    # Linear / matmul on any rank
    _case("linear_rank3", lambda m, x: m[0](x), ((2, 5, 8),), lambda: [lin(8, 6)]),
    _case("linear_rank4", lambda m, x: m[0](x), ((1, 2, 3, 8),), lambda: [lin(8, 5)]),
    _case("linear_rank1", lambda m, x: m[0](x), ((8,),), lambda: [lin(8, 5)]),
    _case("matmul_4d_attention", lambda m, q, k: torch.softmax(q @ k.transpose(-2, -1), -1) @ k,
          ((1, 2, 5, 3), (1, 2, 5, 3))),
    _case("matmul_constant_rank3", lambda m, x: x @ m[0].weight.T, ((2, 4, 6),), lambda: [lin(6, 5)]),
    _case("matmul_broadcast_batch", lambda m, a, b: torch.matmul(a, b), ((2, 3, 4, 5), (1, 3, 5, 2))),
    # chunk / split / unbind; alpha; Python numbers
    _case("chunk", lambda m, x: (lambda a, b: a * torch.sigmoid(b))(*torch.chunk(m[0](x), 2, dim=-1)), ((1, 9),),
          lambda: [lin(9, 12)]),
    _case("split_sizes", lambda m, x: sum(torch.split(m[0](x), [2, 3, 2], dim=1)[::2]), ((1, 9),), lambda: [lin(9, 7)]),
    _case("unbind", lambda m, x: torch.stack([t * 0.5 + 1 for t in m[0](x).unbind(1)], 2), ((1, 3, 5),),
          lambda: [lin(5, 4)]),
    _case("add_alpha", lambda m, x: torch.add(m[0](x), m[1](x), alpha=2), ((1, 8),), lambda: [lin(8, 6), lin(8, 6)]),
    _case("sub_negative_alpha", lambda m, x: torch.sub(m[0](x), m[1](x), alpha=-0.5), ((1, 8),),
          lambda: [lin(8, 6), lin(8, 6)]),
    _case("number_operands", lambda m, x: (2.0 - m[0](x)) * 0.25 + 1 / (m[0](x).abs() + 1), ((1, 8),),
          lambda: [lin(8, 6)]),
    _case("number_divide_pow", lambda m, x: (m[0](x) / 3) ** 2, ((1, 8),), lambda: [lin(8, 6)]),
    # identities in eval mode, in-place ops
    _case("dropout_identities", lambda m, x: m[1](m[0](x)).clone().detach().contiguous().to(torch.float32),
          ((1, 8),), lambda: [lin(8, 6), nn.Dropout(0.4)]),
    _case("dropout2d_alpha", lambda m, x: m[2](m[1](m[0](x))), ((1, 3, 6, 6),),
          lambda: [conv(3, 4), nn.Dropout2d(0.2), nn.AlphaDropout(0.1)]),
    _case("in_place", lambda m, x: m[0](x).relu_().add_(1.0).mul_(0.5).sigmoid_(), ((1, 8),), lambda: [lin(8, 6)]),
    _case("in_place_modules", lambda m, x: m[2](m[1](m[0](x))), ((1, 3, 6, 6),),
          lambda: [conv(3, 4), nn.ReLU(inplace=True), nn.Hardswish(inplace=True)]),
    _case("in_place_residual", lambda m, x: (lambda y: y.add_(m[1](y)).clamp_(-1, 1))(m[0](x)), ((1, 3, 6, 6),),
          lambda: [conv(3, 4, padding=1), conv(4, 4, padding=1)]),
    # elementwise functions of one tensor: one table (per channel where a constant varies by channel)
    _case("prelu_shared", lambda m, x: m[1](m[0](x)), ((1, 8),), lambda: [lin(8, 6), nn.PReLU()]),
    _case("prelu_per_channel", lambda m, x: m[1](m[0](x)), ((1, 3, 6, 5),), lambda: [conv(3, 7), _prelu(7)]),
    _case("prelu_conv1d", lambda m, x: m[1](m[0](x)), ((1, 3, 11),), lambda: [conv1(3, 5), _prelu(5)]),
    _case("elu_selu_celu", lambda m, x: F.elu(m[0](x)) + F.selu(m[0](x)) - F.celu(m[0](x), 0.5), ((1, 8),),
          lambda: [lin(8, 6)]),
    _case("mish_softplus", lambda m, x: F.mish(m[0](x)) * F.softplus(m[0](x)), ((1, 8),), lambda: [lin(8, 6)]),
    _case("log_sigmoid_swish", lambda m, x: F.logsigmoid(m[0](x)) + m[0](x) * torch.sigmoid(m[0](x)), ((1, 8),),
          lambda: [lin(8, 6)]),
    _case("logs", lambda m, x: torch.log2(m[0](x).abs() + 1) + torch.log10(m[0](x).abs() + 1)
          + torch.log1p(m[0](x).abs()), ((1, 8),), lambda: [lin(8, 6)]),
    _case("gelu_tanh_hardsigmoid", lambda m, x: F.gelu(m[0](x), approximate="tanh") - F.hardsigmoid(m[0](x)),
          ((1, 8),), lambda: [lin(8, 6)]),
    # softmax / log_softmax over any dim
    _case("softmax_dim1_rank3", lambda m, x: torch.softmax(m[0](x), 1), ((1, 5, 8),), lambda: [lin(8, 6)]),
    _case("softmax_spatial", lambda m, x: torch.softmax(m[0](x), -1), ((1, 3, 6, 7),), lambda: [conv(3, 4)]),
    _case("log_softmax", lambda m, x: F.log_softmax(m[0](x), -1), ((1, 8),), lambda: [lin(8, 10)]),
    _case("log_softmax_channels", lambda m, x: F.log_softmax(m[0](x), 1), ((1, 3, 5, 5),), lambda: [conv(3, 6)]),
    # pooling options
    _case("avg_pool_ceil", lambda m, x: F.avg_pool2d(m[0](x), 2, ceil_mode=True), ((1, 3, 9, 9),), lambda: [conv(3, 4)]),
    _case("avg_pool_no_pad_count", lambda m, x: F.avg_pool2d(m[0](x), 3, 2, 1, count_include_pad=False),
          ((1, 3, 10, 9),), lambda: [conv(3, 4)]),
    _case("avg_pool_ceil_pad", lambda m, x: F.avg_pool2d(m[0](x), 3, 2, 1, ceil_mode=True, count_include_pad=False),
          ((1, 3, 10, 10),), lambda: [conv(3, 4)]),
    _case("avg_pool_divisor", lambda m, x: F.avg_pool2d(m[0](x), 2, divisor_override=3), ((1, 3, 10, 10),),
          lambda: [conv(3, 4)]),
    _case("max_pool_ceil", lambda m, x: F.max_pool2d(m[0](x), 3, 2, ceil_mode=True), ((1, 3, 10, 10),),
          lambda: [conv(3, 4)]),
    _case("max_pool_indices_unused", lambda m, x: F.max_pool2d(m[0](x), 2, return_indices=True)[0], ((1, 3, 9, 9),),
          lambda: [conv(3, 4)]),
    _case("pool1d", lambda m, x: F.max_pool1d(m[0](x), 2) + F.avg_pool1d(m[0](x), 2), ((1, 3, 16),),
          lambda: [conv1(3, 4)]),
    _case("adaptive_avg_2x2", lambda m, x: F.adaptive_avg_pool2d(m[0](x), 2), ((1, 3, 10, 10),), lambda: [conv(3, 4)]),
    # transposed convolution with groups and dilation
    _case("conv_transpose_groups", lambda m, x: m[0](x), ((1, 4, 5, 6),),
          lambda: [nn.ConvTranspose2d(4, 6, 3, stride=2, groups=2)]),
    _case("conv_transpose_dilation", lambda m, x: m[0](x), ((1, 4, 5, 6),),
          lambda: [nn.ConvTranspose2d(4, 3, 3, dilation=2, padding=1)]),
    # reflect / replicate / circular padding
    _case("reflect_pad", lambda m, x: m[0](F.pad(x, (1, 2, 2, 1), mode="reflect")), ((1, 3, 7, 8),),
          lambda: [conv(3, 4)]),
    _case("replicate_pad_1d", lambda m, x: m[0](F.pad(x, (3, 1), mode="replicate")), ((1, 3, 9),),
          lambda: [conv1(3, 4)]),
    _case("reflect_conv_module", lambda m, x: m[0](x), ((1, 3, 7, 7),),
          lambda: [conv(3, 4, padding=1, padding_mode="reflect")]),
    _case("circular_pad", lambda m, x: F.pad(m[0](x), (1, 1, 1, 1), mode="circular"), ((1, 3, 6, 6),),
          lambda: [conv(3, 4)]),
    # broadcasting in add / sub / mul / min / max / div, both operands, any rank
    _case("broadcast_both", lambda m, x, y: m[0](x).unsqueeze(1) + m[1](y).unsqueeze(2), ((1, 4), (1, 4)),
          lambda: [lin(4, 7), lin(4, 5)]),
    _case("broadcast_map_and_row", lambda m, x, y: m[0](x) * m[1](y), ((1, 3, 4, 5), (1, 3)),
          lambda: [conv(3, 6, 1), lin(3, 5)]),
    _case("broadcast_column_row", lambda m, x: torch.maximum(m[0](x).mean(1, keepdim=True), m[0](x).mean(3, keepdim=True)),
          ((1, 3, 6, 7),), lambda: [conv(3, 4)]),
    _case("broadcast_sub_min_div", lambda m, x, y: (lambda a, b: torch.minimum(a - b, a) / (b.abs() + 1))(
        m[0](x), m[1](y)[:, :1]), ((1, 5, 6), (1, 5, 6)), lambda: [lin(6, 4), lin(6, 4)]),
    _case("divide_map_by_map", lambda m, x, y: m[0](x) / (m[1](y).abs() + 0.25), ((1, 3, 6, 6), (1, 3, 6, 6)),
          lambda: [conv(3, 4), conv(3, 4)]),
    _case("l2_normalize", lambda m, x: F.normalize(m[0](x), dim=-1), ((1, 5, 8),), lambda: [lin(8, 6)]),
    # layer norm and RMS norm (int8 norm op), over groups and instances, statistics, max / min reductions
    _case("layer_norm", lambda m, x: m[1](m[0](x)), ((1, 5, 8),), lambda: [lin(8, 12), nn.LayerNorm(12)]),
    _case("layer_norm_trailing_dims", lambda m, x: m[1](m[0](x)), ((1, 3, 6, 6),),
          lambda: [conv(3, 4), nn.LayerNorm([4, 4], elementwise_affine=False)]),
    _case("rms_norm", lambda m, x: m[1](m[0](x)), ((1, 5, 8),), lambda: [lin(8, 20), nn.RMSNorm(20)]),
    _case("f_rms_norm_no_weight", lambda m, x: F.rms_norm(m[0](x), (9,), eps=1e-3), ((1, 4, 8),), lambda: [lin(8, 9)]),
    _case("group_norm", lambda m, x: m[1](m[0](x)), ((1, 3, 6, 6),), lambda: [conv(3, 8), nn.GroupNorm(4, 8)]),
    _case("instance_norm", lambda m, x: m[1](m[0](x)), ((1, 4, 12),),
          lambda: [conv1(4, 6), nn.InstanceNorm1d(6, affine=True)]),
    _case("var_std", lambda m, x: m[0](x).var(dim=1, keepdim=True) + m[0](x).std(dim=(1, 2), keepdim=True),
          ((1, 3, 7, 7),), lambda: [conv(3, 4)]),
    _case("amax_amin", lambda m, x: m[0](x).amax(dim=1) - m[0](x).amin(dim=(-2, -1))[..., None, None],
          ((1, 3, 7, 7),), lambda: [conv(3, 4)]),
    _case("nearest_to_any_size", lambda m, x: F.interpolate(m[0](x), size=(9, 7), mode="nearest"), ((1, 3, 8, 8),),
          lambda: [conv(3, 4)]),
    _case("adaptive_max_pool", lambda m, x: F.adaptive_max_pool2d(m[0](x), 1).flatten(1), ((1, 3, 8, 8),),
          lambda: [conv(3, 5, padding=1)]),
    # constants made in forward, numbers as arguments
    _case("zeros_ones_full_arange", lambda m, x: m[0](x) + torch.ones(1, 6) * 0.5 - torch.full((6,), 0.25)
          + torch.arange(6.0) * 0.1 + torch.zeros_like(m[0](x)), ((1, 8),), lambda: [lin(8, 6)]),
    _case("full_like_mask", lambda m, x: torch.where(m[0](x) > 0, m[0](x), torch.full_like(m[0](x), -0.1)), ((1, 8),),
          lambda: [lin(8, 6)]),
    # a weight used by several ops (stored once)
    _case("shared_weights", lambda m, x: m[0](F.relu(m[0](F.relu(m[0](x))))), ((1, 8),), lambda: [lin(8, 8)]),
    # GRU and LSTM: 1-2 layers, batch_first either way, with or without an initial state
    _case("gru", lambda m, x: m[1](m[0](x)[0]), ((1, 7, 6),), lambda: [nn.GRU(6, 8, batch_first=True), lin(8, 3)]),
    _case("gru_two_layers_time_first", lambda m, x: m[0](x)[1], ((5, 1, 6),), lambda: [nn.GRU(6, 8, num_layers=2)]),
    _case("lstm_state_out", _lstm_step, ((1, 6, 5),), lambda: [nn.LSTM(5, 7, batch_first=True), lin(7, 7)]),
    _case("lstm_initial_state", lambda m, x, h: m[0](x, (h, h))[0], ((1, 5, 4), (1, 1, 6)),
          lambda: [nn.LSTM(4, 6, batch_first=True)]),
]


def _prelu(channels: int) -> nn.PReLU:
    prelu = nn.PReLU(channels)
    with torch.no_grad():
        prelu.weight.copy_(torch.linspace(0.05, 0.6, channels))
    return prelu


OP_CASES: dict[str, Architecture] = {case.name: case for case in CASES}
