"""Keras / TensorFlow "same" padding for PyTorch convolutions: the MLPerf Tiny reference models are
Keras models, whose "same" pads one more cell after than before when the total is odd."""
from __future__ import annotations

from torch import nn


def same_padding(size: int, kernel: int, stride: int = 1, dilation: int = 1) -> tuple[int, int]:
    """(before, after) that TF's "same" pads a dimension of `size` with: the output is
    ceil(size / stride), the total padding what that takes, the odd cell after."""
    if min(size, kernel, stride, dilation) < 1:
        raise ValueError(f"same_padding needs positive size, kernel, stride, dilation; got "
                         f"{size}, {kernel}, {stride}, {dilation}")
    outputs = -(-size // stride)
    total = max((outputs - 1) * stride + dilation * (kernel - 1) + 1 - size, 0)
    return total // 2, total - total // 2


def same_conv2d(inputs: int, outputs: int, kernel: int | tuple[int, int], size: int | tuple[int, int],
                stride: int = 1, groups: int = 1) -> list[nn.Module]:
    """A Conv2d padded as Keras' "same" for an input of `size` (H, W): the conv's own padding when
    symmetric, else a ZeroPad2d before it (Ember folds it into the conv: no extra op or MAC)."""
    (kh, kw), (h, w) = (kernel, kernel) if isinstance(kernel, int) else kernel, (size, size) if isinstance(size, int) else size
    (top, bottom), (left, right) = same_padding(h, kh, stride), same_padding(w, kw, stride)
    if (top, left) == (bottom, right):
        return [nn.Conv2d(inputs, outputs, (kh, kw), stride=stride, padding=(top, left), groups=groups)]
    return [nn.ZeroPad2d((left, right, top, bottom)), nn.Conv2d(inputs, outputs, (kh, kw), stride=stride, groups=groups)]
