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

from apps.common.checkpoint import read_checkpoint
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


def load_trained(path: Path = CHECKPOINT) -> tuple[ResNet8, dict]:
    """The committed checkpoint: model in eval mode, and its metadata (test accuracy, dataset, classes)."""
    checkpoint = read_checkpoint(path, "image_classification")  # CheckpointError: missing or corrupt, named
    meta = checkpoint.meta
    return checkpoint.load_into(ResNet8(classes=len(meta.get("classes", range(CLASSES))))).eval(), meta


# What the build needs from an app's model (see site_scons/ember_build/app_build.py). The images
# come from the checkpoint's dataset: the CIFAR-10 folder it was trained on (meta "data"), else the
# synthetic classes: calibration from the training distribution (its own seed), test vectors and
# accuracy figures from the held-out test split (the seed train.py reports its accuracy on).

CALIBRATION_SEED, TEST_SEED = 3, 2


def _test_split(count: int, root: Path | str | None = None) -> "data.Images":
    from apps.image_classification import data

    root = root if root is not None else load_trained()[1].get("data")
    split = data.dataset("test", count, TEST_SEED, root)
    return data.Images(split.images[:count], split.labels[:count])


def example_inputs() -> tuple[torch.Tensor]:
    return (torch.zeros(INPUT_SHAPE),)


def calibration_data(count: int = 32) -> list[torch.Tensor]:
    """`count` training-distribution images, one a batch, as the model takes them."""
    from apps.image_classification import data

    root = load_trained()[1].get("data")
    images = data.dataset("train", count, CALIBRATION_SEED, root).images
    stride = max(1, len(images) // count)  # spread over CIFAR's 50,000 training images
    return [to_input(images[i:i + 1]) for i in range(0, stride * count, stride)]


def test_vectors(count: int) -> np.ndarray:
    """[count, 1, 32, 32, 3] float32: held-out test images as the model takes them, in the
    program's NHWC layout (the build quantizes them with the program's input quantization)."""
    images = _test_split(count).images
    return to_input(images).permute(0, 2, 3, 1).numpy()[:, None].astype(np.float32)


def program_input(program, x: np.ndarray) -> np.ndarray:
    """Float NHWC images as the program takes them: quantized with its input's quantization when
    it takes int8 (as the build quantizes the test vectors), else unchanged."""
    from compiler import reference

    tensor = program.graph.tensors[program.graph.inputs[0]]
    if tensor.dtype != "int8":
        return x.astype(np.float32)
    inv_scale = np.float32(1.0 / float(tensor.quant.scale[0]))
    return reference.quantize_f32_s8(x, inv_scale, int(tensor.quant.zero_point[0]))


def accuracy_figures(model: ResNet8, program, count: int = 200, root: Path | str | None = None) -> dict:
    """Top-1 accuracy on the first `count` held-out test images (CIFAR-10's test_batch when
    `root` or the checkpoint names a folder) of the float model and of the program's int8
    reference (argmax of `program.run_reference`), plus both confusion matrices
    (rows: true class, columns: predicted)."""
    from apps.image_classification.data import CIFAR10_CLASSES, CLASSES as SYNTHETIC_CLASSES

    split = _test_split(count, root)
    x = to_input(split.images)
    with torch.no_grad():
        float_predictions = model.eval()(x).argmax(1).numpy()
    nhwc = program_input(program, x.permute(0, 2, 3, 1).numpy())
    int8_predictions = np.array([int(np.argmax(program.run_reference(nhwc[i:i + 1])[0])) for i in range(len(nhwc))])
    n = len(split.labels)
    classes = CIFAR10_CLASSES if (root or load_trained()[1].get("data")) else SYNTHETIC_CLASSES

    def confusion(predictions: np.ndarray) -> list[list[int]]:
        matrix = np.zeros((len(classes), len(classes)), dtype=int)
        np.add.at(matrix, (split.labels, predictions), 1)
        return matrix.tolist()

    return {"metric": "accuracy", "float": float((float_predictions == split.labels).mean()),
            "int8_reference": float((int8_predictions == split.labels).mean()), "samples": n,
            "classes": list(classes), "confusion_float": confusion(float_predictions),
            "confusion_int8_reference": confusion(int8_predictions)}
