"""MLPerf Tiny anomaly-detection autoencoder (ToyADMOS / DCASE 2020 task 2 baseline).

640 inputs (5 frames × 128 log-mel bins) → 4 × [Dense 128, BN, ReLU] → [Dense 8, BN, ReLU]
→ 4 × [Dense 128, BN, ReLU] → Dense 640. Anomaly score = mean squared reconstruction error.
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


def load_trained(path: Path = CHECKPOINT) -> tuple[AnomalyAutoencoder, dict]:
    """The committed checkpoint: model in eval mode, and its metadata (threshold, feature stats)."""
    if not path.exists():
        raise FileNotFoundError(f"no checkpoint at {path}: train one with `./scons app=anomaly train=1`")
    state = torch.load(path, map_location="cpu", weights_only=True)
    model = AnomalyAutoencoder()
    model.load_state_dict(state["model"])
    return model.eval(), state["meta"]


# What the build needs from an app's model (see site_scons/ember_build/app_build.py).

def example_inputs() -> tuple[torch.Tensor]:
    """One feature vector: the program's input shape [1, 640]."""
    return (torch.zeros(1, INPUT_DIM),)


def calibration_data(clips: int = 20, seed: int = 10) -> list[torch.Tensor]:
    """Normal clips' features, one window a batch as the device sees them."""
    from apps.anomaly import data

    features = torch.from_numpy(data.dataset(clips, anomalous=False, seed=seed))
    return [features[i:i + 1] for i in range(0, len(features), 2)]


def test_vectors(count: int, seed: int = 20) -> "np.ndarray":
    """[count, 1, 640] float32 windows, alternately from normal and anomalous clips."""
    import numpy as np

    from apps.anomaly import data

    normal = data.dataset(count, anomalous=False, seed=seed)
    anomalous = data.dataset(count, anomalous=True, seed=seed + 1)
    picks = [(normal if i % 2 == 0 else anomalous)[(i * 7) % len(normal)] for i in range(count)]
    return np.stack(picks)[:, None, :].astype(np.float32)


def accuracy_figures(model: AnomalyAutoencoder, program, count: int = 200, seed: int = 30) -> dict:
    """AUC of the anomaly score (normal vs anomalous held-out windows, half each) for the float
    model and for the program's int8 reference (ember_build/figures.py calls this)."""
    import numpy as np

    from apps.anomaly import data
    from apps.anomaly.train import auc

    rng = np.random.default_rng(seed)
    normal = data.dataset(max(1, count // 50), anomalous=False, seed=seed)
    anomalous = data.dataset(max(1, count // 50), anomalous=True, seed=seed + 1)
    picks = [rng.choice(len(x), count // 2, replace=False) for x in (normal, anomalous)]
    normal, anomalous = normal[picks[0]], anomalous[picks[1]]

    def float_scores(x: "np.ndarray") -> "np.ndarray":
        with torch.no_grad():
            batch = torch.from_numpy(x)
            return anomaly_score(batch, model(batch)).numpy()

    def int8_scores(x: "np.ndarray") -> "np.ndarray":
        out = np.concatenate([program.run_reference(row[None, :])[0] for row in x]).astype(np.float32)
        return ((x - out) ** 2).mean(axis=-1)

    return {"metric": "AUC", "float": auc(float_scores(normal), float_scores(anomalous)),
            "int8_reference": auc(int8_scores(normal), int8_scores(anomalous)), "samples": 2 * (count // 2)}
