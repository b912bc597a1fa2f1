"""MLPerf Tiny anomaly-detection autoencoder (ToyADMOS / DCASE 2020 task 2 baseline).

640 inputs (5 frames × 128 log-mel bins) → 4 × [Dense 128, BN, ReLU] → [Dense 8, BN, ReLU]
→ 4 × [Dense 128, BN, ReLU] → Dense 640. Anomaly score = mean squared reconstruction error.
On the device the program takes raw audio windows (3072 int16 samples): the log-mel front end
op computes the 640 features, and the program returns the residual features − reconstruction
(`AnomalyResidual`), whose mean square the firmware takes as the score.
"""
from __future__ import annotations

from pathlib import Path

import torch
from torch import nn

INPUT_DIM = 640
HIDDEN = 128
BOTTLENECK = 8
CHECKPOINT = Path(__file__).with_name("checkpoint.pt")


def _block(inputs: int, outputs: int) -> list[nn.Module]:
    return [nn.Linear(inputs, outputs), nn.BatchNorm1d(outputs), nn.ReLU()]


class AnomalyAutoencoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        widths = [INPUT_DIM] + [HIDDEN] * 4 + [BOTTLENECK] + [HIDDEN] * 4
        layers: list[nn.Module] = []
        for a, b in zip(widths, widths[1:]):
            layers += _block(a, b)
        layers.append(nn.Linear(HIDDEN, INPUT_DIM))
        self.net = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


def anomaly_score(x: torch.Tensor, reconstruction: torch.Tensor) -> torch.Tensor:
    """Mean squared error per example."""
    return ((x - reconstruction) ** 2).mean(dim=-1)


class AnomalyResidual(nn.Module):
    """What the device runs: features − reconstruction (its mean square is the anomaly score).

    The program's input is raw audio (the log-mel front end computes the features), so the
    firmware never sees the features: the model hands it the residual instead, and the score is
    `mean(residual²)`, the same number as `anomaly_score(x, autoencoder(x))`.
    """

    def __init__(self, autoencoder: AnomalyAutoencoder) -> None:
        super().__init__()
        self.autoencoder = autoencoder

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x - self.autoencoder(x)


def residual_score(residual: "np.ndarray | torch.Tensor"):
    """Mean square of a residual per example (the device's `anomaly_score`)."""
    return (residual ** 2).mean(-1)


def load_trained(path: Path = CHECKPOINT) -> tuple[AnomalyResidual, dict]:
    """The committed checkpoint as the device's model (the residual) in eval mode, and its
    metadata (threshold, validation AUC)."""
    if not path.exists():
        raise FileNotFoundError(f"no checkpoint at {path}: train one with `./scons app=anomaly train=1`")
    state = torch.load(path, map_location="cpu", weights_only=True)
    model = AnomalyAutoencoder()
    model.load_state_dict(state["model"])
    return AnomalyResidual(model).eval(), state["meta"]


# What the build needs from an app's model (see site_scons/ember_build/app_build.py).

def front_end():
    """The log-mel front end the program starts with: it takes int16 audio windows [1, 3072]."""
    from compiler.audio_features import LOG_MEL_ANOMALY

    return LOG_MEL_ANOMALY


def example_inputs() -> tuple[torch.Tensor]:
    """One feature vector: the model's input shape [1, 640] (the front end's output)."""
    return (torch.zeros(1, INPUT_DIM),)


def calibration_data(clips: int = 20, seed: int = 10) -> list[torch.Tensor]:
    """Normal clips' features (the device's log-mel), one window a batch as the device sees them."""
    from apps.anomaly import data

    features = torch.from_numpy(data.dataset(clips, anomalous=False, seed=seed))
    return [features[i:i + 1] for i in range(0, len(features), 2)]


def test_vectors(count: int, seed: int = 20) -> "np.ndarray":
    """[count, 1, 3072] int16 audio windows, alternately from normal and anomalous clips."""
    import numpy as np

    from apps.anomaly import data

    clips = max(1, (count + 1) // 2)
    normal = data.clip_windows(clips, anomalous=False, seed=seed)
    anomalous = data.clip_windows(clips, anomalous=True, seed=seed + 1)
    picks = [(normal if i % 2 == 0 else anomalous)[(i * 7) % len(normal)] for i in range(count)]
    return np.stack(picks)[:, None, :].astype(np.int16)


def accuracy_figures(model: AnomalyResidual, program, count: int = 200, root=None, seed: int = 30) -> dict:
    """AUC of the anomaly score (normal vs anomalous held-out windows, half each) for the float
    model and for the program's int8 reference on the raw audio windows, front end included
    (ember_build/figures.py calls this). `root`: a DCASE-layout machine folder's test split."""
    import numpy as np

    from apps.anomaly import data
    from apps.anomaly.train import auc

    rng = np.random.default_rng(seed)
    if root is None:
        normal = data.clip_windows(max(1, count // 50), anomalous=False, seed=seed)
        anomalous = data.clip_windows(max(1, count // 50), anomalous=True, seed=seed + 1)
    else:
        def test_windows(bad: bool) -> "np.ndarray":
            paths = [p for p, a in data.machine_files(root, "test") if a == bad]
            return np.concatenate([data.windows(data.read_wav(p)) for p in paths])
        normal, anomalous = test_windows(False), test_windows(True)
    picks = [rng.choice(len(x), min(len(x), count // 2), replace=False) for x in (normal, anomalous)]
    normal, anomalous = normal[picks[0]], anomalous[picks[1]]

    def float_scores(audio: "np.ndarray") -> "np.ndarray":
        with torch.no_grad():
            return residual_score(model(torch.from_numpy(data.features(audio)))).numpy()

    def int8_scores(audio: "np.ndarray") -> "np.ndarray":
        return residual_score(np.concatenate([program.run_reference(w[None, :])[0] for w in audio]))

    return {"metric": "AUC", "float": auc(float_scores(normal), float_scores(anomalous)),
            "int8_reference": auc(int8_scores(normal), int8_scores(anomalous)),
            "samples": len(normal) + len(anomalous)}
