"""Two more keyword spotters over the KWS app's input (49 frames × 10 MFCC coefficients, one
channel, as DS-CNN takes it: `apps/kws/model.py`), 12 classes, for the benchmark
(`./scons bench models=crnn,kwt`): a convolutional recurrent network and a tiny keyword
transformer, written as PyTorch users write them. Untrained: the benchmark seeds their weights.

CRNN (Arik et al. 2017, "Convolutional Recurrent Neural Networks for Small-Footprint Keyword
Spotting"; sized as Zhang et al. 2017, "Hello Edge", CRNN): one convolution over the MFCCs, then
two stacked GRU layers over its frames, the last step's output through a dense layer:

    conv 10×4 / stride 2, 48 ch, "same" → BN → ReLU          49×10 → 25×5×48
    frames: 25 steps of 5·48 = 240 features
    GRU 240 → 60, two layers, batch_first; the last step      → 60
    dense 84 → ReLU → dense 12 → softmax

KWT (Berg et al. 2021, "Keyword Transformer"), shallower and narrower than KWT-1: every MFCC
frame a token, a linear embedding, a class token and a learned position embedding, post-norm
blocks (the paper's choice) of multi-head self-attention (nn.MultiheadAttention) and a GELU MLP,
the class token's output through a layer norm and a dense layer:

    tokens: 49 frames of 10 → linear 10 → 64, class token in front   → 50×64
    3 × [x = LN(x + MHA(x, x, x)), 2 heads; x = LN(x + W2·GELU(W1·x)), 64 → 128 → 64]
    class token → LN → dense 12 → softmax
"""
from __future__ import annotations

import torch
from torch import nn

from apps.common.padding import same_conv2d

INPUT_SHAPE = (1, 1, 49, 10)  # N, C, frames, MFCC coefficients: DS-CNN's input
CLASSES = 12


class Crnn(nn.Module):
    def __init__(self, classes: int = CLASSES, filters: int = 48, hidden: int = 60, layers: int = 2,
                 dense: int = 84) -> None:
        super().__init__()
        frames, coefficients = INPUT_SHAPE[2:]
        self.conv = nn.Sequential(*same_conv2d(1, filters, (10, 4), (frames, coefficients), stride=2),
                                  nn.BatchNorm2d(filters), nn.ReLU())
        self.gru = nn.GRU(filters * -(-coefficients // 2), hidden, num_layers=layers, batch_first=True)
        self.classifier = nn.Sequential(nn.Linear(hidden, dense), nn.ReLU(), nn.Linear(dense, classes))

    def logits(self, x: torch.Tensor) -> torch.Tensor:
        x = self.conv(x)                                # B, C, frames, coefficients
        x = x.permute(0, 2, 1, 3).flatten(2)            # B, frames, C·coefficients
        out, _ = self.gru(x)
        return self.classifier(out[:, -1])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.logits(x), dim=1)


class KwtBlock(nn.Module):
    """A post-norm transformer encoder block: attention, then the MLP, each added to its input
    and layer-normed."""

    def __init__(self, dim: int, heads: int, mlp_dim: int) -> None:
        super().__init__()
        self.attention = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm1 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, mlp_dim), nn.GELU(), nn.Linear(mlp_dim, dim))
        self.norm2 = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.norm1(x + self.attention(x, x, x, need_weights=False)[0])
        return self.norm2(x + self.mlp(x))


class Kwt(nn.Module):
    def __init__(self, classes: int = CLASSES, dim: int = 64, depth: int = 3, heads: int = 2,
                 mlp_dim: int = 128) -> None:
        super().__init__()
        frames, coefficients = INPUT_SHAPE[2:]
        self.embedding = nn.Linear(coefficients, dim)
        self.class_token = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
        self.position = nn.Parameter(torch.randn(1, frames + 1, dim) * 0.02)
        self.blocks = nn.Sequential(*(KwtBlock(dim, heads, mlp_dim) for _ in range(depth)))
        self.head = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, classes))

    def logits(self, x: torch.Tensor) -> torch.Tensor:
        x = self.embedding(x.squeeze(1))                # B, frames, dim: one token per frame
        x = torch.cat([self.class_token.expand(x.shape[0], -1, -1), x], dim=1) + self.position
        return self.head(self.blocks(x)[:, 0])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.logits(x), dim=1)


def crnn() -> Crnn:
    """The benchmark's CRNN (untrained)."""
    return Crnn()


def kwt() -> Kwt:
    """The benchmark's tiny KWT (untrained)."""
    return Kwt()
