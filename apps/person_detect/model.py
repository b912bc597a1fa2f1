"""Person detection models. For now the MLPerf Tiny visual wake words reference: MobileNetV1
with width multiplier α = 0.25 on 96×96×3, 2 classes (person / no person).

As in mlcommons/tiny benchmarks/visual_wake_words vww_model.py (`mobilenet_v1`, 8 filters):

    conv 3×3/2, 8 → BN → ReLU                                             96 → 48
    13 × [depthwise 3×3 (stride s) → BN → ReLU, pointwise 1×1 → BN → ReLU]
          channels 16, 32, 32, 64, 64, 128, 128 ×5, 256, 256; stride 2 in blocks 2, 4, 6, 12
    average pool 3×3 → flatten → dense 2 → softmax

(ReLU, not ReLU6, as the reference). 7.5 M MACs. Padding: Keras' "same" (apps/common/padding.py):
1 on every stride-1 3×3; at stride 2 on even sizes 0 above/left and 1 below/right, by a ZeroPad2d
that Ember folds into the convolution.

BUILDERS names every model of this app, so that other detectors (a µYOLO) can join.
"""
from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn

from apps.common.padding import same_conv2d

INPUT_SHAPE = (1, 3, 96, 96)
CLASSES = 2
# (pointwise output channels at α = 1, depthwise stride) of the 13 separable blocks
BLOCKS = ((64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2),
          (512, 1), (512, 1), (512, 1), (512, 1), (512, 1), (1024, 2), (1024, 1))
STEM = 32


def _conv_bn_relu(conv: list[nn.Module]) -> list[nn.Module]:
    return [*conv, nn.BatchNorm2d(conv[-1].out_channels), nn.ReLU()]


class MobileNetV1(nn.Module):
    def __init__(self, alpha: float = 0.25, classes: int = CLASSES, resolution: int = INPUT_SHAPE[-1]) -> None:
        super().__init__()
        channels = int(STEM * alpha)
        # Keras "same" at stride 2 on even sizes pads (0, 1): an explicit zero pad before the conv
        layers = _conv_bn_relu(same_conv2d(3, channels, 3, resolution, stride=2))
        size = (resolution + 1) // 2
        for width, stride in BLOCKS:
            outputs = int(width * alpha)
            layers += _conv_bn_relu(same_conv2d(channels, channels, 3, size, stride, groups=channels))
            layers += _conv_bn_relu([nn.Conv2d(channels, outputs, 1)])
            channels, size = outputs, (size + stride - 1) // stride
        self.features = nn.Sequential(*layers)
        self.pool = nn.AvgPool2d(size)
        self.classifier = nn.Linear(channels, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(self.features(x))
        return torch.softmax(self.classifier(torch.flatten(x, 1)), dim=1)


def mobilenet_v1_025() -> MobileNetV1:
    """The visual wake words reference, MobileNetV1-0.25 at 96×96 (untrained)."""
    return MobileNetV1(alpha=0.25)


BUILDERS: dict[str, Callable[[], nn.Module]] = {"mobilenet_v1_025": mobilenet_v1_025}


def example_inputs() -> tuple[torch.Tensor]:
    return (torch.zeros(INPUT_SHAPE),)
