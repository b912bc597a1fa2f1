"""The anomaly app's decision: the threshold chosen on validation scores (apps/anomaly/train.py
choose_threshold), the rates at it, and the device's score and verdict line reproduced in Python
(apps/anomaly/model.py device_score, verdict_line; the firmware's twins in responder.c)."""
from __future__ import annotations

import numpy as np
import pytest

from apps.anomaly import model as anomaly_model
from apps.anomaly.train import auc, choose_threshold, rates
from ember_build.report import parse_verdicts


def test_youden_cuts_between_separable_classes():
    normal, anomalous = np.array([1.0, 2.0, 3.0]), np.array([5.0, 6.0])
    threshold = choose_threshold(normal, anomalous, "youden")
    assert threshold == 4.0  # midpoint of 3 and 5: TPR 1, FPR 0
    assert rates(normal, anomalous, threshold) == {"tpr": 1.0, "fpr": 0.0, "precision": 1.0}


def test_youden_maximises_tpr_minus_fpr_on_overlapping_scores():
    normal = np.array([1.0, 2.0, 3.0, 4.0, 7.0])
    anomalous = np.array([3.5, 5.0, 6.0, 8.0])
    threshold = choose_threshold(normal, anomalous, "youden")
    # cut 3.25: TPR 1, FPR 2/5 (J 0.6), the best; cut 4.5 next: TPR 3/4, FPR 1/5 (J 0.55)
    assert threshold == 3.25
    at = rates(normal, anomalous, threshold)
    assert at["tpr"] == 1.0 and at["fpr"] == pytest.approx(0.4) and at["precision"] == pytest.approx(4 / 6)
    # brute force over every cut agrees
    cuts = np.linspace(0, 9, 901)
    j = [(anomalous > c).mean() - (normal > c).mean() for c in cuts]
    assert (anomalous > threshold).mean() - (normal > threshold).mean() == pytest.approx(max(j))


def test_youden_ties_take_the_higher_threshold():
    # cuts 1.5 and 3.5 both give J = 0.5: the higher one raises fewer false alarms
    assert choose_threshold(np.array([1.0, 3.0]), np.array([2.0, 4.0]), "youden") == 3.5


def test_false_alarm_rule_bounds_the_normal_rate():
    normal = np.arange(100, dtype=np.float64)  # 0 … 99
    threshold = choose_threshold(normal, np.array([]), "false_alarm", false_alarm=0.05)
    assert threshold == 94.5 and (normal > threshold).mean() == 0.05
    # no false alarm at all: above the highest score (by one unit: no neighbour to halve to)
    assert choose_threshold(normal, np.array([]), "false_alarm", false_alarm=0.0) == 100.0


def test_threshold_is_float32_exact():
    rng = np.random.default_rng(0)
    threshold = choose_threshold(rng.normal(8, 2, 300), rng.normal(11, 3, 300))
    assert float(np.float32(threshold)) == threshold


@pytest.mark.parametrize("kwargs,message", [
    ({"rule": "f1"}, "must be one of youden, false_alarm"),
    ({"anomalous": []}, "needs validation scores of normal and anomalous"),
    ({"normal": []}, "needs validation scores of normal"),
    ({"rule": "false_alarm", "false_alarm": 1.0}, r"rate in \[0, 1\)"),
])
def test_bad_threshold_requests_are_named_errors(kwargs, message):
    args = {"normal": [1.0, 2.0], "anomalous": [3.0], **kwargs}
    with pytest.raises(ValueError, match=message):
        choose_threshold(np.array(args.pop("normal")), np.array(args.pop("anomalous")), **args)


def test_auc_counts_ties_half():
    assert auc(np.array([1.0, 2.0]), np.array([2.0, 3.0])) == 0.875


def test_device_score_is_the_sequential_float32_sum():
    residual = np.random.default_rng(1).normal(0, 3, (3, 640)).astype(np.float32)
    scores = anomaly_model.device_score(residual)
    for row, score in zip(residual, scores):
        total = np.float32(0.0)
        for v in row:  # what the firmware's loop does, one float32 rounding per step
            total = np.float32(total + np.float32(v * v))
        assert score.dtype == np.float32 and score == np.float32(total / np.float32(640))


def test_verdict_line_is_strictly_greater_and_per_mille():
    limit = np.float32(8.5)
    assert anomaly_model.verdict_line(2, np.float32(8.5), limit) == \
        "EM verdict vector=2 score=8.500 threshold=8.500 anomalous=0"
    assert anomaly_model.verdict_line(3, np.nextafter(np.float32(8.5), np.float32(9)), limit).endswith("anomalous=1")
    assert anomaly_model.milli(np.float32(12.0456)) == "12.046" and anomaly_model.milli(np.float32(0.0071)) == "0.007"


def test_report_parses_verdict_lines():
    text = ("EM vector 0 instructions=5 score_bits=41000000 output=00\n"
            "EM verdict vector=0 score=8.000 threshold=8.623 anomalous=0\n"
            "EM verdict vector=1 score=18.238 threshold=8.623 anomalous=1\n")
    assert parse_verdicts(text) == [
        {"index": 0, "score": 8.0, "threshold": 8.623, "anomalous": False},
        {"index": 1, "score": 18.238, "threshold": 8.623, "anomalous": True}]


def test_checkpoint_threshold_reaches_the_firmware_header():
    header = anomaly_model.firmware_header(None)
    value = anomaly_model.threshold()
    assert f"#define ANOMALY_THRESHOLD ({float(value).hex()}f)" in header
    meta = anomaly_model.load_trained()[1]
    assert meta["threshold_rule"].startswith("youden") and 0.0 <= meta["validation_fpr"] < meta["validation_tpr"] <= 1.0
