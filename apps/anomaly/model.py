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

from apps.common.checkpoint import read_checkpoint

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
    """Mean square of a residual per example (in float64 for numpy input: for AUCs; the
    device's exact float32 number is `device_score`)."""
    return (residual ** 2).mean(-1)


def device_score(residual: "np.ndarray") -> "np.ndarray":
    """The firmware's `anomaly_score` to the bit: per example, the float32 squares of the residual
    summed in index order in float32 (the firmware builds with -ffp-contract=off: no fused
    multiply-add), then divided by the count in float32. float32 [..., 640] → float32 [...]."""
    import numpy as np

    residual = np.asarray(residual, np.float32)
    squares = residual * residual
    total = np.add.accumulate(squares, axis=-1, dtype=np.float32)[..., -1]  # sequential, not pairwise
    return (total / np.float32(residual.shape[-1])).astype(np.float32)


def milli(value: "np.float32") -> str:
    """A non-negative float32 as the firmware prints it: `(uint32_t)(value * 1000.0f + 0.5f)` per
    mille, saturating at 2^32 - 1, written <int>.<3 digits> (no float formatting on the device)."""
    import numpy as np

    m = min(int(np.float32(np.float32(value) * np.float32(1000.0)) + np.float32(0.5)), 2**32 - 1)
    return f"{m // 1000}.{m % 1000:03d}"


def verdict_line(index: int, score: "np.float32", threshold: "np.float32") -> str:
    """The firmware's verdict line: anomalous when the float32 score is strictly greater than the
    float32 threshold (both mean squared reconstruction errors of the log-mel features, in dB²)."""
    import numpy as np

    anomalous = int(np.float32(score) > np.float32(threshold))
    return f"EM verdict vector={index} score={milli(score)} threshold={milli(threshold)} anomalous={anomalous}"


def load_trained(path: Path = CHECKPOINT) -> tuple[AnomalyResidual, dict]:
    """The committed checkpoint as the device's model (the residual) in eval mode, and its
    metadata (threshold, validation AUC)."""
    checkpoint = read_checkpoint(path, "anomaly")  # CheckpointError: missing or corrupt, named
    return AnomalyResidual(checkpoint.load_into(AnomalyAutoencoder())).eval(), checkpoint.meta


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


def threshold() -> "np.float32":
    """The anomaly threshold the firmware and the reference use: the checkpoint's
    `meta["threshold"]` (chosen on validation windows, apps/anomaly/train.py choose_threshold), as
    float32, in the score's units (mean squared reconstruction error of the log-mel features, dB²)."""
    import numpy as np

    return np.float32(load_trained()[1]["threshold"])


def firmware_header(program) -> str:
    """em_app_generated.h: the anomaly threshold as an exact float32 constant."""
    value = threshold()
    return ("/* Generated by apps/anomaly/model.py from the checkpoint's meta[\"threshold\"]. Do not edit. */\n"
            "#ifndef ANOMALY_GENERATED_H\n#define ANOMALY_GENERATED_H\n"
            "/* Anomaly threshold: a window is anomalous when its score, the mean squared reconstruction\n"
            " * error of its log-mel features (dB^2, float32), is strictly greater. Chosen on validation\n"
            f" * windows by apps/anomaly/train.py (Youden's J). {float(value)!r} */\n"
            f"#define ANOMALY_THRESHOLD ({float(value).hex()}f)\n#endif\n")


def expected_lines(program, outputs: list) -> list[str]:
    """The verdict line the device must print for each test vector: the reference's residual
    scored as the firmware scores it (`device_score`), against `threshold()`."""
    import numpy as np

    limit = threshold()
    return [verdict_line(i, device_score(np.asarray(out).reshape(-1)), limit) for i, out in enumerate(outputs)]


def test_vectors(count: int, seed: int = 20) -> "np.ndarray":
    """[count, 1, 3072] int16 audio windows, alternately from normal clips and from anomalous clips
    of the clearest severity (shifted harmonic, clicks, bearing noise in turn), so the embedded
    vectors exercise both verdicts."""
    import numpy as np

    from apps.anomaly import data

    per_clip = len(data.windows(np.zeros(int(data.SAMPLE_RATE * data.CLIP_SECONDS), np.int16)))
    clear = len(data.FAULTS) * (len(data.SEVERITIES) - 1)  # the first clip of the last severity
    normal = data.clip_windows(max(1, (count + 1) // 2), anomalous=False, seed=seed)
    anomalous = data.clip_windows(clear + len(data.FAULTS), anomalous=True, seed=seed + 1)
    picks = [normal[(i * 7) % len(normal)] if i % 2 == 0 else
             anomalous[(clear + (i // 2) % len(data.FAULTS)) * per_clip + (i * 7) % per_clip] for i in range(count)]
    return np.stack(picks)[:, None, :].astype(np.int16)


def accuracy_figures(model: AnomalyResidual, program, count: int = 200, root=None, seed: int = 30) -> dict:
    """AUC of the anomaly score (normal vs anomalous held-out windows, half each) for the float
    model and for the program's int8 reference on the raw audio windows, front end included
    (ember_build/figures.py calls this); and at the threshold (`threshold()`, the one the firmware
    uses) the true-positive rate (recall), false-positive rate and precision of both, the int8 one
    with the device's own score (`device_score`). Synthetic: the anomalous clips hold every fault
    at every severity equally often; the float AUC per severity too. `root`: a DCASE-layout
    machine folder's test split instead."""
    import numpy as np

    from apps.anomaly import data
    from apps.anomaly.train import auc, rates

    rng = np.random.default_rng(seed)
    severity = None
    if root is None:
        per_clip = len(data.windows(np.zeros(int(data.SAMPLE_RATE * data.CLIP_SECONDS), np.int16)))
        kinds = len(data.FAULTS) * len(data.SEVERITIES)
        clips = kinds * max(1, -(-count // (2 * per_clip * kinds)))  # every kind equally often
        normal = data.clip_windows(clips, anomalous=False, seed=seed)
        anomalous = data.clip_windows(clips, anomalous=True, seed=seed + 1)
        severity = np.repeat([s for _, s in data.clip_kinds(clips, anomalous=True)], per_clip)
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
        return device_score(np.concatenate([program.run_reference(w[None, :])[0] for w in audio]))

    limit = threshold()
    float_normal, float_anomalous = float_scores(normal), float_scores(anomalous)
    int8_normal, int8_anomalous = int8_scores(normal), int8_scores(anomalous)
    at_float, at_int8 = rates(float_normal, float_anomalous, limit), rates(int8_normal, int8_anomalous, limit)
    result = {"metric": "AUC", "float": auc(float_normal, float_anomalous),
              "int8_reference": auc(int8_normal, int8_anomalous), "samples": len(normal) + len(anomalous),
              "threshold": float(limit), "float_at_threshold": at_float, "int8_at_threshold": at_int8}
    rows = [("threshold (mean squared reconstruction error, dB²; chosen on validation windows, train.py)",
             f"{float(limit):.3f}")]
    for name, at in (("float", at_float), ("int8 reference", at_int8)):
        rows.append((f"{name} at the threshold: TPR (recall) / FPR / precision",
                     f"{at['tpr']:.3f} / {at['fpr']:.3f} / {at['precision']:.3f}"))
    if severity is not None:
        severity = severity[picks[1]]
        result["float_auc_by_severity"] = {int(s): auc(float_normal, float_anomalous[severity == s])
                                           for s in data.SEVERITIES}
        rows.append(("float AUC by fault severity (1 subtle, 2, 3 clear)",
                     " / ".join(f"{v:.3f}" for v in result["float_auc_by_severity"].values())))
    result["rows"] = [list(r) for r in rows]
    return result
