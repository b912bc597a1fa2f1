"""MLPerf Tiny keyword spotting reference model: DS-CNN (Hello Edge, "DS-CNN small").

Input: 49 frames × 10 MFCC coefficients, one channel; output: 12 classes (softmax).
As in mlcommons/tiny benchmark/training/keyword_spotting keras_model.py (`ds_cnn`):

    conv 10×4 / stride 2, 64 ch, "same" → BN → ReLU                     49×10 → 25×5
    4 × [depthwise 3×3 "same" → BN → ReLU, pointwise 1×1 64 → BN → ReLU]
    average pool 25×5 → flatten → dense 12 → softmax

(the reference's dropouts are identity at inference). 2.66 M MACs.

Padding: Keras' "same" (apps/common/padding.py): the 10×4 stride-2 stem pads rows 4 above and
5 below, columns 1 and 1, by a ZeroPad2d that Ember folds into the convolution.
"""
from __future__ import annotations

import torch
from torch import nn

from apps.common.padding import same_conv2d

INPUT_SHAPE = (1, 1, 49, 10)  # N, C, frames, MFCC coefficients
CLASSES = 12
FILTERS = 64
BLOCKS = 4


def _conv_bn_relu(conv: list[nn.Module]) -> list[nn.Module]:
    return [*conv, nn.BatchNorm2d(conv[-1].out_channels), nn.ReLU()]


class DsCnn(nn.Module):
    def __init__(self, classes: int = CLASSES, filters: int = FILTERS, blocks: int = BLOCKS) -> None:
        super().__init__()
        # Keras "same" on 49×10 pads the stem asymmetrically (rows 4/5): an explicit zero pad
        layers = _conv_bn_relu(same_conv2d(1, filters, (10, 4), INPUT_SHAPE[2:], stride=2))
        for _ in range(blocks):
            layers += _conv_bn_relu([nn.Conv2d(filters, filters, 3, padding=1, groups=filters)])
            layers += _conv_bn_relu([nn.Conv2d(filters, filters, 1)])
        self.features = nn.Sequential(*layers)
        self.pool = nn.AvgPool2d((25, 5))
        self.classifier = nn.Linear(filters, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(self.features(x))
        return torch.softmax(self.classifier(torch.flatten(x, 1)), dim=1)


def ds_cnn() -> DsCnn:
    """The reference DS-CNN (untrained: initialise or load weights before use)."""
    return DsCnn()


def example_inputs() -> tuple[torch.Tensor]:
    return (torch.zeros(INPUT_SHAPE),)
