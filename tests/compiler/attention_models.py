"""Attention written the ways users write it in PyTorch, each a small module with its input shape:
what tests/compiler/test_attention.py lowers, and `python -m tests.compiler.attention_models`
audits (does it lower, all int8, the scale folded, agreement with PT2E).

No layer norm (another op's work): the blocks are projections, attention and an output linear.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import torch
import torch.nn.functional as F
from torch import nn


class _Projected(nn.Module):
    """q, k, v projections of x [B, T, D] into `heads` heads [B, H, T, Dh], and the output
    projection of [B, T, D]; subclasses say how the attention itself is written."""

    def __init__(self, dim: int = 32, heads: int = 1):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.q, self.k, self.v, self.out = (nn.Linear(dim, dim) for _ in range(4))

    def split(self, x: torch.Tensor) -> torch.Tensor:
        b, t, _ = x.shape
        return x.view(b, t, self.heads, self.head_dim).transpose(1, 2)

    def merge(self, x: torch.Tensor) -> torch.Tensor:
        b, h, t, d = x.shape
        return x.transpose(1, 2).reshape(b, t, h * d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = (self.split(p(x)) for p in (self.q, self.k, self.v))
        return self.out(self.merge(self.attend(q, k, v)))

    def attend(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError


class MatmulMulScale(_Projected):
    def attend(self, q, k, v):
        scores = q @ k.transpose(-1, -2) * (self.head_dim ** -0.5)
        return scores.softmax(-1) @ v


class MatmulDivSqrt(_Projected):
    def attend(self, q, k, v):
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.head_dim)
        return torch.matmul(F.softmax(scores, dim=-1), v)


class Einsum(_Projected):
    def attend(self, q, k, v):
        scores = torch.einsum("bhqd,bhkd->bhqk", q, k) * self.head_dim ** -0.5
        return torch.einsum("bhqk,bhkd->bhqd", scores.softmax(dim=-1), v)


class ScaleOnQuery(_Projected):
    """The scale applied to q before the product (as nn.MultiheadAttention's math path does)."""

    def attend(self, q, k, v):
        q = q * self.head_dim ** -0.5
        return torch.softmax(q @ k.transpose(-2, -1), dim=-1) @ v


class Bmm(nn.Module):
    """Single head on [B, T, D] with torch.bmm, no head split."""

    def __init__(self, dim: int = 32):
        super().__init__()
        self.dim = dim
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(self.dim)
        return self.out(torch.bmm(scores.softmax(-1), v))


class Sdpa(_Projected):
    def __init__(self, dim: int = 32, heads: int = 1, **kwargs):
        super().__init__(dim, heads)
        self.kwargs = kwargs

    def attend(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, **self.kwargs)


class SdpaMask(_Projected):
    """scaled_dot_product_attention with a constant attn_mask (a buffer): boolean (True = attend)
    or additive float (0 or -inf)."""

    def __init__(self, dim: int, heads: int, tokens: int, boolean: bool):
        super().__init__(dim, heads)
        keep = torch.rand(tokens, tokens, generator=torch.Generator().manual_seed(3)) > 0.3
        keep |= torch.eye(tokens, dtype=torch.bool)  # every query sees at least itself
        self.register_buffer("mask", keep if boolean else torch.zeros(tokens, tokens).masked_fill(~keep, -math.inf))

    def attend(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=self.mask)


class CausalTriuForward(_Projected):
    """The causal mask built in forward: triu of ones above the diagonal, masked_fill(-inf)."""

    def attend(self, q, k, v):
        t = q.shape[-2]
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        mask = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)
        return scores.masked_fill(mask, float("-inf")).softmax(-1) @ v


class CausalTrilBuffer(_Projected):
    """The causal mask as a registered buffer (tril of ones), masked_fill where it is 0."""

    def __init__(self, dim: int, heads: int, tokens: int):
        super().__init__(dim, heads)
        self.register_buffer("bias", torch.tril(torch.ones(tokens, tokens)).view(1, 1, tokens, tokens))

    def attend(self, q, k, v):
        t = q.shape[-2]
        scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        scores = scores.masked_fill(self.bias[:, :, :t, :t] == 0, float("-inf"))
        return F.softmax(scores, dim=-1) @ v


class CausalWhere(_Projected):
    """torch.where(mask, scores, -inf) with a boolean tril buffer."""

    def __init__(self, dim: int, heads: int, tokens: int):
        super().__init__(dim, heads)
        self.register_buffer("keep", torch.tril(torch.ones(tokens, tokens, dtype=torch.bool)))

    def attend(self, q, k, v):
        scores = q @ k.transpose(-2, -1) * self.head_dim ** -0.5
        scores = torch.where(self.keep, scores, torch.tensor(float("-inf")))
        return scores.softmax(-1) @ v


class Permuted(_Projected):
    """view + permute into [B, H, T, Dh] and permute + reshape back."""

    def split(self, x):
        b, t, _ = x.shape
        return x.reshape(b, t, self.heads, self.head_dim).permute(0, 2, 1, 3)

    def merge(self, x):
        b, h, t, d = x.shape
        return x.permute(0, 2, 1, 3).contiguous().view(b, t, h * d)

    def attend(self, q, k, v):
        return (q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)).softmax(-1) @ v


class KeysPermuted(Permuted):
    """k permuted straight to [B, H, Dh, T] (no transpose of its last two dims)."""

    def forward(self, x):
        b, t, _ = x.shape
        q = self.split(self.q(x))
        k = self.k(x).reshape(b, t, self.heads, self.head_dim).permute(0, 2, 3, 1)
        v = self.split(self.v(x))
        return self.out(self.merge((q @ k * self.head_dim ** -0.5).softmax(-1) @ v))


class MHA(nn.Module):
    def __init__(self, dim: int, heads: int, batch_first: bool, need_weights: bool, causal: int = 0):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=batch_first)
        self.batch_first, self.need_weights = batch_first, need_weights
        self.mask = torch.triu(torch.full((causal, causal), -math.inf), 1) if causal else None

    def forward(self, x):
        x = x if self.batch_first else x.transpose(0, 1)
        y, weights = self.attn(x, x, x, need_weights=self.need_weights, attn_mask=self.mask)
        y = y if self.batch_first else y.transpose(0, 1)
        return (y, weights) if self.need_weights else y


@dataclass(frozen=True)
class Form:
    name: str
    build: Callable[[], nn.Module]
    shape: tuple[int, ...]  # the input [B, T, D]
    masked: bool = False  # the softmax carries a mask
    max_lsb: int = 1  # the worst output LSB against PT2E that the test accepts


FORMS: tuple[Form, ...] = (
    Form("matmul_mul_scale", lambda: MatmulMulScale(32, 1), (1, 16, 32)),
    Form("matmul_div_sqrt_heads", lambda: MatmulDivSqrt(32, 4), (1, 16, 32)),
    Form("einsum_heads", lambda: Einsum(32, 4), (1, 16, 32)),
    Form("scale_on_query", lambda: ScaleOnQuery(32, 2), (1, 12, 32)),
    Form("bmm_single_head", lambda: Bmm(24), (2, 13, 24)),
    Form("permute_heads_odd", lambda: Permuted(30, 3), (1, 17, 30)),
    Form("keys_permuted", lambda: KeysPermuted(32, 4), (1, 16, 32)),
    Form("sdpa", lambda: Sdpa(32, 4), (1, 16, 32)),
    Form("sdpa_scale", lambda: Sdpa(32, 2, scale=0.3), (1, 16, 32)),
    Form("sdpa_causal", lambda: Sdpa(32, 4, is_causal=True), (1, 15, 32), masked=True),
    Form("sdpa_bool_mask", lambda: SdpaMask(32, 2, 16, True), (1, 16, 32), masked=True),
    Form("sdpa_float_mask", lambda: SdpaMask(32, 2, 16, False), (1, 16, 32), masked=True),
    Form("causal_triu_forward", lambda: CausalTriuForward(32, 4), (1, 16, 32), masked=True),
    Form("causal_tril_buffer", lambda: CausalTrilBuffer(28, 2, 20), (1, 11, 28), masked=True),
    Form("causal_where", lambda: CausalWhere(32, 2, 16), (1, 16, 32), masked=True),
    Form("mha_batch_first", lambda: MHA(32, 4, True, False), (1, 16, 32)),
    Form("mha_seq_first", lambda: MHA(32, 4, False, False), (1, 16, 32)),
    Form("mha_need_weights", lambda: MHA(32, 4, True, True), (1, 16, 32)),
    Form("mha_causal_mask", lambda: MHA(32, 2, True, False, causal=16), (1, 16, 32), masked=True),
)


def _architecture(form: Form):
    from tests.zoo.architectures import Architecture

    return Architecture(form.name, lambda: build(form), (form.shape,), "attention as users write it", "sequence")


def inputs(form: Form, seed: int) -> torch.Tensor:
    return torch.randn(*form.shape, generator=torch.Generator().manual_seed(seed))


def build(form: Form) -> nn.Module:
    torch.manual_seed(0)
    return form.build().eval()


# The forms as zoo architectures, for tests/zoo/harness.py (lower_all imports this table by name).
ATTENTION_ARCHITECTURES = {form.name: _architecture(form) for form in FORMS}


def audit(form: Form) -> dict:
    """Lowers `form` and says what came out: the op kinds, float ops, ops between the two
    batch_matmuls, and the outputs' distance from PT2E in LSBs."""
    import numpy as np

    import compiler

    model = build(form)
    example = (inputs(form, 0),)
    try:
        program = compiler.lower(model, example, [(inputs(form, s),) for s in range(1, 5)], target="cortex-m55",
                                 report_fallbacks=False)
    except Exception as error:  # noqa: BLE001  (the audit reports whatever happens)
        return {"name": form.name, "error": f"{type(error).__name__}: {str(error)[:300]}"}
    graph = program.graph
    x = inputs(form, 9)
    ours = program.run_reference(x.numpy())
    theirs = program.quantized_model(x)
    theirs = theirs if isinstance(theirs, (tuple, list)) else (theirs,)
    floats = model(x)
    floats = floats if isinstance(floats, (tuple, list)) else (floats,)
    worst, within, float_worst = 0.0, [], 0.0
    for k, (a, b, f) in enumerate(zip(ours, theirs, floats)):
        scale = float(graph.producer(graph.outputs[k]).attrs["scale"])
        lsb = np.abs(np.rint((a - b.detach().numpy()) / scale))
        worst, within = max(worst, float(lsb.max())), within + list((lsb <= 1).reshape(-1))
        float_worst = max(float_worst, float(np.abs(f.detach().numpy() - b.detach().numpy()).max() / scale))
    return {"name": form.name, "kinds": [op.kind for op in graph.ops],
            "float": [op.kind for op in graph.ops if "float_reason" in op.attrs],
            "max_lsb": worst, "within_1": float(np.mean(within)), "float_lsb": float_worst}


if __name__ == "__main__":
    import sys
    from collections import Counter

    wanted = sys.argv[1:]
    for form in FORMS:
        if wanted and form.name not in wanted:
            continue
        found = audit(form)
        if "error" in found:
            print(f"{form.name:24s} ERROR {found['error']}")
            continue
        counts = Counter(found["kinds"])
        print(f"{form.name:24s} max {found['max_lsb']:.0f} LSB, {100 * found['within_1']:.1f} % <= 1 "
              f"(PT2E vs float {found['float_lsb']:.1f} LSB); "
              f"float {found['float'] or '-'}; {dict(counts)}")
