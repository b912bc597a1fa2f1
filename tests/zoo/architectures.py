"""A zoo of public architectures, written the way microcontroller users write them in plain PyTorch.

Each entry follows its paper's (or reference implementation's) definition, scaled to microcontroller
size (<= 300k parameters, <= 20 M MACs, inputs <= 96x96x3), with seeded random weights and random
batch-norm statistics (so folding them matters). Nothing is simplified to avoid an operator: the zoo
measures how many ordinary models Ember lowers unchanged.

    python -m tests.zoo.architectures    # prints parameters and MACs per model
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial
from typing import Callable

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils import parametrize


@dataclass(frozen=True)
class Architecture:
    name: str                       # short id, e.g. "mobilenet_v2"
    build: Callable[[], nn.Module]  # returns the model in eval() mode, weights seeded
    input_shapes: tuple[tuple[int, ...], ...]   # one per forward() input, batch 1, PyTorch layout
    source: str                     # paper / reference it follows, one line
    family: str                     # "vision", "audio", "sequence", "tabular", "multi-io"

    def inputs(self, seed: int = 0) -> tuple[torch.Tensor, ...]:
        """Random example inputs of the architecture's shapes."""
        generator = torch.Generator().manual_seed(seed)
        return tuple(torch.randn(shape, generator=generator) for shape in self.input_shapes)


def _initialize(model: nn.Module, calibration_batch: tuple[torch.Tensor, ...]) -> None:
    """Seeded weights a trained network could have, with non-trivial batch-norm statistics.

    Convolutions and linear layers get He-normal weights (He et al. 2015) and small biases, norms and
    PReLUs random affine parameters / slopes. The batch norms' running statistics are then those of a
    random calibration batch (one train-mode pass with the rest of the model in eval mode), randomly
    jittered, so they are far from 0 / 1 (folding matters) yet keep the activations in range: with
    statistics drawn independently of the data, deep networks' outputs stop depending on their inputs.
    """
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (nn.Conv1d, nn.Conv2d, nn.ConvTranspose2d, nn.Linear)) and not parametrize.is_parametrized(m):
                nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
                if m.bias is not None:
                    m.bias.uniform_(-0.1, 0.1)
            if isinstance(m, (nn.modules.batchnorm._BatchNorm, nn.LayerNorm, nn.GroupNorm, LayerNorm2d)):
                if m.weight is not None:
                    m.weight.uniform_(0.5, 1.5)
                    m.bias.uniform_(-0.2, 0.2)
            if isinstance(m, nn.PReLU):
                m.weight.uniform_(0.05, 0.5)
        norms = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
        if norms:
            model.eval()
            momenta = [m.momentum for m in norms]
            for m in norms:
                m.reset_running_stats()
                m.momentum = None  # cumulative average: this one batch's statistics
                m.train()
            model(*calibration_batch)
            for m, momentum in zip(norms, momenta):
                m.momentum = momentum
                # jitter: the first norms of a zero-mean input would otherwise see statistics near 0 / 1
                m.running_mean += 0.25 * m.running_var.sqrt() * torch.randn_like(m.running_mean)
                m.running_var *= torch.empty_like(m.running_var).uniform_(-0.4, 0.4).exp()


def _build(cls: type[nn.Module], shapes: tuple[tuple[int, ...], ...], seed: int = 0, **kwargs) -> nn.Module:
    torch.manual_seed(seed)
    model = cls(**kwargs)
    _initialize(model, tuple(torch.randn((8, *shape[1:])) for shape in shapes))
    return model.eval()


def _make_divisible(v: float, divisor: int = 8, min_value: int | None = None) -> int:
    """Round channels to a multiple of divisor, not below 90 % of v (the MobileNet reference helper)."""
    min_value = min_value or divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


class LayerNorm2d(nn.Module):
    """LayerNorm over the channels of an NCHW tensor, written out as ConvNeXt's reference does."""

    def __init__(self, channels: int, eps: float = 1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(channels))
        self.bias = nn.Parameter(torch.zeros(channels))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        u = x.mean(1, keepdim=True)
        s = (x - u).pow(2).mean(1, keepdim=True)
        x = (x - u) / torch.sqrt(s + self.eps)
        return self.weight[:, None, None] * x + self.bias[:, None, None]


# ---------------------------------------------------------------------------------------------
# Vision: mobile classification networks
# ---------------------------------------------------------------------------------------------

class MobileNetV1(nn.Module):
    """MobileNets (Howard et al. 2017); MLPerf Tiny visual wake words uses alpha 0.25 at 96x96."""

    def __init__(self, alpha: float = 0.25, num_classes: int = 2):
        super().__init__()

        def conv_bn(inp: int, oup: int, stride: int) -> nn.Sequential:
            return nn.Sequential(nn.Conv2d(inp, oup, 3, stride, 1, bias=False), nn.BatchNorm2d(oup),
                                 nn.ReLU(inplace=True))

        def conv_dw(inp: int, oup: int, stride: int) -> nn.Sequential:
            return nn.Sequential(
                nn.Conv2d(inp, inp, 3, stride, 1, groups=inp, bias=False), nn.BatchNorm2d(inp), nn.ReLU(inplace=True),
                nn.Conv2d(inp, oup, 1, 1, 0, bias=False), nn.BatchNorm2d(oup), nn.ReLU(inplace=True))

        cfg = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)] + [(512, 1)] * 5 + [(1024, 2), (1024, 1)]
        layers, inp = [conv_bn(3, int(32 * alpha), 2)], int(32 * alpha)
        for c, s in cfg:
            layers.append(conv_dw(inp, int(c * alpha), s))
            inp = int(c * alpha)
        self.model = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(inp, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(self.model(x))
        x = x.view(x.size(0), -1)
        return self.fc(x)


class ConvBNReLU6(nn.Sequential):
    def __init__(self, inp: int, oup: int, kernel: int = 3, stride: int = 1, groups: int = 1):
        super().__init__(nn.Conv2d(inp, oup, kernel, stride, (kernel - 1) // 2, groups=groups, bias=False),
                         nn.BatchNorm2d(oup), nn.ReLU6(inplace=True))


class InvertedResidual(nn.Module):
    """MobileNetV2's linear-bottleneck block (expand 1x1, depthwise kxk, project 1x1)."""

    def __init__(self, inp: int, oup: int, stride: int, expand_ratio: float, kernel: int = 3):
        super().__init__()
        hidden = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers: list[nn.Module] = []
        if expand_ratio != 1:
            layers.append(ConvBNReLU6(inp, hidden, 1))
        layers += [ConvBNReLU6(hidden, hidden, kernel, stride, groups=hidden),
                   nn.Conv2d(hidden, oup, 1, bias=False), nn.BatchNorm2d(oup)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.use_res_connect:
            return x + self.conv(x)
        return self.conv(x)


MOBILENET_V2_SETTING = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                        (6, 160, 3, 2), (6, 320, 1, 1)]  # t, c, n, s


class MobileNetV2(nn.Module):
    """MobileNetV2 (Sandler et al. 2018), torchvision layout; last conv narrowed from 1280 to fit an MCU."""

    def __init__(self, width_mult: float = 0.35, last_channel: int = 1280, num_classes: int = 10,
                 setting: list[tuple[int, int, int, int]] = MOBILENET_V2_SETTING):
        super().__init__()
        inp = _make_divisible(32 * width_mult)
        features: list[nn.Module] = [ConvBNReLU6(3, inp, stride=2)]
        for t, c, n, s in setting:
            oup = _make_divisible(c * width_mult)
            for i in range(n):
                features.append(InvertedResidual(inp, oup, s if i == 0 else 1, t))
                inp = oup
        features.append(ConvBNReLU6(inp, last_channel, 1))
        self.features = nn.Sequential(*features)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(last_channel, num_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.features(x)
        x = F.adaptive_avg_pool2d(x, (1, 1))
        x = torch.flatten(x, 1)
        return self.classifier(x)


class SqueezeExcitation(nn.Module):
    """Squeeze-and-excitation with 1x1 convolutions (MobileNetV3 / EfficientNet form)."""

    def __init__(self, channels: int, squeeze: int, activation: type[nn.Module] = nn.ReLU,
                 gate: type[nn.Module] = nn.Hardsigmoid):
        super().__init__()
        self.fc1 = nn.Conv2d(channels, squeeze, 1)
        self.activation = activation()
        self.fc2 = nn.Conv2d(squeeze, channels, 1)
        self.gate = gate()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scale = F.adaptive_avg_pool2d(x, 1)
        scale = self.fc2(self.activation(self.fc1(scale)))
        return x * self.gate(scale)


class MobileNetV3Block(nn.Module):
    """MobileNetV3 bneck: expand, depthwise, optional SE, project; ReLU or hard-swish."""

    def __init__(self, inp: int, kernel: int, expanded: int, oup: int, se: bool, hs: bool, stride: int):
        super().__init__()
        act = nn.Hardswish if hs else nn.ReLU
        self.use_res_connect = stride == 1 and inp == oup
        layers: list[nn.Module] = []
        if expanded != inp:
            layers += [nn.Conv2d(inp, expanded, 1, bias=False), nn.BatchNorm2d(expanded), act(inplace=True)]
        layers += [nn.Conv2d(expanded, expanded, kernel, stride, kernel // 2, groups=expanded, bias=False),
                   nn.BatchNorm2d(expanded), act(inplace=True)]
        if se:
            layers.append(SqueezeExcitation(expanded, _make_divisible(expanded // 4)))
        layers += [nn.Conv2d(expanded, oup, 1, bias=False), nn.BatchNorm2d(oup)]
        self.block = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        result = self.block(x)
        if self.use_res_connect:
            result += x
        return result


MOBILENET_V3_SMALL = [  # in, kernel, expanded, out, SE, hard-swish, stride
    (16, 3, 16, 16, True, False, 2), (16, 3, 72, 24, False, False, 2), (24, 3, 88, 24, False, False, 1),
    (24, 5, 96, 40, True, True, 2), (40, 5, 240, 40, True, True, 1), (40, 5, 240, 40, True, True, 1),
    (40, 5, 120, 48, True, True, 1), (48, 5, 144, 48, True, True, 1), (48, 5, 288, 96, True, True, 2),
    (96, 5, 576, 96, True, True, 1), (96, 5, 576, 96, True, True, 1)]


class MobileNetV3Small(nn.Module):
    """MobileNetV3-Small (Howard et al. 2019, "Searching for MobileNetV3"), width-scaled."""

    def __init__(self, width_mult: float = 0.5, last_channel: int = 128, num_classes: int = 10):
        super().__init__()
        w = lambda c: _make_divisible(c * width_mult)  # noqa: E731
        layers: list[nn.Module] = [nn.Sequential(nn.Conv2d(3, w(16), 3, 2, 1, bias=False), nn.BatchNorm2d(w(16)),
                                                 nn.Hardswish(inplace=True))]
        for inp, k, exp, out, se, hs, s in MOBILENET_V3_SMALL:
            layers.append(MobileNetV3Block(w(inp), k, w(exp), w(out), se, hs, s))
        last_conv = 6 * w(96)
        layers.append(nn.Sequential(nn.Conv2d(w(96), last_conv, 1, bias=False), nn.BatchNorm2d(last_conv),
                                    nn.Hardswish(inplace=True)))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Linear(last_conv, last_channel), nn.Hardswish(inplace=True),
                                        nn.Dropout(0.2, inplace=True), nn.Linear(last_channel, num_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.avgpool(self.features(x))
        x = torch.flatten(x, 1)
        return self.classifier(x)


class Conv2dStaticSamePadding(nn.Conv2d):
    """TensorFlow "SAME" padding as a fixed ZeroPad2d before the convolution (EfficientNet-PyTorch)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1, image_size: int = 96,
                 **kwargs):
        super().__init__(in_channels, out_channels, kernel_size, stride, **kwargs)
        out = math.ceil(image_size / stride)
        pad = max((out - 1) * stride + kernel_size - image_size, 0)
        self.static_padding = nn.ZeroPad2d((pad // 2, pad - pad // 2, pad // 2, pad - pad // 2)) if pad else nn.Identity()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.conv2d(self.static_padding(x), self.weight, self.bias, self.stride, 0, self.dilation, self.groups)


class MBConvLite(nn.Module):
    """EfficientNet-lite MBConv: no squeeze-excite, ReLU6 instead of swish, TF "SAME" padding."""

    def __init__(self, inp: int, oup: int, expand: int, kernel: int, stride: int, image_size: int):
        super().__init__()
        hidden = inp * expand
        self.expand = expand
        self.id_skip = stride == 1 and inp == oup
        if expand != 1:
            self._expand_conv = Conv2dStaticSamePadding(inp, hidden, 1, image_size=image_size, bias=False)
            self._bn0 = nn.BatchNorm2d(hidden, momentum=0.01, eps=1e-3)
        self._depthwise_conv = Conv2dStaticSamePadding(hidden, hidden, kernel, stride, image_size=image_size,
                                                       groups=hidden, bias=False)
        self._bn1 = nn.BatchNorm2d(hidden, momentum=0.01, eps=1e-3)
        self._project_conv = Conv2dStaticSamePadding(hidden, oup, 1, image_size=math.ceil(image_size / stride), bias=False)
        self._bn2 = nn.BatchNorm2d(oup, momentum=0.01, eps=1e-3)

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        x = inputs
        if self.expand != 1:
            x = F.relu6(self._bn0(self._expand_conv(x)))
        x = F.relu6(self._bn1(self._depthwise_conv(x)))
        x = self._bn2(self._project_conv(x))
        if self.id_skip:
            x = x + inputs  # drop-connect is training-only
        return x


class EfficientNetLite(nn.Module):
    """EfficientNet-lite0 (Tan & Le 2019; TF "lite" variant: ReLU6, no SE, fixed stem/head), scaled down."""

    # expand, kernel, stride, out, repeats (lite0's blocks, repeats and widths scaled)
    BLOCKS = [(1, 3, 1, 8, 1), (6, 3, 2, 16, 2), (6, 5, 2, 24, 2), (6, 3, 2, 32, 2), (6, 5, 1, 48, 2),
              (6, 5, 2, 64, 2), (6, 3, 1, 80, 1)]

    def __init__(self, image_size: int = 96, stem: int = 16, head: int = 256, num_classes: int = 10):
        super().__init__()
        self._conv_stem = Conv2dStaticSamePadding(3, stem, 3, 2, image_size=image_size, bias=False)
        self._bn0 = nn.BatchNorm2d(stem, momentum=0.01, eps=1e-3)
        size, inp, blocks = math.ceil(image_size / 2), stem, []
        for e, k, s, c, n in self.BLOCKS:
            for i in range(n):
                stride = s if i == 0 else 1
                blocks.append(MBConvLite(inp, c, e, k, stride, size))
                size, inp = math.ceil(size / stride), c
        self._blocks = nn.ModuleList(blocks)
        self._conv_head = Conv2dStaticSamePadding(inp, head, 1, image_size=size, bias=False)
        self._bn1 = nn.BatchNorm2d(head, momentum=0.01, eps=1e-3)
        self._avg_pooling = nn.AdaptiveAvgPool2d(1)
        self._dropout = nn.Dropout(0.2)
        self._fc = nn.Linear(head, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu6(self._bn0(self._conv_stem(x)))
        for block in self._blocks:
            x = block(x)
        x = F.relu6(self._bn1(self._conv_head(x)))
        x = self._avg_pooling(x).flatten(start_dim=1)
        return self._fc(self._dropout(x))


class EfficientNetB0(nn.Module):
    """EfficientNet-B0 (Tan & Le 2019): MBConv with SiLU and squeeze-excite, width and depth scaled down."""

    BLOCKS = [(1, 3, 1, 8, 1), (6, 3, 2, 16, 1), (6, 5, 2, 24, 2), (6, 3, 2, 40, 2), (6, 5, 1, 48, 1),
              (6, 5, 2, 64, 2)]  # expand, kernel, stride, out, repeats

    class MBConv(nn.Module):
        def __init__(self, inp: int, oup: int, expand: int, kernel: int, stride: int):
            super().__init__()
            hidden = inp * expand
            self.use_res_connect = stride == 1 and inp == oup
            layers: list[nn.Module] = []
            if expand != 1:
                layers += [nn.Conv2d(inp, hidden, 1, bias=False), nn.BatchNorm2d(hidden), nn.SiLU(inplace=True)]
            layers += [nn.Conv2d(hidden, hidden, kernel, stride, kernel // 2, groups=hidden, bias=False),
                       nn.BatchNorm2d(hidden), nn.SiLU(inplace=True),
                       SqueezeExcitation(hidden, max(1, inp // 4), activation=nn.SiLU, gate=nn.Sigmoid),
                       nn.Conv2d(hidden, oup, 1, bias=False), nn.BatchNorm2d(oup)]
            self.block = nn.Sequential(*layers)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            out = self.block(x)
            return out + x if self.use_res_connect else out

    def __init__(self, stem: int = 16, head: int = 320, num_classes: int = 10):
        super().__init__()
        layers: list[nn.Module] = [nn.Conv2d(3, stem, 3, 2, 1, bias=False), nn.BatchNorm2d(stem), nn.SiLU(inplace=True)]
        inp = stem
        for e, k, s, c, n in self.BLOCKS:
            for i in range(n):
                layers.append(self.MBConv(inp, c, e, k, s if i == 0 else 1))
                inp = c
        layers += [nn.Conv2d(inp, head, 1, bias=False), nn.BatchNorm2d(head), nn.SiLU(inplace=True)]
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Dropout(p=0.2, inplace=True), nn.Linear(head, num_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.avgpool(self.features(x))
        return self.classifier(torch.flatten(x, 1))


class MCUNet(nn.Module):
    """MCUNet-style backbone (Lin et al. 2020, TinyNAS): inverted residuals with searched, mixed kernel
    sizes (3/5/7) and expansion ratios (3..6), no wide head."""

    BLOCKS = [(1, 3, 8, 1), (3, 7, 16, 2), (4, 3, 16, 1), (5, 5, 24, 2), (4, 5, 24, 1), (3, 3, 24, 1),
              (5, 7, 40, 2), (4, 5, 40, 1), (6, 5, 48, 1), (3, 3, 48, 1), (6, 7, 96, 2), (4, 5, 96, 1)]

    def __init__(self, stem: int = 16, num_classes: int = 2):
        super().__init__()
        self.first_conv = ConvBNReLU6(3, stem, 3, 2)
        blocks, inp = [], stem
        for e, k, c, s in self.BLOCKS:
            blocks.append(InvertedResidual(inp, c, s, e, kernel=k))
            inp = c
        self.blocks = nn.Sequential(*blocks)
        self.classifier = nn.Linear(inp, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.blocks(self.first_conv(x))
        x = x.mean(3, keepdim=True).mean(2, keepdim=True)  # once-for-all's MyGlobalAvgPool2d, which MCUNet uses
        return self.classifier(torch.flatten(x, 1))


class MixConv(nn.Module):
    """Depthwise convolutions of several kernel sizes on channel groups (MixNet, Tan & Le 2019)."""

    def __init__(self, channels: int, kernels: tuple[int, ...], stride: int):
        super().__init__()
        splits = [channels // len(kernels)] * len(kernels)
        splits[0] += channels - sum(splits)
        self.splits = splits
        self.convs = nn.ModuleList(nn.Conv2d(c, c, k, stride, k // 2, groups=c, bias=False)
                                   for c, k in zip(splits, kernels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xs = torch.split(x, self.splits, dim=1)
        return torch.cat([conv(xi) for conv, xi in zip(self.convs, xs)], dim=1)


class MixNet(nn.Module):
    """MixNet-S-style (Tan & Le 2019, "MixConv"): mixed depthwise kernels, ReLU early, swish + SE later."""

    BLOCKS = [  # out, kernels, stride, expand, swish+SE
        (16, (3,), 1, 1, False), (24, (3,), 2, 6, False), (24, (3,), 1, 3, False),
        (40, (3, 5, 7), 2, 6, True), (40, (3, 5), 1, 6, True), (80, (3, 5, 7), 2, 6, True),
        (80, (3, 5), 1, 6, True), (120, (3, 5, 7, 9), 1, 3, True)]

    class Block(nn.Module):
        def __init__(self, inp: int, oup: int, kernels: tuple[int, ...], stride: int, expand: int, swish: bool):
            super().__init__()
            hidden = inp * expand
            act = nn.SiLU if swish else nn.ReLU
            layers: list[nn.Module] = []
            if expand != 1:
                layers += [nn.Conv2d(inp, hidden, 1, bias=False), nn.BatchNorm2d(hidden), act()]
            layers += [MixConv(hidden, kernels, stride), nn.BatchNorm2d(hidden), act()]
            if swish:
                layers.append(SqueezeExcitation(hidden, max(1, inp // 2), activation=nn.SiLU, gate=nn.Sigmoid))
            layers += [nn.Conv2d(hidden, oup, 1, bias=False), nn.BatchNorm2d(oup)]
            self.block = nn.Sequential(*layers)
            self.residual = stride == 1 and inp == oup

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x + self.block(x) if self.residual else self.block(x)

    def __init__(self, width: float = 0.5, num_classes: int = 10):
        super().__init__()
        w = lambda c: _make_divisible(c * width)  # noqa: E731
        self.stem = nn.Sequential(nn.Conv2d(3, w(16), 3, 2, 1, bias=False), nn.BatchNorm2d(w(16)), nn.ReLU())
        blocks, inp = [], w(16)
        for c, ks, s, e, swish in self.BLOCKS:
            blocks.append(self.Block(inp, w(c), ks, s, e, swish))
            inp = w(c)
        self.blocks = nn.Sequential(*blocks)
        self.head = nn.Sequential(nn.Conv2d(inp, 256, 1, bias=False), nn.BatchNorm2d(256), nn.ReLU())
        self.classifier = nn.Linear(256, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.head(self.blocks(self.stem(x)))
        return self.classifier(x.mean([2, 3]))


class Fire(nn.Module):
    def __init__(self, inplanes: int, squeeze: int, expand1x1: int, expand3x3: int):
        super().__init__()
        self.squeeze = nn.Conv2d(inplanes, squeeze, 1)
        self.squeeze_activation = nn.ReLU(inplace=True)
        self.expand1x1 = nn.Conv2d(squeeze, expand1x1, 1)
        self.expand1x1_activation = nn.ReLU(inplace=True)
        self.expand3x3 = nn.Conv2d(squeeze, expand3x3, 3, padding=1)
        self.expand3x3_activation = nn.ReLU(inplace=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.squeeze_activation(self.squeeze(x))
        return torch.cat([self.expand1x1_activation(self.expand1x1(x)),
                          self.expand3x3_activation(self.expand3x3(x))], 1)


class SqueezeNet11(nn.Module):
    """SqueezeNet 1.1 (Iandola et al. 2016; torchvision layout, ceil-mode max pools), channels halved."""

    def __init__(self, num_classes: int = 10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 3, stride=2), nn.ReLU(inplace=True),
            nn.MaxPool2d(3, 2, ceil_mode=True), Fire(32, 8, 32, 32), Fire(64, 8, 32, 32),
            nn.MaxPool2d(3, 2, ceil_mode=True), Fire(64, 16, 64, 64), Fire(128, 16, 64, 64),
            nn.MaxPool2d(3, 2, ceil_mode=True), Fire(128, 24, 96, 96), Fire(192, 24, 96, 96),
            Fire(192, 32, 128, 128), Fire(256, 32, 128, 128))
        self.classifier = nn.Sequential(nn.Dropout(0.5), nn.Conv2d(256, num_classes, 1), nn.ReLU(inplace=True),
                                        nn.AdaptiveAvgPool2d((1, 1)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.flatten(self.classifier(self.features(x)), 1)


def channel_shuffle(x: torch.Tensor, groups: int) -> torch.Tensor:
    b, c, h, w = x.size()
    x = x.view(b, groups, c // groups, h, w)
    x = torch.transpose(x, 1, 2).contiguous()
    return x.view(b, -1, h, w)


class ShuffleV2Block(nn.Module):
    def __init__(self, inp: int, oup: int, stride: int):
        super().__init__()
        self.stride = stride
        branch = oup // 2
        if stride > 1:
            self.branch1 = nn.Sequential(
                nn.Conv2d(inp, inp, 3, stride, 1, groups=inp, bias=False), nn.BatchNorm2d(inp),
                nn.Conv2d(inp, branch, 1, bias=False), nn.BatchNorm2d(branch), nn.ReLU(inplace=True))
        else:
            self.branch1 = nn.Sequential()
        self.branch2 = nn.Sequential(
            nn.Conv2d(inp if stride > 1 else branch, branch, 1, bias=False), nn.BatchNorm2d(branch), nn.ReLU(inplace=True),
            nn.Conv2d(branch, branch, 3, stride, 1, groups=branch, bias=False), nn.BatchNorm2d(branch),
            nn.Conv2d(branch, branch, 1, bias=False), nn.BatchNorm2d(branch), nn.ReLU(inplace=True))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.stride == 1:
            x1, x2 = x.chunk(2, dim=1)
            out = torch.cat((x1, self.branch2(x2)), dim=1)
        else:
            out = torch.cat((self.branch1(x), self.branch2(x)), dim=1)
        return channel_shuffle(out, 2)


class ShuffleNetV2(nn.Module):
    """ShuffleNet V2 0.5x (Ma et al. 2018; torchvision layout), conv5 narrowed from 1024 to 512."""

    def __init__(self, repeats: tuple[int, ...] = (4, 8, 4), channels: tuple[int, ...] = (24, 48, 96, 192, 512),
                 num_classes: int = 10):
        super().__init__()
        self.conv1 = nn.Sequential(nn.Conv2d(3, channels[0], 3, 2, 1, bias=False), nn.BatchNorm2d(channels[0]),
                                   nn.ReLU(inplace=True))
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        inp, stages = channels[0], []
        for n, oup in zip(repeats, channels[1:4]):
            stages.append(nn.Sequential(ShuffleV2Block(inp, oup, 2), *[ShuffleV2Block(oup, oup, 1) for _ in range(n - 1)]))
            inp = oup
        self.stage2, self.stage3, self.stage4 = stages
        self.conv5 = nn.Sequential(nn.Conv2d(inp, channels[-1], 1, bias=False), nn.BatchNorm2d(channels[-1]),
                                   nn.ReLU(inplace=True))
        self.fc = nn.Linear(channels[-1], num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.maxpool(self.conv1(x))
        x = self.conv5(self.stage4(self.stage3(self.stage2(x))))
        x = x.mean([2, 3])  # global pool
        return self.fc(x)


def hard_sigmoid(x: torch.Tensor) -> torch.Tensor:
    return F.relu6(x + 3.0) / 6.0


class GhostSE(nn.Module):
    def __init__(self, in_chs: int, se_ratio: float = 0.25):
        super().__init__()
        reduced = _make_divisible(in_chs * se_ratio, 4)
        self.avg_pool = nn.AdaptiveAvgPool2d(1)
        self.conv_reduce = nn.Conv2d(in_chs, reduced, 1, bias=True)
        self.act1 = nn.ReLU(inplace=True)
        self.conv_expand = nn.Conv2d(reduced, in_chs, 1, bias=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x_se = self.conv_expand(self.act1(self.conv_reduce(self.avg_pool(x))))
        return x * hard_sigmoid(x_se)


class GhostModule(nn.Module):
    """Half the channels from a 1x1 convolution, the other half from a cheap depthwise one, concatenated."""

    def __init__(self, inp: int, oup: int, kernel_size: int = 1, ratio: int = 2, dw_size: int = 3, relu: bool = True):
        super().__init__()
        self.oup = oup
        init_channels = math.ceil(oup / ratio)
        new_channels = init_channels * (ratio - 1)
        self.primary_conv = nn.Sequential(
            nn.Conv2d(inp, init_channels, kernel_size, 1, kernel_size // 2, bias=False), nn.BatchNorm2d(init_channels),
            nn.ReLU(inplace=True) if relu else nn.Sequential())
        self.cheap_operation = nn.Sequential(
            nn.Conv2d(init_channels, new_channels, dw_size, 1, dw_size // 2, groups=init_channels, bias=False),
            nn.BatchNorm2d(new_channels), nn.ReLU(inplace=True) if relu else nn.Sequential())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x1 = self.primary_conv(x)
        x2 = self.cheap_operation(x1)
        out = torch.cat([x1, x2], dim=1)
        return out[:, :self.oup, :, :]


class GhostBottleneck(nn.Module):
    def __init__(self, in_chs: int, mid_chs: int, out_chs: int, dw_kernel_size: int = 3, stride: int = 1,
                 se_ratio: float = 0.0):
        super().__init__()
        self.stride = stride
        self.ghost1 = GhostModule(in_chs, mid_chs, relu=True)
        if stride > 1:
            self.conv_dw = nn.Conv2d(mid_chs, mid_chs, dw_kernel_size, stride, (dw_kernel_size - 1) // 2,
                                     groups=mid_chs, bias=False)
            self.bn_dw = nn.BatchNorm2d(mid_chs)
        self.se = GhostSE(mid_chs, se_ratio) if se_ratio > 0 else None
        self.ghost2 = GhostModule(mid_chs, out_chs, relu=False)
        if in_chs == out_chs and stride == 1:
            self.shortcut = nn.Sequential()
        else:
            self.shortcut = nn.Sequential(
                nn.Conv2d(in_chs, in_chs, dw_kernel_size, stride, (dw_kernel_size - 1) // 2, groups=in_chs, bias=False),
                nn.BatchNorm2d(in_chs), nn.Conv2d(in_chs, out_chs, 1, bias=False), nn.BatchNorm2d(out_chs))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        residual = x
        x = self.ghost1(x)
        if self.stride > 1:
            x = self.bn_dw(self.conv_dw(x))
        if self.se is not None:
            x = self.se(x)
        x = self.ghost2(x)
        x += self.shortcut(residual)
        return x


class GhostNet(nn.Module):
    """GhostNet (Han et al. 2020), width 0.35, the last three 160-channel blocks dropped, head 1280 -> 320."""

    CFGS = [  # kernel, expanded, out, SE ratio, stride
        (3, 16, 16, 0, 1), (3, 48, 24, 0, 2), (3, 72, 24, 0, 1), (5, 72, 40, 0.25, 2), (5, 120, 40, 0.25, 1),
        (3, 240, 80, 0, 2), (3, 200, 80, 0, 1), (3, 184, 80, 0, 1), (3, 184, 80, 0, 1), (3, 480, 112, 0.25, 1),
        (3, 672, 112, 0.25, 1), (5, 672, 160, 0.25, 2), (5, 960, 160, 0, 1)]

    def __init__(self, width: float = 0.35, head: int = 320, num_classes: int = 10):
        super().__init__()
        stem = _make_divisible(16 * width, 4)
        self.conv_stem = nn.Conv2d(3, stem, 3, 2, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(stem)
        self.act1 = nn.ReLU(inplace=True)
        blocks, inp = [], stem
        for k, exp, c, se, s in self.CFGS:
            out = _make_divisible(c * width, 4)
            blocks.append(GhostBottleneck(inp, _make_divisible(exp * width, 4), out, k, s, se))
            inp = out
        last = _make_divisible(960 * width, 4)
        blocks.append(nn.Sequential(nn.Conv2d(inp, last, 1, bias=False), nn.BatchNorm2d(last), nn.ReLU(inplace=True)))
        self.blocks = nn.Sequential(*blocks)
        self.global_pool = nn.AdaptiveAvgPool2d((1, 1))
        self.conv_head = nn.Conv2d(last, head, 1, bias=True)
        self.act2 = nn.ReLU(inplace=True)
        self.classifier = nn.Linear(head, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.blocks(self.act1(self.bn1(self.conv_stem(x))))
        x = self.act2(self.conv_head(self.global_pool(x)))
        x = x.view(x.size(0), -1)
        x = F.dropout(x, p=0.2, training=self.training)
        return self.classifier(x)


class MobileFaceNet(nn.Module):
    """MobileFaceNet (Chen et al. 2018): PReLU bottlenecks, global depthwise conv, L2-normalised embedding."""

    class ConvBlock(nn.Module):
        def __init__(self, inp: int, oup: int, kernel: int = 1, stride: int = 1, padding: int = 0, groups: int = 1,
                     linear: bool = False):
            super().__init__()
            self.conv = nn.Conv2d(inp, oup, kernel, stride, padding, groups=groups, bias=False)
            self.bn = nn.BatchNorm2d(oup)
            self.prelu = nn.Identity() if linear else nn.PReLU(oup)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.prelu(self.bn(self.conv(x)))

    class DepthWise(nn.Module):
        def __init__(self, inp: int, oup: int, residual: bool, stride: int, groups: int):
            super().__init__()
            C = MobileFaceNet.ConvBlock
            self.conv = C(inp, groups)
            self.conv_dw = C(groups, groups, 3, stride, 1, groups=groups)
            self.project = C(groups, oup, linear=True)
            self.residual = residual

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            y = self.project(self.conv_dw(self.conv(x)))
            return x + y if self.residual else y

    def __init__(self, embedding: int = 64, image_size: int = 64):
        super().__init__()
        C, D = self.ConvBlock, self.DepthWise
        self.conv1 = C(3, 16, 3, 2, 1)
        self.conv2_dw = C(16, 16, 3, 1, 1, groups=16)
        self.conv_23 = D(16, 16, False, 2, 32)
        self.conv_3 = nn.Sequential(*[D(16, 16, True, 1, 32) for _ in range(2)])
        self.conv_34 = D(16, 32, False, 2, 64)
        self.conv_4 = nn.Sequential(*[D(32, 32, True, 1, 64) for _ in range(3)])
        self.conv_45 = D(32, 32, False, 2, 128)
        self.conv_5 = nn.Sequential(*[D(32, 32, True, 1, 64) for _ in range(2)])
        self.conv_6_sep = C(32, 128)
        self.conv_6_dw = C(128, 128, image_size // 16, groups=128, linear=True)  # global depthwise conv
        self.linear = nn.Linear(128, embedding, bias=False)
        self.bn = nn.BatchNorm1d(embedding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.conv2_dw(self.conv1(x))
        x = self.conv_5(self.conv_45(self.conv_4(self.conv_34(self.conv_3(self.conv_23(x))))))
        x = self.conv_6_dw(self.conv_6_sep(x))
        x = self.bn(self.linear(x.view(x.shape[0], -1)))
        return F.normalize(x, p=2, dim=1)


# ---------------------------------------------------------------------------------------------
# Vision: residual, dense, inception and classic networks
# ---------------------------------------------------------------------------------------------

class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes: int, planes: int, stride: int = 1, downsample: nn.Module | None = None):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return self.relu(out)


class ResNet18(nn.Module):
    """ResNet-18 (He et al. 2016; torchvision layout: 7x7 stem, max pool, 4 stages of 2 basic blocks), narrow."""

    def __init__(self, widths: tuple[int, ...] = (8, 16, 32, 64), num_classes: int = 10):
        super().__init__()
        self.inplanes = widths[0]
        self.conv1 = nn.Conv2d(3, widths[0], 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(widths[0])
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1, self.layer2, self.layer3, self.layer4 = (
            self._make_layer(w, 2, 1 if i == 0 else 2) for i, w in enumerate(widths))
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(widths[-1], num_classes)

    def _make_layer(self, planes: int, blocks: int, stride: int) -> nn.Sequential:
        downsample = None
        if stride != 1 or self.inplanes != planes:
            downsample = nn.Sequential(nn.Conv2d(self.inplanes, planes, 1, stride, bias=False), nn.BatchNorm2d(planes))
        layers = [BasicBlock(self.inplanes, planes, stride, downsample)]
        self.inplanes = planes
        layers += [BasicBlock(planes, planes) for _ in range(1, blocks)]
        return nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        x = torch.flatten(self.avgpool(x), 1)
        return self.fc(x)


class ResNet8(nn.Module):
    """ResNet-8 of MLPerf Tiny image classification (Banbury et al. 2021), CIFAR-10 32x32x3."""

    class Block(nn.Module):
        def __init__(self, inp: int, oup: int, stride: int):
            super().__init__()
            self.conv1 = nn.Conv2d(inp, oup, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(oup)
            self.conv2 = nn.Conv2d(oup, oup, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(oup)
            self.shortcut = nn.Sequential() if stride == 1 and inp == oup else nn.Conv2d(inp, oup, 1, stride)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            out = F.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            out += self.shortcut(x)
            return F.relu(out)

    def __init__(self, num_classes: int = 10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU(inplace=True))
        self.stacks = nn.Sequential(self.Block(16, 16, 1), self.Block(16, 32, 2), self.Block(32, 64, 2))
        self.pool = nn.AvgPool2d(8)
        self.fc = nn.Linear(64, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(self.stacks(self.stem(x)))
        return self.fc(torch.flatten(x, 1))


class SEResNet(nn.Module):
    """SE-ResNet (Hu et al. 2018): CIFAR basic blocks with fully-connected squeeze-and-excitation."""

    class SELayer(nn.Module):
        def __init__(self, channel: int, reduction: int = 8):
            super().__init__()
            self.fc = nn.Sequential(nn.Linear(channel, channel // reduction, bias=False), nn.ReLU(inplace=True),
                                    nn.Linear(channel // reduction, channel, bias=False), nn.Sigmoid())

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            b, c, _, _ = x.size()
            y = self.fc(x.mean((2, 3))).view(b, c, 1, 1)
            return x * y.expand_as(x)

    class SEBasicBlock(nn.Module):
        def __init__(self, inp: int, oup: int, stride: int):
            super().__init__()
            self.conv1 = nn.Conv2d(inp, oup, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(oup)
            self.conv2 = nn.Conv2d(oup, oup, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(oup)
            self.se = SEResNet.SELayer(oup)
            self.shortcut = nn.Identity()
            if stride != 1 or inp != oup:
                self.shortcut = nn.Sequential(nn.Conv2d(inp, oup, 1, stride, bias=False), nn.BatchNorm2d(oup))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            out = self.bn1(self.conv1(x)).relu_()
            out = self.se(self.bn2(self.conv2(out)))
            out = out + self.shortcut(x)
            return out.relu_()

    def __init__(self, widths: tuple[int, ...] = (16, 32, 64), blocks: int = 1, num_classes: int = 10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, widths[0], 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(widths[0])
        layers, inp = [], widths[0]
        for i, w in enumerate(widths):
            for j in range(blocks):
                layers.append(self.SEBasicBlock(inp, w, 2 if i > 0 and j == 0 else 1))
                inp = w
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(inp, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.layers(F.relu(self.bn1(self.conv1(x)), inplace=True))
        x = F.avg_pool2d(x, x.size(3))
        return self.fc(x.view(x.size(0), -1))


class DenseNet(nn.Module):
    """DenseNet-BC (Huang et al. 2017; torchvision layout): BN-ReLU-conv layers on concatenated features,
    so most batch norms follow a concatenation, not a convolution."""

    class DenseLayer(nn.Module):
        def __init__(self, inp: int, growth: int, bn_size: int):
            super().__init__()
            self.norm1 = nn.BatchNorm2d(inp)
            self.relu1 = nn.ReLU(inplace=True)
            self.conv1 = nn.Conv2d(inp, bn_size * growth, 1, bias=False)
            self.norm2 = nn.BatchNorm2d(bn_size * growth)
            self.relu2 = nn.ReLU(inplace=True)
            self.conv2 = nn.Conv2d(bn_size * growth, growth, 3, 1, 1, bias=False)

        def forward(self, features: list[torch.Tensor]) -> torch.Tensor:
            x = torch.cat(features, 1)
            x = self.conv1(self.relu1(self.norm1(x)))
            return self.conv2(self.relu2(self.norm2(x)))

    class Transition(nn.Sequential):
        def __init__(self, inp: int, oup: int):
            super().__init__(nn.BatchNorm2d(inp), nn.ReLU(inplace=True), nn.Conv2d(inp, oup, 1, bias=False),
                             nn.AvgPool2d(kernel_size=2, stride=2))

    def __init__(self, growth: int = 8, blocks: tuple[int, ...] = (4, 4, 4), stem: int = 16, bn_size: int = 2,
                 num_classes: int = 10):
        super().__init__()
        self.conv0 = nn.Conv2d(3, stem, 3, 1, 1, bias=False)
        self.blocks = nn.ModuleList()
        self.transitions = nn.ModuleList()
        c = stem
        for i, n in enumerate(blocks):
            self.blocks.append(nn.ModuleList(self.DenseLayer(c + j * growth, growth, bn_size) for j in range(n)))
            c += n * growth
            if i != len(blocks) - 1:
                self.transitions.append(self.Transition(c, c // 2))
                c //= 2
        self.norm5 = nn.BatchNorm2d(c)
        self.classifier = nn.Linear(c, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.conv0(x)
        for i, block in enumerate(self.blocks):
            features = [x]
            for layer in block:
                features.append(layer(features))
            x = torch.cat(features, 1)
            if i < len(self.transitions):
                x = self.transitions[i](x)
        x = F.relu(self.norm5(x), inplace=True)
        x = torch.flatten(F.adaptive_avg_pool2d(x, (1, 1)), 1)
        return self.classifier(x)


class ConvNeXt(nn.Module):
    """ConvNeXt (Liu et al. 2022): 7x7 depthwise, channels-last LayerNorm + MLP, layer scale; atto-sized."""

    class Block(nn.Module):
        def __init__(self, dim: int, layer_scale: float = 1e-1):
            super().__init__()
            self.dwconv = nn.Conv2d(dim, dim, 7, padding=3, groups=dim)
            self.norm = nn.LayerNorm(dim, eps=1e-6)
            self.pwconv1 = nn.Linear(dim, 4 * dim)
            self.act = nn.GELU()
            self.pwconv2 = nn.Linear(4 * dim, dim)
            self.gamma = nn.Parameter(layer_scale * torch.rand(dim) + layer_scale / 2)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            shortcut = x
            x = self.dwconv(x).permute(0, 2, 3, 1)  # (N, C, H, W) -> (N, H, W, C)
            x = self.pwconv2(self.act(self.pwconv1(self.norm(x))))
            x = (self.gamma * x).permute(0, 3, 1, 2)
            return shortcut + x

    def __init__(self, depths: tuple[int, ...] = (1, 1, 2, 1), dims: tuple[int, ...] = (16, 24, 40, 64),
                 num_classes: int = 10):
        super().__init__()
        self.downsample_layers = nn.ModuleList([nn.Sequential(nn.Conv2d(3, dims[0], 4, stride=4), LayerNorm2d(dims[0]))])
        for a, b in zip(dims, dims[1:]):
            self.downsample_layers.append(nn.Sequential(LayerNorm2d(a), nn.Conv2d(a, b, 2, stride=2)))
        self.stages = nn.ModuleList(nn.Sequential(*[self.Block(d) for _ in range(n)]) for d, n in zip(dims, depths))
        self.norm = nn.LayerNorm(dims[-1], eps=1e-6)
        self.head = nn.Linear(dims[-1], num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for down, stage in zip(self.downsample_layers, self.stages):
            x = stage(down(x))
        return self.head(self.norm(x.mean([-2, -1])))


class BasicConv2d(nn.Module):
    def __init__(self, inp: int, oup: int, **kwargs):
        super().__init__()
        self.conv = nn.Conv2d(inp, oup, bias=False, **kwargs)
        self.bn = nn.BatchNorm2d(oup, eps=0.001)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.relu(self.bn(self.conv(x)), inplace=True)


class InceptionBlock(nn.Module):
    """1x1 | 1x1-3x3 | 1x1-3x3-3x3 | avg-pool-1x1 branches, concatenated (Inception-v3's InceptionA)."""

    def __init__(self, inp: int, c1: int, c3: tuple[int, int], c5: tuple[int, int], pool: int):
        super().__init__()
        self.branch1x1 = BasicConv2d(inp, c1, kernel_size=1)
        self.branch3x3_1 = BasicConv2d(inp, c3[0], kernel_size=1)
        self.branch3x3_2 = BasicConv2d(c3[0], c3[1], kernel_size=3, padding=1)
        self.branch3x3dbl_1 = BasicConv2d(inp, c5[0], kernel_size=1)
        self.branch3x3dbl_2 = BasicConv2d(c5[0], c5[1], kernel_size=3, padding=1)
        self.branch3x3dbl_3 = BasicConv2d(c5[1], c5[1], kernel_size=3, padding=1)
        self.branch_pool_pool = nn.AvgPool2d(kernel_size=3, stride=1, padding=1, count_include_pad=False)
        self.branch_pool = BasicConv2d(inp, pool, kernel_size=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b1 = self.branch1x1(x)
        b3 = self.branch3x3_2(self.branch3x3_1(x))
        b5 = self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x)))
        bp = self.branch_pool(self.branch_pool_pool(x))
        return torch.cat([b1, b3, b5, bp], 1)


class InceptionNet(nn.Module):
    """A small GoogLeNet / Inception-v3-style network (Szegedy et al. 2015, 2016) for 32x32 images."""

    def __init__(self, num_classes: int = 10):
        super().__init__()
        self.stem = BasicConv2d(3, 24, kernel_size=3, padding=1)
        self.inception1 = InceptionBlock(24, 16, (16, 24), (8, 12), 8)      # -> 60
        self.pool1 = nn.MaxPool2d(3, stride=2, padding=1)
        self.inception2 = InceptionBlock(60, 24, (24, 32), (12, 16), 16)    # -> 88
        self.pool2 = nn.MaxPool2d(3, stride=2, padding=1)
        self.inception3 = InceptionBlock(88, 32, (32, 48), (16, 24), 24)    # -> 128
        self.dropout = nn.Dropout(0.4)
        self.fc = nn.Linear(128, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool1(self.inception1(self.stem(x)))
        x = self.inception3(self.pool2(self.inception2(x)))
        x = F.adaptive_avg_pool2d(x, (1, 1))
        return self.fc(self.dropout(torch.flatten(x, 1)))


class LeNet5(nn.Module):
    """LeNet-5 (LeCun et al. 1998): 5x5 convolutions, Tanh, average-pool subsampling, 32x32x1."""

    def __init__(self, num_classes: int = 10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.pool1 = nn.AvgPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.pool2 = nn.AvgPool2d(2, 2)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, num_classes)
        self.tanh = nn.Tanh()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool1(self.tanh(self.conv1(x)))
        x = self.pool2(self.tanh(self.conv2(x)))
        x = x.view(x.size(0), -1)
        x = self.tanh(self.fc1(x))
        x = self.tanh(self.fc2(x))
        return self.fc3(x)


class PReLUNet(nn.Module):
    """A convolutional classifier with parametric ReLUs (He et al. 2015, "Delving deep into rectifiers"):
    per-channel PReLU after the convolutions, one shared PReLU in the classifier; 28x28x1."""

    def __init__(self, num_classes: int = 10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.PReLU(16), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.PReLU(32), nn.MaxPool2d(2),
            nn.Conv2d(32, 32, 3, padding=1), nn.BatchNorm2d(32), nn.PReLU(32), nn.MaxPool2d(2))
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(32 * 3 * 3, 64), nn.PReLU(), nn.Dropout(0.3),
                                        nn.Linear(64, num_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.features(x))


class ActivationsNet(nn.Module):
    """A classifier with ELU (Clevert et al. 2016), Mish (Misra 2019), Softplus, and a self-normalising
    SELU + AlphaDropout head (Klambauer et al. 2017); 28x28x1."""

    def __init__(self, num_classes: int = 10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ELU(inplace=True), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.Mish(), nn.MaxPool2d(2),
            nn.Conv2d(32, 32, 3, padding=1), nn.Softplus(), nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(32, 64), nn.SELU(), nn.AlphaDropout(0.1),
                                        nn.Linear(64, 64), nn.SELU(), nn.Linear(64, num_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.features(x))


# ---------------------------------------------------------------------------------------------
# Vision: transformers and MLPs
# ---------------------------------------------------------------------------------------------

class ViTBlock(nn.Module):
    def __init__(self, dim: int, heads: int, mlp_ratio: float, drop: float = 0.1):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, dropout=drop, batch_first=True)
        self.norm2 = nn.LayerNorm(dim)
        hidden = int(dim * mlp_ratio)
        self.mlp = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Dropout(drop), nn.Linear(hidden, dim),
                                 nn.Dropout(drop))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.norm1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.norm2(x))


class ViT(nn.Module):
    """Vision Transformer (Dosovitskiy et al. 2021): conv patch embedding, class token, learned position
    embedding, pre-norm blocks with nn.MultiheadAttention; 32x32x3, patch 4."""

    def __init__(self, image_size: int = 32, patch: int = 4, dim: int = 64, depth: int = 4, heads: int = 4,
                 mlp_ratio: float = 2.0, num_classes: int = 10):
        super().__init__()
        n = (image_size // patch) ** 2
        self.patch_embed = nn.Conv2d(3, dim, kernel_size=patch, stride=patch)
        self.cls_token = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
        self.pos_embed = nn.Parameter(torch.randn(1, n + 1, dim) * 0.02)
        self.pos_drop = nn.Dropout(0.1)
        self.blocks = nn.Sequential(*[ViTBlock(dim, heads, mlp_ratio) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.patch_embed(x).flatten(2).transpose(1, 2)  # B, N, C
        cls = self.cls_token.expand(x.shape[0], -1, -1)
        x = self.pos_drop(torch.cat((cls, x), dim=1) + self.pos_embed)
        x = self.norm(self.blocks(x))
        return self.head(x[:, 0])


class MixerBlock(nn.Module):
    def __init__(self, tokens: int, dim: int, token_dim: int, channel_dim: int):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.token_mlp = nn.Sequential(nn.Linear(tokens, token_dim), nn.GELU(), nn.Linear(token_dim, tokens))
        self.norm2 = nn.LayerNorm(dim)
        self.channel_mlp = nn.Sequential(nn.Linear(dim, channel_dim), nn.GELU(), nn.Linear(channel_dim, dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.token_mlp(self.norm1(x).transpose(1, 2)).transpose(1, 2)
        return x + self.channel_mlp(self.norm2(x))


class MLPMixer(nn.Module):
    """MLP-Mixer (Tolstikhin et al. 2021): token-mixing and channel-mixing MLPs; 32x32x3, patch 4."""

    def __init__(self, image_size: int = 32, patch: int = 4, dim: int = 64, depth: int = 4, token_dim: int = 32,
                 channel_dim: int = 128, num_classes: int = 10):
        super().__init__()
        tokens = (image_size // patch) ** 2
        self.stem = nn.Conv2d(3, dim, patch, patch)
        self.blocks = nn.Sequential(*[MixerBlock(tokens, dim, token_dim, channel_dim) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stem(x).flatten(2).transpose(1, 2)
        x = self.norm(self.blocks(x))
        return self.head(x.mean(dim=1))


# ---------------------------------------------------------------------------------------------
# Vision: dense prediction
# ---------------------------------------------------------------------------------------------

class DoubleConv(nn.Sequential):
    def __init__(self, inp: int, oup: int):
        super().__init__(nn.Conv2d(inp, oup, 3, padding=1, bias=False), nn.BatchNorm2d(oup), nn.ReLU(inplace=True),
                         nn.Conv2d(oup, oup, 3, padding=1, bias=False), nn.BatchNorm2d(oup), nn.ReLU(inplace=True))


class UNet(nn.Module):
    """U-Net (Ronneberger et al. 2015): encoder/decoder with skip concatenations; upsampling by
    ConvTranspose2d and by nearest-neighbour F.interpolate; 48x48x3 -> 2-class mask."""

    def __init__(self, widths: tuple[int, ...] = (6, 12, 24, 48), num_classes: int = 2):
        super().__init__()
        a, b, c, d = widths
        self.inc = DoubleConv(3, a)
        self.down1 = nn.Sequential(nn.MaxPool2d(2), DoubleConv(a, b))
        self.down2 = nn.Sequential(nn.MaxPool2d(2), DoubleConv(b, c))
        self.down3 = nn.Sequential(nn.MaxPool2d(2), DoubleConv(c, d))
        self.up1 = nn.ConvTranspose2d(d, c, kernel_size=2, stride=2)
        self.conv1 = DoubleConv(2 * c, c)
        self.reduce2 = nn.Conv2d(c, b, 1)
        self.conv2 = DoubleConv(2 * b, b)
        self.up3 = nn.ConvTranspose2d(b, a, kernel_size=2, stride=2)
        self.conv3 = DoubleConv(2 * a, a)
        self.outc = nn.Conv2d(a, num_classes, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x1 = self.inc(x)
        x2 = self.down1(x1)
        x3 = self.down2(x2)
        x4 = self.down3(x3)
        x = self.conv1(torch.cat([x3, self.up1(x4)], dim=1))
        x = self.reduce2(F.interpolate(x, scale_factor=2, mode="nearest"))
        x = self.conv2(torch.cat([x2, x], dim=1))
        x = self.conv3(torch.cat([x1, self.up3(x)], dim=1))
        return self.outc(x)


class LRASPP(nn.Module):
    """Lite R-ASPP segmentation head (Howard et al. 2019) on a small MobileNetV3 backbone; bilinear
    upsampling; 64x64x3 -> 2-class mask."""

    def __init__(self, num_classes: int = 2, inter: int = 32):
        super().__init__()
        B = MobileNetV3Block
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1, bias=False), nn.BatchNorm2d(8), nn.Hardswish())
        self.low = nn.Sequential(B(8, 3, 8, 8, True, False, 2), B(8, 3, 36, 16, False, False, 2),
                                 B(16, 3, 48, 16, False, False, 1))                     # /8, 16 channels
        self.high = nn.Sequential(B(16, 5, 48, 24, True, True, 2), B(24, 5, 96, 24, True, True, 1),
                                  B(24, 5, 96, 48, True, True, 1))                      # /16, 48 channels
        self.cbr = nn.Sequential(nn.Conv2d(48, inter, 1, bias=False), nn.BatchNorm2d(inter), nn.ReLU(inplace=True))
        self.scale = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(48, inter, 1, bias=False), nn.Sigmoid())
        self.low_classifier = nn.Conv2d(16, num_classes, 1)
        self.high_classifier = nn.Conv2d(inter, num_classes, 1)

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        low = self.low(self.stem(image))
        high = self.high(low)
        x = self.cbr(high) * self.scale(high)
        x = F.interpolate(x, size=low.shape[-2:], mode="bilinear", align_corners=False)
        out = self.low_classifier(low) + self.high_classifier(x)
        return F.interpolate(out, size=image.shape[-2:], mode="bilinear", align_corners=False)


class FOMO(nn.Module):
    """FOMO (Edge Impulse 2022): MobileNetV2-0.35 cut at 1/8 resolution, a 1x1 head and a per-cell
    softmax over classes + background; 96x96x3 -> 12x12 heat map."""

    def __init__(self, num_classes: int = 3):
        super().__init__()
        setting = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2)]
        backbone = MobileNetV2(0.35, 32, num_classes, setting)
        self.backbone = backbone.features[:-1]
        self.head = nn.Sequential(nn.Conv2d(16, 32, 1), nn.ReLU(inplace=True), nn.Conv2d(32, num_classes + 1, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.head(self.backbone(x)), dim=1)


class YOLOTiny(nn.Module):
    """YOLOv3-tiny (Redmon & Farhadi 2018): conv/LeakyReLU/max-pool backbone, stride-1 max pool with
    ZeroPad2d, two detection scales joined by upsample + route concatenation; 96x96x3."""

    def __init__(self, num_classes: int = 2, anchors: int = 3, widths: tuple[int, ...] = (8, 16, 24, 32, 48, 96)):
        super().__init__()

        def conv(inp: int, oup: int, k: int = 3) -> nn.Sequential:
            return nn.Sequential(nn.Conv2d(inp, oup, k, 1, k // 2, bias=False), nn.BatchNorm2d(oup),
                                 nn.LeakyReLU(0.1, inplace=True))

        w = widths
        self.na, self.no = anchors, num_classes + 5
        self.stage1 = nn.Sequential(conv(3, w[0]), nn.MaxPool2d(2, 2), conv(w[0], w[1]), nn.MaxPool2d(2, 2),
                                    conv(w[1], w[2]), nn.MaxPool2d(2, 2), conv(w[2], w[3]), nn.MaxPool2d(2, 2),
                                    conv(w[3], w[4]))                                       # /16 route
        self.stage2 = nn.Sequential(nn.MaxPool2d(2, 2), conv(w[4], w[5]), nn.ZeroPad2d((0, 1, 0, 1)),
                                    nn.MaxPool2d(2, 1), conv(w[5], w[5]), conv(w[5], w[4], 1))  # /32
        self.head_large = nn.Sequential(conv(w[4], w[5]), nn.Conv2d(w[5], anchors * self.no, 1))
        self.lateral = conv(w[4], w[3], 1)
        self.upsample = nn.Upsample(scale_factor=2, mode="nearest")
        self.head_small = nn.Sequential(conv(w[3] + w[4], w[4]), nn.Conv2d(w[4], anchors * self.no, 1))

    def _shape(self, p: torch.Tensor) -> torch.Tensor:
        bs, _, ny, nx = p.shape
        return p.view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        route = self.stage1(x)
        x = self.stage2(route)
        p_large = self.head_large(x)
        x = torch.cat([self.upsample(self.lateral(x)), route], 1)
        p_small = self.head_small(x)
        return self._shape(p_large), self._shape(p_small)


class ConvAutoencoder(nn.Module):
    """A convolutional autoencoder (strided convolutions down, ConvTranspose2d up, sigmoid out); 32x32x1."""

    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU(True),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU(True),
            nn.Conv2d(32, 32, 3, stride=2, padding=1), nn.ReLU(True))
        self.bottleneck = nn.Sequential(nn.Flatten(), nn.Linear(32 * 4 * 4, 32), nn.ReLU(True), nn.Linear(32, 32 * 4 * 4),
                                        nn.ReLU(True), nn.Unflatten(1, (32, 4, 4)))
        self.decoder = nn.Sequential(
            nn.ConvTranspose2d(32, 32, 3, stride=2, padding=1, output_padding=1), nn.BatchNorm2d(32), nn.ReLU(True),
            nn.ConvTranspose2d(32, 16, 3, stride=2, padding=1, output_padding=1), nn.BatchNorm2d(16), nn.ReLU(True),
            nn.ConvTranspose2d(16, 1, 3, stride=2, padding=1, output_padding=1), nn.Sigmoid())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.decoder(self.bottleneck(self.encoder(x)))


# ---------------------------------------------------------------------------------------------
# Audio
# ---------------------------------------------------------------------------------------------

class DSCNN(nn.Module):
    """DS-CNN of MLPerf Tiny keyword spotting (Zhang et al. 2017, "Hello Edge"): 10x4 stride-2 conv,
    four depthwise-separable blocks, dropout; 49x10 MFCC -> 12 classes."""

    def __init__(self, channels: int = 64, num_classes: int = 12):
        super().__init__()
        layers: list[nn.Module] = [nn.Conv2d(1, channels, (10, 4), stride=(2, 2), padding=(5, 1)),
                                   nn.BatchNorm2d(channels), nn.ReLU(inplace=True), nn.Dropout(0.2)]
        for _ in range(4):
            layers += [nn.Conv2d(channels, channels, 3, padding=1, groups=channels), nn.BatchNorm2d(channels),
                       nn.ReLU(inplace=True), nn.Conv2d(channels, channels, 1), nn.BatchNorm2d(channels),
                       nn.ReLU(inplace=True)]
        layers += [nn.Dropout(0.4), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(channels, num_classes)]
        self.model = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.model(x)


class Wav2Letter(nn.Module):
    """Wav2Letter (Collobert et al. 2016; torchaudio's layout): a 1-D convolution stack over MFCC frames,
    per-frame log-softmax over characters; channels and depth scaled down; 13 MFCC x 100 frames."""

    def __init__(self, num_features: int = 13, num_classes: int = 29, width: int = 48, wide: int = 128, depth: int = 5):
        super().__init__()
        layers: list[nn.Module] = [nn.Conv1d(num_features, width, 11, stride=2, padding=5),
                                   nn.ReLU(inplace=True)]
        for _ in range(depth):
            layers += [nn.Conv1d(width, width, 7, padding=3), nn.ReLU(inplace=True)]
        layers += [nn.Conv1d(width, wide, 16, padding=7), nn.ReLU(inplace=True),
                   nn.Conv1d(wide, wide, 1), nn.ReLU(inplace=True),
                   nn.Conv1d(wide, num_classes, 1), nn.ReLU(inplace=True)]
        self.acoustic_model = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.log_softmax(self.acoustic_model(x), dim=1)


class MatchboxNet(nn.Module):
    """MatchboxNet 3x1x64 (Majumdar & Ginsburg 2020): 1-D time-channel separable convolutions with
    residual 1x1 + BN, ReLU and dropout; 64 MFCC x 128 frames -> 12 classes."""

    class SeparableConv(nn.Sequential):
        def __init__(self, inp: int, oup: int, kernel: int, stride: int = 1, dilation: int = 1):
            pad = dilation * (kernel - 1) // 2
            super().__init__(nn.Conv1d(inp, inp, kernel, stride, pad, dilation=dilation, groups=inp, bias=False),
                             nn.Conv1d(inp, oup, 1, bias=False), nn.BatchNorm1d(oup))

    class Block(nn.Module):
        def __init__(self, inp: int, oup: int, kernel: int, dropout: float = 0.1):
            super().__init__()
            self.conv = MatchboxNet.SeparableConv(inp, oup, kernel)
            self.res = nn.Sequential(nn.Conv1d(inp, oup, 1, bias=False), nn.BatchNorm1d(oup))
            self.out = nn.Sequential(nn.ReLU(inplace=True), nn.Dropout(dropout))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.out(self.conv(x) + self.res(x))

    def __init__(self, features: int = 64, channels: int = 64, num_classes: int = 12):
        super().__init__()
        S = self.SeparableConv
        self.prologue = nn.Sequential(S(features, 128, 11, stride=2), nn.ReLU(inplace=True), nn.Dropout(0.1))
        self.blocks = nn.Sequential(self.Block(128, channels, 13), self.Block(channels, channels, 15),
                                    self.Block(channels, channels, 17))
        self.epilogue = nn.Sequential(S(channels, 128, 29, dilation=2), nn.ReLU(inplace=True), nn.Dropout(0.1),
                                      nn.Conv1d(128, 128, 1, bias=False), nn.BatchNorm1d(128), nn.ReLU(inplace=True))
        self.decoder = nn.Conv1d(128, num_classes, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.decoder(self.epilogue(self.blocks(self.prologue(x))))
        return F.adaptive_avg_pool1d(x, 1).squeeze(-1)


class VADNet(nn.Module):
    """Frame-level voice activity detection: reflect-padded Conv1d front end and an LSTM (after Eyben et
    al. 2013, "Real-life voice activity detection with LSTM recurrent neural networks"); 32 mel x 64
    frames -> per-frame speech probability."""

    def __init__(self, mels: int = 32, channels: int = 32, hidden: int = 32):
        super().__init__()
        self.conv1 = nn.Conv1d(mels, channels, 5)
        self.bn1 = nn.BatchNorm1d(channels)
        self.conv2 = nn.Conv1d(channels, channels, 3)
        self.bn2 = nn.BatchNorm1d(channels)
        self.lstm = nn.LSTM(channels, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.bn1(self.conv1(F.pad(x, (2, 2), mode="reflect"))))
        x = F.relu(self.bn2(self.conv2(F.pad(x, (1, 1), mode="reflect"))))
        out, _ = self.lstm(x.transpose(1, 2))
        return torch.sigmoid(self.fc(out)).squeeze(-1)


class CRNN(nn.Module):
    """Convolutional recurrent KWS network (Arik et al. 2017): a strided Conv2d over the spectrogram, a
    bidirectional GRU over time, fully-connected head; 40 mel x 64 frames."""

    def __init__(self, mels: int = 40, channels: int = 32, hidden: int = 32, num_classes: int = 12):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(1, channels, (20, 5), stride=(8, 2)), nn.BatchNorm2d(channels),
                                  nn.ReLU(inplace=True))
        freq = (mels - 20) // 8 + 1
        self.gru = nn.GRU(channels * freq, hidden, batch_first=True, bidirectional=True)
        self.fc = nn.Sequential(nn.Linear(2 * hidden, 64), nn.ReLU(inplace=True), nn.Dropout(0.2), nn.Linear(64, num_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.conv(x)                                    # B, C, F, T
        b, c, f, t = x.shape
        x = x.permute(0, 3, 1, 2).reshape(b, t, c * f)      # B, T, C*F
        out, _ = self.gru(x)
        return self.fc(out[:, -1, :])


class GRUKWS(nn.Module):
    """GRU keyword spotter (Zhang et al. 2017, "Hello Edge"): one GRU layer on 49x10 MFCC frames."""

    def __init__(self, features: int = 10, hidden: int = 64, num_classes: int = 12):
        super().__init__()
        self.gru = nn.GRU(features, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out, _ = self.gru(x)
        return self.fc(out[:, -1, :])


class LSTMKWS(nn.Module):
    """LSTM keyword spotter (Zhang et al. 2017, "Hello Edge"): two stacked LSTM layers on 49x10 MFCC."""

    def __init__(self, features: int = 10, hidden: int = 64, num_classes: int = 12):
        super().__init__()
        self.lstm = nn.LSTM(features, hidden, num_layers=2, batch_first=True, dropout=0.1)
        self.dropout = nn.Dropout(0.2)
        self.fc = nn.Linear(hidden, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _, (h_n, _) = self.lstm(x)
        return self.fc(self.dropout(h_n[-1]))


class KWT(nn.Module):
    """Keyword Transformer (Berg et al. 2021): each MFCC frame a token, class token, position embedding,
    post-norm nn.TransformerEncoder with GELU; KWT-1's single head, shallower; 49x10 MFCC."""

    def __init__(self, frames: int = 49, features: int = 10, dim: int = 64, depth: int = 4, heads: int = 1,
                 mlp_dim: int = 128, num_classes: int = 12):
        super().__init__()
        self.to_patch_embedding = nn.Linear(features, dim)
        self.cls_token = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
        self.pos_embedding = nn.Parameter(torch.randn(1, frames + 1, dim) * 0.02)
        layer = nn.TransformerEncoderLayer(dim, heads, mlp_dim, dropout=0.1, activation="gelu", batch_first=True)
        self.transformer = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
        self.mlp_head = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, num_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.to_patch_embedding(x)
        x = torch.cat([self.cls_token.expand(x.size(0), -1, -1), x], dim=1) + self.pos_embedding
        x = self.transformer(x)
        return self.mlp_head(x[:, 0])


# ---------------------------------------------------------------------------------------------
# Sequence (IMU, ECG, generic tokens)
# ---------------------------------------------------------------------------------------------

class IMUCNN(nn.Module):
    """1-D CNN for human activity recognition on accelerometer + gyroscope windows (Ronao & Cho 2016):
    input batch norm, Conv1d + BN + ReLU + max pool, dense head; 6 channels x 128 samples."""

    def __init__(self, channels: int = 6, num_classes: int = 6):
        super().__init__()
        self.input_norm = nn.BatchNorm1d(channels)
        self.features = nn.Sequential(
            nn.Conv1d(channels, 16, 5, padding=2), nn.BatchNorm1d(16), nn.ReLU(inplace=True), nn.MaxPool1d(2),
            nn.Conv1d(16, 32, 5, padding=2), nn.BatchNorm1d(32), nn.ReLU(inplace=True), nn.MaxPool1d(2),
            nn.Conv1d(32, 64, 3, padding=1), nn.BatchNorm1d(64), nn.ReLU(inplace=True), nn.MaxPool1d(2))
        self.classifier = nn.Sequential(nn.Linear(64 * 16, 64), nn.ReLU(inplace=True), nn.Dropout(0.5),
                                        nn.Linear(64, num_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.features(self.input_norm(x))
        return self.classifier(torch.flatten(x, 1))


class Chomp1d(nn.Module):
    def __init__(self, chomp_size: int):
        super().__init__()
        self.chomp_size = chomp_size

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x[:, :, :-self.chomp_size].contiguous()


class TemporalBlock(nn.Module):
    def __init__(self, n_inputs: int, n_outputs: int, kernel_size: int, dilation: int, dropout: float = 0.2):
        super().__init__()
        padding = (kernel_size - 1) * dilation
        wn = nn.utils.parametrizations.weight_norm
        self.conv1 = wn(nn.Conv1d(n_inputs, n_outputs, kernel_size, padding=padding, dilation=dilation))
        self.conv2 = wn(nn.Conv1d(n_outputs, n_outputs, kernel_size, padding=padding, dilation=dilation))
        self.net = nn.Sequential(self.conv1, Chomp1d(padding), nn.ReLU(), nn.Dropout(dropout),
                                 self.conv2, Chomp1d(padding), nn.ReLU(), nn.Dropout(dropout))
        self.downsample = nn.Conv1d(n_inputs, n_outputs, 1) if n_inputs != n_outputs else None
        self.relu = nn.ReLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.net(x)
        res = x if self.downsample is None else self.downsample(x)
        return self.relu(out + res)


class TCN(nn.Module):
    """Temporal convolutional network (Bai, Kolter & Koltun 2018, reference layout): weight-normalised
    dilated causal Conv1d (padding + chomp), residual blocks; 16 channels x 128 steps."""

    def __init__(self, inputs: int = 16, channels: tuple[int, ...] = (32, 32, 32, 32), kernel_size: int = 3,
                 num_classes: int = 10):
        super().__init__()
        layers, inp = [], inputs
        for i, c in enumerate(channels):
            layers.append(TemporalBlock(inp, c, kernel_size, dilation=2 ** i))
            inp = c
        self.network = nn.Sequential(*layers)
        self.linear = nn.Linear(inp, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.network(x)
        return self.linear(y[:, :, -1])


class GestureNet(nn.Module):
    """IMU gesture recogniser in the DeepConvLSTM manner (Ordóñez & Roggen 2016) with a GRU: causal
    (left F.pad) Conv1d front end, GRU over time; 6 channels x 100 samples -> 8 gestures."""

    def __init__(self, channels: int = 6, hidden: int = 32, num_classes: int = 8):
        super().__init__()
        self.conv1 = nn.Conv1d(channels, 16, 5)
        self.bn1 = nn.BatchNorm1d(16)
        self.conv2 = nn.Conv1d(16, 32, 3)
        self.bn2 = nn.BatchNorm1d(32)
        self.pool = nn.MaxPool1d(2)
        self.gru = nn.GRU(32, hidden, batch_first=True)
        self.dropout = nn.Dropout(0.3)
        self.fc = nn.Linear(hidden, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(F.relu(self.bn1(self.conv1(F.pad(x, (4, 0))))))
        x = self.pool(F.relu(self.bn2(self.conv2(F.pad(x, (2, 0))))))
        out, _ = self.gru(x.permute(0, 2, 1))
        return self.fc(self.dropout(out[:, -1]))


class ECGResNet(nn.Module):
    """Pre-activation 1-D ResNet for ECG rhythm classification (Hannun et al. 2019, Nature Medicine):
    kernel 16 (even: padding="same" pads asymmetrically), max-pool shortcuts, zero-padded channels,
    per-step softmax; 1 lead x 512 samples, shallower and narrower."""

    class Block(nn.Module):
        def __init__(self, inp: int, oup: int, stride: int, kernel: int = 16, dropout: float = 0.2):
            super().__init__()
            self.bn1 = nn.BatchNorm1d(inp)
            self.conv1 = nn.Conv1d(inp, oup, kernel, stride, padding="same" if stride == 1 else (kernel - 2) // 2)
            self.bn2 = nn.BatchNorm1d(oup)
            self.dropout = nn.Dropout(dropout)
            self.conv2 = nn.Conv1d(oup, oup, kernel, padding="same")
            self.pool = nn.MaxPool1d(stride) if stride > 1 else nn.Identity()
            self.extra_channels = oup - inp

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            shortcut = self.pool(x)
            if self.extra_channels:
                shortcut = F.pad(shortcut, (0, 0, 0, self.extra_channels))
            out = self.conv1(F.relu(self.bn1(x)))
            out = self.conv2(self.dropout(F.relu(self.bn2(out))))
            return out + shortcut

    def __init__(self, widths: tuple[int, ...] = (8, 8, 16, 16, 32, 32), num_classes: int = 4, kernel: int = 16):
        super().__init__()
        self.conv = nn.Conv1d(1, widths[0], kernel, padding="same")
        self.bn = nn.BatchNorm1d(widths[0])
        blocks, inp = [], widths[0]
        for i, w in enumerate(widths):
            blocks.append(self.Block(inp, w, 2 if i % 2 == 0 else 1, kernel))
            inp = w
        self.blocks = nn.Sequential(*blocks)
        self.bn_out = nn.BatchNorm1d(inp)
        self.fc = nn.Linear(inp, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.blocks(F.relu(self.bn(self.conv(x))))
        x = F.relu(self.bn_out(x)).transpose(1, 2)      # B, T, C: one label per output step
        return F.softmax(self.fc(x), dim=-1)


class SelfAttention(nn.Module):
    """Multi-head scaled dot-product attention with explicit q, k, v projections (Vaswani et al. 2017)."""

    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, c = x.shape
        d = c // self.heads
        q = self.q(x).view(b, t, self.heads, d).transpose(1, 2)
        k = self.k(x).view(b, t, self.heads, d).transpose(1, 2)
        v = self.v(x).view(b, t, self.heads, d).transpose(1, 2)
        attn = (q @ k.transpose(-2, -1)) / math.sqrt(d)
        attn = attn.softmax(dim=-1)
        out = (attn @ v).transpose(1, 2).contiguous().view(b, t, c)
        return self.proj(out)


class AttentionNet(nn.Module):
    """Two post-norm transformer encoder blocks written out by hand (Vaswani et al. 2017) on
    [batch, tokens, features] = [1, 16, 32], mean-pooled into a classifier."""

    def __init__(self, features: int = 32, dim: int = 48, heads: int = 4, depth: int = 2, num_classes: int = 5):
        super().__init__()
        self.embed = nn.Linear(features, dim)
        self.attn = nn.ModuleList(SelfAttention(dim, heads) for _ in range(depth))
        self.norm1 = nn.ModuleList(nn.LayerNorm(dim) for _ in range(depth))
        self.ffn = nn.ModuleList(nn.Sequential(nn.Linear(dim, 2 * dim), nn.ReLU(), nn.Linear(2 * dim, dim))
                                 for _ in range(depth))
        self.norm2 = nn.ModuleList(nn.LayerNorm(dim) for _ in range(depth))
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.embed(x)
        for attn, n1, ffn, n2 in zip(self.attn, self.norm1, self.ffn, self.norm2):
            x = n1(x + attn(x))
            x = n2(x + ffn(x))
        return self.head(x.mean(dim=1))


# ---------------------------------------------------------------------------------------------
# Tabular
# ---------------------------------------------------------------------------------------------

class DenseAutoencoder(nn.Module):
    """The MLPerf Tiny anomaly-detection autoencoder (Koizumi et al. 2019 / DCASE 2020 baseline):
    640 inputs, four 128-wide Dense + BN + ReLU layers each side of an 8-wide bottleneck."""

    def __init__(self, inputs: int = 640, width: int = 128, bottleneck: int = 8):
        super().__init__()

        def dense(a: int, b: int) -> list[nn.Module]:
            return [nn.Linear(a, b), nn.BatchNorm1d(b), nn.ReLU()]

        self.encoder = nn.Sequential(*dense(inputs, width), *dense(width, width), *dense(width, width),
                                     *dense(width, width), *dense(width, bottleneck))
        self.decoder = nn.Sequential(*dense(bottleneck, width), *dense(width, width), *dense(width, width),
                                     *dense(width, width), nn.Linear(width, inputs))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.decoder(self.encoder(x))


# ---------------------------------------------------------------------------------------------
# Multiple inputs / outputs
# ---------------------------------------------------------------------------------------------

class ImageIMUFusion(nn.Module):
    """Late fusion of a camera frame and an IMU feature vector (as in multimodal activity recognition,
    e.g. Münzner et al. 2017): a small CNN and an MLP, concatenated; 32x32x3 + 12 features."""

    def __init__(self, imu_features: int = 12, num_classes: int = 5):
        super().__init__()
        self.cnn = nn.Sequential(
            nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
            nn.Conv2d(16, 32, 3, 2, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU(inplace=True),
            nn.Conv2d(32, 32, 3, 2, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU(inplace=True))
        self.imu = nn.Sequential(nn.Linear(imu_features, 32), nn.ReLU(inplace=True), nn.Linear(32, 32), nn.ReLU(inplace=True))
        self.head = nn.Sequential(nn.Linear(64, 32), nn.ReLU(inplace=True), nn.Dropout(0.2), nn.Linear(32, num_classes))

    def forward(self, image: torch.Tensor, imu: torch.Tensor) -> torch.Tensor:
        a = self.cnn(image).mean([2, 3])
        b = self.imu(imu)
        return self.head(torch.cat([a, b], dim=1))


class MultiTaskFaceNet(nn.Module):
    """Multi-task face attributes (after Ranjan et al. 2017, "An all-in-one CNN"): shared CNN, a
    classification head (gender) and regression heads (age, 5 landmarks in [0, 1]); 48x48x1."""

    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(inplace=True), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(inplace=True), nn.MaxPool2d(2),
            nn.Conv2d(64, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d(1))
        self.gender = nn.Sequential(nn.Linear(64, 32), nn.ReLU(inplace=True), nn.Linear(32, 2))
        self.age = nn.Sequential(nn.Linear(64, 32), nn.ReLU(inplace=True), nn.Linear(32, 1))
        self.landmarks = nn.Linear(64, 10)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        f = torch.flatten(self.backbone(x), 1)
        return self.gender(f), self.age(f).squeeze(1), torch.sigmoid(self.landmarks(f))


# ---------------------------------------------------------------------------------------------
# The zoo
# ---------------------------------------------------------------------------------------------

def _a(name: str, cls: type[nn.Module], shapes: tuple[tuple[int, ...], ...], source: str, family: str,
       **kwargs) -> Architecture:
    return Architecture(name, partial(_build, cls, shapes, **kwargs), shapes, source, family)


_ZOO = [
    _a("mobilenet_v1_025", MobileNetV1, ((1, 3, 96, 96),), "Howard et al. 2017, MobileNets; MLPerf Tiny VWW", "vision"),
    _a("mobilenet_v2_035", MobileNetV2, ((1, 3, 96, 96),), "Sandler et al. 2018, MobileNetV2", "vision",
       last_channel=384),
    _a("mobilenet_v3_small", MobileNetV3Small, ((1, 3, 96, 96),), "Howard et al. 2019, Searching for MobileNetV3",
       "vision"),
    _a("efficientnet_lite0", EfficientNetLite, ((1, 3, 96, 96),), "Tan & Le 2019, EfficientNet; TF EfficientNet-lite",
       "vision"),
    _a("efficientnet_b0", EfficientNetB0, ((1, 3, 96, 96),), "Tan & Le 2019, EfficientNet (B0 blocks: SiLU, SE)",
       "vision"),
    _a("mcunet", MCUNet, ((1, 3, 96, 96),), "Lin et al. 2020, MCUNet: Tiny Deep Learning on IoT Devices", "vision"),
    _a("mixnet_s", MixNet, ((1, 3, 96, 96),), "Tan & Le 2019, MixConv: Mixed Depthwise Convolutional Kernels",
       "vision"),
    _a("squeezenet_1_1", SqueezeNet11, ((1, 3, 96, 96),), "Iandola et al. 2016, SqueezeNet (v1.1)", "vision"),
    _a("shufflenet_v2", ShuffleNetV2, ((1, 3, 96, 96),), "Ma et al. 2018, ShuffleNet V2", "vision"),
    _a("ghostnet", GhostNet, ((1, 3, 96, 96),), "Han et al. 2020, GhostNet: More Features from Cheap Operations",
       "vision"),
    _a("mobilefacenet", MobileFaceNet, ((1, 3, 64, 64),), "Chen et al. 2018, MobileFaceNets", "vision"),
    _a("resnet18_narrow", ResNet18, ((1, 3, 64, 64),), "He et al. 2016, Deep Residual Learning (ResNet-18)", "vision"),
    _a("resnet8", ResNet8, ((1, 3, 32, 32),), "Banbury et al. 2021, MLPerf Tiny image classification ResNet-8",
       "vision"),
    _a("se_resnet", SEResNet, ((1, 3, 32, 32),), "Hu et al. 2018, Squeeze-and-Excitation Networks", "vision"),
    _a("densenet_bc", DenseNet, ((1, 3, 32, 32),), "Huang et al. 2017, Densely Connected Convolutional Networks",
       "vision"),
    _a("convnext_atto", ConvNeXt, ((1, 3, 64, 64),), "Liu et al. 2022, A ConvNet for the 2020s", "vision"),
    _a("inception", InceptionNet, ((1, 3, 32, 32),), "Szegedy et al. 2015/2016, GoogLeNet / Inception-v3", "vision"),
    _a("lenet5", LeNet5, ((1, 1, 32, 32),), "LeCun et al. 1998, Gradient-based learning (LeNet-5)", "vision"),
    _a("prelu_classifier", PReLUNet, ((1, 1, 28, 28),), "He et al. 2015, Delving Deep into Rectifiers (PReLU)",
       "vision"),
    _a("activations_elu_selu_mish", ActivationsNet, ((1, 1, 28, 28),),
       "Clevert et al. 2016 (ELU), Klambauer et al. 2017 (SELU), Misra 2019 (Mish)", "vision"),
    _a("vit_tiny", ViT, ((1, 3, 32, 32),), "Dosovitskiy et al. 2021, An Image is Worth 16x16 Words (ViT)", "vision"),
    _a("mlp_mixer", MLPMixer, ((1, 3, 32, 32),), "Tolstikhin et al. 2021, MLP-Mixer", "vision"),
    _a("unet_small", UNet, ((1, 3, 48, 48),), "Ronneberger et al. 2015, U-Net", "vision"),
    _a("lraspp", LRASPP, ((1, 3, 64, 64),), "Howard et al. 2019, MobileNetV3 Lite R-ASPP segmentation head", "vision"),
    _a("fomo", FOMO, ((1, 3, 96, 96),), "Edge Impulse 2022, FOMO (MobileNetV2-0.35 cut at 1/8)", "vision"),
    _a("yolo_tiny", YOLOTiny, ((1, 3, 96, 96),), "Redmon & Farhadi 2018, YOLOv3 (tiny variant)", "vision"),
    _a("conv_autoencoder", ConvAutoencoder, ((1, 1, 32, 32),), "Masci et al. 2011, convolutional autoencoders",
       "vision"),
    _a("ds_cnn", DSCNN, ((1, 1, 49, 10),), "Zhang et al. 2017, Hello Edge; MLPerf Tiny KWS DS-CNN", "audio"),
    _a("wav2letter", Wav2Letter, ((1, 13, 100),), "Collobert et al. 2016, Wav2Letter", "audio"),
    _a("matchboxnet", MatchboxNet, ((1, 64, 128),), "Majumdar & Ginsburg 2020, MatchboxNet", "audio"),
    _a("vad_lstm", VADNet, ((1, 32, 64),), "Eyben et al. 2013, LSTM voice activity detection", "audio"),
    _a("crnn_kws", CRNN, ((1, 1, 40, 64),), "Arik et al. 2017, Convolutional Recurrent Neural Networks for KWS",
       "audio"),
    _a("gru_kws", GRUKWS, ((1, 49, 10),), "Zhang et al. 2017, Hello Edge (GRU)", "audio"),
    _a("lstm_kws", LSTMKWS, ((1, 49, 10),), "Zhang et al. 2017, Hello Edge (LSTM)", "audio"),
    _a("kwt", KWT, ((1, 49, 10),), "Berg et al. 2021, Keyword Transformer", "audio"),
    _a("imu_cnn_1d", IMUCNN, ((1, 6, 128),), "Ronao & Cho 2016, HAR with deep convolutional networks", "sequence"),
    _a("tcn", TCN, ((1, 16, 128),), "Bai, Kolter & Koltun 2018, generic temporal convolutional networks",
       "sequence"),
    _a("gesture_conv_gru", GestureNet, ((1, 6, 100),), "Ordóñez & Roggen 2016, DeepConvLSTM (GRU variant)",
       "sequence"),
    _a("ecg_resnet1d", ECGResNet, ((1, 1, 512),), "Hannun et al. 2019, cardiologist-level arrhythmia detection",
       "sequence"),
    _a("attention_qkv", AttentionNet, ((1, 16, 32),), "Vaswani et al. 2017, Attention Is All You Need", "sequence"),
    _a("dense_autoencoder", DenseAutoencoder, ((1, 640),), "MLPerf Tiny anomaly detection (DCASE 2020 baseline)",
       "tabular"),
    _a("image_imu_fusion", ImageIMUFusion, ((1, 3, 32, 32), (1, 12)), "Münzner et al. 2017, CNN-based sensor fusion",
       "multi-io"),
    _a("multitask_face", MultiTaskFaceNet, ((1, 1, 48, 48),), "Ranjan et al. 2017, all-in-one multi-task face CNN",
       "multi-io"),
]

ARCHITECTURES: dict[str, Architecture] = {a.name: a for a in _ZOO}


def macs(model: nn.Module, inputs: tuple[torch.Tensor, ...]) -> int:
    """Multiply-accumulates of one forward pass (torch's FLOP counter halved: matmuls and convolutions)."""
    from torch.utils.flop_counter import FlopCounterMode

    def lstm_flops(input_shape, w_ih, w_hh, *args, **kwargs) -> int:  # CPU LSTMs run as one mkldnn op
        return 2 * math.prod(input_shape[:-1]) * (math.prod(w_ih) + math.prod(w_hh))

    counter = FlopCounterMode(display=False, custom_mapping={torch.ops.aten.mkldnn_rnn_layer: lstm_flops})
    with torch.no_grad(), counter:
        model(*inputs)
    return counter.get_total_flops() // 2


def main() -> None:
    print(f"{'name':28} {'family':9} {'params':>9} {'MACs':>12}  input")
    for a in ARCHITECTURES.values():
        model = a.build()
        params = sum(p.numel() for p in model.parameters())
        shapes = " + ".join("x".join(map(str, s[1:])) for s in a.input_shapes)
        print(f"{a.name:28} {a.family:9} {params:>9,} {macs(model, a.inputs()):>12,}  {shapes}")


if __name__ == "__main__":
    main()
