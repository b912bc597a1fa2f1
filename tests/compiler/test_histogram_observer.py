"""compiler.histogram_observer.FastHistogramObserver finds exactly torchao's ranges."""
from __future__ import annotations

import pytest
import torch
from torchao.quantization.pt2e.observer import HistogramObserver

from compiler.histogram_observer import FastHistogramObserver


def _samples(kind: str, seed: int) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    size = int(torch.randint(1, 5000, (1,), generator=generator))
    draws = {
        "normal": lambda: torch.randn(size, generator=generator),
        "heavy tail": lambda: torch.randn(size, generator=generator) ** 5,
        "relu": lambda: torch.relu(torch.randn(size, generator=generator)) * 6,
        "sigmoid": lambda: torch.sigmoid(torch.randn(size, generator=generator) * 4),
        "outlier": lambda: torch.cat([torch.randn(size, generator=generator) * 0.01, torch.tensor([50.0])]),
        "few values": lambda: torch.randint(-3, 4, (size,), generator=generator).float(),
        "constant": lambda: torch.full((size,), 0.75),
        "one value": lambda: torch.tensor([-2.5]),
    }
    # several batches: the histogram is also rebinned as the range grows
    return [draws[kind]() * (1 + batch) for batch in range(3)]


CASES = [(kind, seed) for kind in ("normal", "heavy tail", "relu", "sigmoid", "outlier", "few values")
         for seed in range(6)] + [("constant", 0), ("one value", 0)]  # these two draw nothing at random


@pytest.mark.parametrize("kind,seed", CASES)
def test_same_range_and_qparams_as_torchao(kind: str, seed: int) -> None:
    theirs, ours = HistogramObserver(eps=2**-12), FastHistogramObserver(eps=2**-12)
    for batch in _samples(kind, seed):
        theirs(batch)
        ours(batch)
    if theirs.min_val.item() != theirs.max_val.item():
        expected = theirs._non_linear_param_search()
        found = ours._non_linear_param_search()
        assert [t.item() for t in found] == [t.item() for t in expected]
    scale, zero_point = ours.calculate_qparams()
    expected_scale, expected_zero_point = theirs.calculate_qparams()
    assert scale.item() == expected_scale.item() and zero_point.item() == expected_zero_point.item()
