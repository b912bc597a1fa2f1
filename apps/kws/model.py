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

from pathlib import Path

import torch
from torch import nn

from apps.common.checkpoint import read_checkpoint
from apps.common.padding import same_conv2d

INPUT_SHAPE = (1, 1, 49, 10)  # N, C, frames, MFCC coefficients
CLASSES = 12
FILTERS = 64
BLOCKS = 4
CHECKPOINT = Path(__file__).with_name("checkpoint.pt")


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

    def logits(self, x: torch.Tensor) -> torch.Tensor:
        """The scores before the softmax (training takes its cross entropy from these)."""
        return self.classifier(torch.flatten(self.pool(self.features(x)), 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.logits(x), dim=1)


def ds_cnn() -> DsCnn:
    """The reference DS-CNN (untrained: initialise or load weights before use)."""
    return DsCnn()


def example_inputs() -> tuple[torch.Tensor]:
    return (torch.zeros(INPUT_SHAPE),)


def load_trained(path: Path = CHECKPOINT) -> tuple[DsCnn, dict]:
    """The committed checkpoint: model in eval mode, and its metadata (accuracies, data, epochs)."""
    checkpoint = read_checkpoint(path, "kws")  # CheckpointError: missing or corrupt, named
    return checkpoint.load_into(DsCnn()).eval(), checkpoint.meta


# What the build needs from an app's model (see site_scons/ember_build/app_build.py).

def front_end():
    """The MFCC front end the program starts with: it takes raw int16 audio [1, 16000]."""
    from compiler.audio_features import MFCC_KWS

    return MFCC_KWS


def calibration_data(clips: int = 48, seed: int = 11) -> list[torch.Tensor]:
    """MFCCs of synthetic training-voice clips (all 12 classes), one clip a batch as the device
    sees them; computed by the device's own front end, cached under build/data/kws/."""
    from apps.kws import data

    features = data.split_features("train", clips, seed).features
    return [torch.from_numpy(features[i:i + 1, None]) for i in range(len(features))]


def test_vectors(count: int, seed: int = 20) -> "np.ndarray":
    """[count, 1, 16000] int16 clips of held-out test voices (the 12 classes in turn, shuffled)."""
    from apps.kws import data

    return data.synthetic(count, seed, "test").audio[:, None, :]


def accuracy_figures(model: DsCnn, program, count: int = 200, root=None) -> dict:
    """Top-1 accuracy on `count` clips (a fixed random subset) of the test split (held-out voices, or the
    Speech Commands test list with `root`): the float model on the reference MFCCs, and the int8
    program's reference (`program.run_reference` on the raw audio: front end included)."""
    import numpy as np

    from apps.kws import data
    from apps.kws.train import TEST_CLIPS, TEST_SEED

    clips = data.dataset("test", TEST_CLIPS, TEST_SEED, root)
    pick = np.sort(np.random.default_rng(0).permutation(len(clips.labels))[:count])  # a fixed random subset
    audio, labels = clips.audio[pick], clips.labels[pick]
    with torch.no_grad():
        features = torch.from_numpy(data.mfcc_features(audio)[:, None])
        float_predicted = model.logits(features).argmax(1).numpy()
    int8_predicted = np.array([int(np.argmax(program.run_reference(clip[None, :])[0])) for clip in audio])
    return {"metric": "accuracy", "float": float((float_predicted == labels).mean()),
            "int8_reference": float((int8_predicted == labels).mean()), "samples": int(len(labels))}
