"""apps/common/padding.py: TF's "same" padding, and the convolutions built with it keep Keras'
output sizes."""
from __future__ import annotations

import pytest
import torch
from torch import nn

from apps.common.padding import same_conv2d, same_padding


@pytest.mark.parametrize("size,kernel,stride,dilation,want", [
    (49, 10, 2, 1, (4, 5)),  # DS-CNN stem, rows
    (10, 4, 2, 1, (1, 1)),   # DS-CNN stem, columns
    (32, 3, 2, 1, (0, 1)),   # ResNet-8 / MobileNetV1 stride-2 3×3 on even sizes
    (32, 1, 2, 1, (0, 0)),   # 1×1 stride-2 shortcut: no padding
    (25, 3, 1, 1, (1, 1)),
    (7, 3, 2, 1, (1, 1)),    # odd size at stride 2: symmetric
    (8, 3, 1, 2, (2, 2)),
    (5, 7, 3, 1, (2, 3)),    # kernel wider than the input: TF pads 7 - 5 % 3 = 5
])
def test_same_padding_follows_tensorflow(size, kernel, stride, dilation, want):
    assert same_padding(size, kernel, stride, dilation) == want


def test_same_padding_rejects_a_zero_stride():
    with pytest.raises(ValueError, match="positive"):
        same_padding(8, 3, 0)


def test_same_conv2d_pads_explicitly_only_when_asymmetric():
    assert [type(m) for m in same_conv2d(4, 4, 3, 9, 2)] == [nn.Conv2d]
    stem = same_conv2d(1, 8, (10, 4), (49, 10), 2)
    assert isinstance(stem[0], nn.ZeroPad2d) and stem[0].padding == (1, 1, 4, 5)
    assert nn.Sequential(*stem)(torch.zeros(1, 1, 49, 10)).shape == (1, 8, 25, 5)
