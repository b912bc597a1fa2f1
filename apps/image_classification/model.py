"""MLPerf Tiny image classification reference model: ResNet-8 on CIFAR-10 (32×32×3, 10 classes).

As in mlcommons/tiny benchmark/training/image_classification keras_model.py (`resnet_v1_eembc`,
16 filters) and its PyTorch port (training_torch/image_classification/utils/model.py):

    conv 3×3, 16 → BN → ReLU                                              32×32
    stack 1: [conv 3×3 16 → BN → ReLU → conv 3×3 16 → BN] + identity → ReLU   32×32
    stack 2: [conv 3×3/2 32 → BN → ReLU → conv 3×3 32 → BN] + conv 1×1/2 32 → ReLU   16×16
    stack 3: [conv 3×3/2 64 → BN → ReLU → conv 3×3 64 → BN] + conv 1×1/2 64 → ReLU   8×8
    average pool 8×8 → flatten → dense 10 → softmax

The 1×1 shortcut convolutions have no batch norm, as in the reference. 12.5 M MACs.
Padding: Keras' "same" (apps/common/padding.py): 1 on every stride-1 3×3 convolution; the
stride-2 ones pad 0 above/left and 1 below/right, by a ZeroPad2d that Ember folds into the conv.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from torch import nn

from apps.common.padding import same_conv2d

INPUT_SHAPE = (1, 3, 32, 32)
CLASSES = 10
STACKS = (16, 32, 64)
CHECKPOINT = Path(__file__).with_name("checkpoint.pt")


def to_input(images: np.ndarray) -> torch.Tensor:
    """uint8 [N, 32, 32, 3] camera images → the model's float input [N, 3, 32, 32], (pixel − 128) / 128."""
    x = torch.from_numpy(np.ascontiguousarray(images)).permute(0, 3, 1, 2).float()
    return (x - 128.0) / 128.0


class _Stack(nn.Module):
    """Two 3×3 convolutions and a residual: the identity, or a strided 1×1 conv where the
    shape changes."""

    def __init__(self, inputs: int, outputs: int, stride: int, size: int) -> None:
        super().__init__()
        # Keras "same" at stride 2 on an even size pads (0, 1): an explicit zero pad before the conv
        self.body = nn.Sequential(
            *same_conv2d(inputs, outputs, 3, size, stride), nn.BatchNorm2d(outputs), nn.ReLU(),
            nn.Conv2d(outputs, outputs, 3, padding=1), nn.BatchNorm2d(outputs))
        self.shortcut = nn.Identity() if stride == 1 and inputs == outputs else nn.Conv2d(inputs, outputs, 1, stride=stride)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.shortcut(x) + self.body(x))


class ResNet8(nn.Module):
    def __init__(self, classes: int = CLASSES, widths: tuple[int, ...] = STACKS) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, widths[0], 3, padding=1), nn.BatchNorm2d(widths[0]), nn.ReLU())
        stacks, inputs, size = [], widths[0], INPUT_SHAPE[-1]
        for i, width in enumerate(widths):
            stride = 1 if i == 0 else 2
            stacks.append(_Stack(inputs, width, stride, size))
            inputs, size = width, -(-size // stride)
        self.stacks = nn.Sequential(*stacks)
        self.pool = nn.AvgPool2d(8)
        self.classifier = nn.Linear(widths[-1], classes)

    def logits(self, x: torch.Tensor) -> torch.Tensor:
        """The class scores before the softmax (what training's cross entropy takes)."""
        x = self.pool(self.stacks(self.stem(x)))
        return self.classifier(torch.flatten(x, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.logits(x), dim=1)


def resnet8() -> ResNet8:
    """The reference ResNet-8 (untrained: initialise or load weights before use)."""
    return ResNet8()


def example_inputs() -> tuple[torch.Tensor]:
    return (torch.zeros(INPUT_SHAPE),)
