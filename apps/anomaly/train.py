"""Trains the anomaly autoencoder on normal machine sounds (seconds on a CPU, synthetic).

    python -m apps.anomaly.train [--data MACHINE_DIR] [--epochs N] [--out PATH] [--restart]

Features are the device's own log-mel features (compiler.audio_features.log_mel, bit-exact with
the front end op), cached under build/data/anomaly/. `--data`: one machine's folder in the DCASE
2020 task 2 layout (ToyADMOS / MIMII; apps/anomaly/data.py): training on train/normal_*,
validation on test/normal_* against test/anomaly_*. Writes the checkpoint with its metadata: the
anomaly threshold (`choose_threshold`: Youden's J on the validation windows, i.e. the threshold
that maximises true-positive rate − false-positive rate; in the score's units, the mean squared
reconstruction error of the log-mel features in dB²), the true- and false-positive rates there and
the validation AUC against anomalous windows. An interrupted run resumes from its last finished
epoch (apps/common/training.py).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch

from apps.anomaly import data
from apps.anomaly.model import CHECKPOINT, AnomalyAutoencoder, anomaly_score
from apps.common.training import TrainRun, finish, fit, save_checkpoint, seed_everything, training_arguments

TRAIN_CLIPS, VALIDATION_CLIPS = 200, 45  # 45 anomalous clips: each fault at each severity 5 times
THRESHOLD_RULES = ("youden", "false_alarm")
TRAIN_SEED, VALIDATION_SEED, ANOMALY_SEED = 1, 2, 3
EPOCHS = 30


def auc(normal: np.ndarray, anomalous: np.ndarray) -> float:
    """Probability that an anomalous score exceeds a normal one (ties count half)."""
    greater = (anomalous[:, None] > normal[None, :]).mean()
    ties = (anomalous[:, None] == normal[None, :]).mean()
    return float(greater + 0.5 * ties)


def choose_threshold(normal: np.ndarray, anomalous: np.ndarray, rule: str = "youden",
                     false_alarm: float = 0.05) -> float:
    """The anomaly threshold from validation scores: a window is anomalous when its score is
    strictly greater than it.

    rule "youden": maximise Youden's J = TPR − FPR over every cut between two neighbouring
    distinct scores (ties: the higher threshold, fewer false alarms). rule "false_alarm": the
    lowest cut that flags at most `false_alarm` of the normal windows (needs no anomalies).
    The threshold is the midpoint between the two scores around the cut (one unit beyond the
    lowest or highest score for a cut outside them), rounded to float32 (the firmware's type).
    Scores in any unit; the threshold is in the same one.
    """
    normal = np.asarray(normal, np.float64).ravel()
    anomalous = np.asarray(anomalous, np.float64).ravel()
    if rule not in THRESHOLD_RULES:
        raise ValueError(f"threshold rule must be one of {', '.join(THRESHOLD_RULES)}, not {rule!r}")
    if len(normal) == 0 or (rule == "youden" and len(anomalous) == 0):
        raise ValueError(f"rule {rule!r} needs validation scores of normal"
                         f"{' and anomalous' if rule == 'youden' else ''} windows; got "
                         f"{len(normal)} normal, {len(anomalous)} anomalous")
    if not 0.0 <= false_alarm < 1.0:
        raise ValueError(f"false_alarm is a rate in [0, 1), not {false_alarm}")
    values = np.unique(np.concatenate([normal, anomalous]))
    cuts = np.concatenate([values[:1] - 1.0, (values[:-1] + values[1:]) / 2, values[-1:] + 1.0])
    fpr = (normal[None, :] > cuts[:, None]).mean(1)
    if rule == "false_alarm":
        best = int(np.flatnonzero(fpr <= false_alarm)[0])
    else:
        j = (anomalous[None, :] > cuts[:, None]).mean(1) - fpr
        best = int(np.flatnonzero(j == j.max())[-1])
    return float(np.float32(cuts[best]))


def rates(normal: np.ndarray, anomalous: np.ndarray, threshold: float) -> dict:
    """True-positive rate (recall), false-positive rate and precision of `score > threshold`."""
    tp, fp = int((np.asarray(anomalous) > threshold).sum()), int((np.asarray(normal) > threshold).sum())
    return {"tpr": tp / max(1, len(anomalous)), "fpr": fp / max(1, len(normal)),
            "precision": tp / (tp + fp) if tp + fp else 1.0}


def scores(model: AnomalyAutoencoder, x: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        batch = torch.from_numpy(x)
        return anomaly_score(batch, model.eval()(batch)).numpy()


def train(epochs: int, out: Path, batch_size: int = 128, seed: int = 0, max_batches: int | None = None,
          resume: bool = True, root: Path | None = None, train_clips: int = TRAIN_CLIPS,
          validation_clips: int = VALIDATION_CLIPS) -> dict:
    seed_everything(seed)
    if root is None:
        x = torch.from_numpy(data.dataset(train_clips, anomalous=False, seed=TRAIN_SEED))
        validation_normal = data.dataset(validation_clips, anomalous=False, seed=VALIDATION_SEED)
        validation_anomalous = data.dataset(validation_clips, anomalous=True, seed=ANOMALY_SEED)
    else:
        x = torch.from_numpy(data.load_machine(root, "train", anomalous=False))
        validation_normal = data.load_machine(root, "test", anomalous=False)
        validation_anomalous = data.load_machine(root, "test", anomalous=True)
    model = AnomalyAutoencoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    run = TrainRun("anomaly", epochs, {"batch_size": batch_size, "seed": seed, "clips": train_clips,
                                       "data": str(root)}, max_batches)

    def batches(epoch: int) -> list[torch.Tensor]:
        order = torch.randperm(len(x))
        return [x[order[i:i + batch_size]] for i in range(0, len(x), batch_size)]

    fit(run, model, optimizer, lambda m, batch: anomaly_score(batch, m(batch)).mean(), batches, resume=resume)
    normal, anomalous = scores(model, validation_normal), scores(model, validation_anomalous)
    threshold = choose_threshold(normal, anomalous, "youden")
    at = rates(normal, anomalous, threshold)
    meta = {"threshold": threshold, "threshold_rule": "youden (max TPR - FPR on the validation windows)",
            "threshold_units": "mean squared reconstruction error of the log-mel features, dB^2 (float32)",
            "validation_tpr": at["tpr"], "validation_fpr": at["fpr"], "validation_auc": auc(normal, anomalous),
            "epochs": epochs, "features": "compiler.audio_features.log_mel (the device's front end)",
            "dataset": f"DCASE 2020 task 2 layout ({root})" if root is not None else
            f"synthetic machine sounds: {train_clips} normal clips, validation {validation_clips} normal + "
            f"{validation_clips} anomalous"}
    save_checkpoint(out, model, meta)
    finish(run)
    print(f"wrote {out}: threshold {meta['threshold']:.3f} (TPR {at['tpr']:.3f}, FPR {at['fpr']:.3f}), "
          f"validation AUC {meta['validation_auc']:.3f}",
          file=sys.stderr)
    return meta


def main() -> None:
    parser = training_arguments(__doc__, EPOCHS, CHECKPOINT)
    parser.add_argument("--data", type=Path, default=None,
                        help="one machine's folder in the DCASE 2020 task 2 layout (default: synthetic sounds)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    train(args.epochs, args.out, seed=args.seed, max_batches=args.max_batches, resume=not args.restart,
          root=args.data)


if __name__ == "__main__":
    main()
