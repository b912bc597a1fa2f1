"""Small models the compiler tests lower."""
from __future__ import annotations

import torch
from torch import nn


def mlp(widths: list[int], activation: type[nn.Module] = nn.ReLU, batch_norm: bool = True, seed: int = 0) -> nn.Module:
    """Linear (+BN) (+activation) blocks, then a plain Linear, with non-trivial BN statistics."""
    torch.manual_seed(seed)
    layers: list[nn.Module] = []
    for a, b in zip(widths[:-2], widths[1:-1]):
        layers.append(nn.Linear(a, b))
        if batch_norm:
            bn = nn.BatchNorm1d(b)
            bn.running_mean.uniform_(-0.5, 0.5)
            bn.running_var.uniform_(0.5, 2.0)
            bn.weight.data.uniform_(0.5, 1.5)
            bn.bias.data.uniform_(-0.2, 0.2)
            layers.append(bn)
        layers.append(activation())
    layers.append(nn.Linear(widths[-2], widths[-1]))
    return nn.Sequential(*layers).eval()


def calibration(features: int, batches: int = 16, batch: int = 8, seed: int = 1) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    return [torch.randn(batch, features, generator=generator) for _ in range(batches)]
