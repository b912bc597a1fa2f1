"""How far Ember's reference is from PyTorch's quantized (PT2E) model, in output LSBs, so every
graph-level test measures the numerics contract ("within 1 LSB") the same way."""
from __future__ import annotations

import numpy as np
import torch

import compiler


def nhwc(x: torch.Tensor | np.ndarray) -> np.ndarray:
    """A 4-D NCHW batch as Ember's NHWC; other ranks unchanged."""
    x = torch.as_tensor(x)
    return (x.permute(0, 2, 3, 1) if x.dim() == 4 else x).contiguous().numpy()


def lsb_differences(program: compiler.Program, x: torch.Tensor) -> np.ndarray:
    """(reference − PyTorch) / output scale, rounded, for every sample of the batch `x` (PyTorch's
    layout), each run through the reference alone; 4-D maps compared in NHWC."""
    ours = np.stack([program.run_reference(nhwc(xi[None]))[0][0] for xi in x])
    theirs = nhwc(program.quantized_model(x).detach())
    scale = float(program.graph.producer(program.graph.outputs[0]).attrs["scale"])
    return np.rint((ours - theirs) / scale)
