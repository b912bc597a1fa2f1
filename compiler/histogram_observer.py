"""torchao's HistogramObserver with its min/max search run on Python floats: the same ranges,
bit for bit, a fraction of the time.

The search (`_non_linear_param_search`, after caffe2's NormMinimization) walks the quantile
bounds in steps of 1e-5 and compares the cumulative histogram with each bound; torchao does every
comparison on 0-d tensors, a few microseconds each, and an unrolled LSTM has ~1,800 observers
(lstm_kws: 5.6 s of its 11 s convert_pt2e). Here the cumulative sums are read once into a list
and each bound is rounded to float32 before the comparison, exactly as torch compares a float32
tensor with a Python float; the quantization error of each candidate range is still torchao's
own `_compute_quantization_error`. tests/compiler/test_histogram_observer.py holds the ranges
equal to torchao's on random and degenerate histograms.
"""
from __future__ import annotations

import numpy as np
import torch
from torchao.quantization.pt2e.observer import HistogramObserver


def _float32(value: float) -> float:
    return float(np.float32(value))


class FastHistogramObserver(HistogramObserver):
    def _non_linear_param_search(self) -> tuple[torch.Tensor, torch.Tensor]:
        assert self.histogram.size()[0] == self.bins, "bins mismatch"
        bin_width = (self.max_val - self.min_val) / self.bins
        total = torch.sum(self.histogram).item()
        cumulative = torch.cumsum(self.histogram, dim=0).tolist()  # float32 values, exact as floats

        stepsize = 1e-5
        alpha, beta = 0.0, 1.0
        start_bin, end_bin = 0, self.bins - 1
        norm_min = float("inf")
        while alpha < beta:
            next_alpha, next_beta = alpha + stepsize, beta - stepsize
            low, high = _float32(next_alpha * total), _float32(next_beta * total)
            left, right = start_bin, end_bin
            while left < end_bin and cumulative[left] < low:
                left += 1
            while right > start_bin and cumulative[right] > high:
                right -= 1
            next_start_bin, next_end_bin = start_bin, end_bin
            if (left - start_bin) > (end_bin - right):
                next_start_bin, alpha = left, next_alpha
            else:
                next_end_bin, beta = right, next_beta
            if next_start_bin == start_bin and next_end_bin == end_bin:
                continue
            norm = self._compute_quantization_error(next_start_bin, next_end_bin)
            if norm > norm_min:
                break
            norm_min, start_bin, end_bin = norm, next_start_bin, next_end_bin

        return self.min_val + bin_width * start_bin, self.min_val + bin_width * (end_bin + 1)
