"""Every zoo architecture builds in eval mode with seeded weights and non-default batch-norm statistics,
fits the microcontroller budget, runs forward and depends on its inputs. (test_zoo.py lowers each:
torch.export is part of that.)"""
from __future__ import annotations

import pytest
import torch
from torch import nn

from tests.zoo.architectures import ARCHITECTURES, macs

pytestmark = pytest.mark.slow  # the zoo, with test_zoo.py (tests/tiers.py)
MAX_PARAMS, MAX_MACS, MAX_INPUT = 300_000, 20_000_000, 96 * 96 * 3
FAMILIES = {"vision", "audio", "sequence", "tabular", "multi-io"}


def _outputs(y: torch.Tensor | tuple[torch.Tensor, ...]) -> tuple[torch.Tensor, ...]:
    return y if isinstance(y, tuple) else (y,)


def test_the_zoo_is_large_enough():
    assert len(ARCHITECTURES) >= 34
    assert all(name == a.name for name, a in ARCHITECTURES.items())


@pytest.mark.parametrize("name", list(ARCHITECTURES))
def test_architecture(name):
    a = ARCHITECTURES[name]
    assert a.family in FAMILIES and a.source
    assert all(s[0] == 1 and 1 <= len(s) and torch.Size(s).numel() <= MAX_INPUT for s in a.input_shapes)
    model = a.build()
    assert not any(m.training for m in model.modules())
    assert all(torch.equal(p, q) for p, q in zip(model.state_dict().values(), a.build().state_dict().values()))
    assert sum(p.numel() for p in model.parameters()) <= MAX_PARAMS
    for m in model.modules():  # statistics far from the defaults, so that folding them matters
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            assert m.running_mean.abs().max() > 1e-2 and (m.running_var - 1).abs().max() > 1e-1, m
    x = a.inputs()
    assert macs(model, x) <= MAX_MACS

    with torch.no_grad():
        expected, other = _outputs(model(*x)), _outputs(model(*a.inputs(seed=1)))
    assert all(torch.isfinite(y).all() for y in expected)
    # random weights and batch-norm statistics must not wash the input out
    assert any(not torch.allclose(y, z, rtol=1e-2, atol=1e-3) for y, z in zip(expected, other))

