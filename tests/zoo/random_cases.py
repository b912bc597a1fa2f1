"""Random op configurations for the contract "every program the compiler writes, the runtime
loads and runs": seeded random shapes, broadcasts, dims, windows, paddings and functions of the
ops the issue names, each a small model between int8 layers. The same seed gives the same cases;
tests/zoo/test_zoo.py lowers them and runs them on the host and the M55 like the zoo.
"""
from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from tests.zoo.architectures import Architecture
from tests.zoo.op_cases import Case

SEED = 15
COUNT_PER_KIND = 6


def _case(name: str, forward, shapes: tuple, layers=list) -> Architecture:
    return Architecture(name, lambda: Case(forward, layers).eval(), shapes, "random configuration", "random")


def _binary(rng: np.random.Generator, k: int) -> Architecture:
    """Two activations of random broadcastable shapes (either may be broadcast on any dim)."""
    rank = int(rng.integers(1, 5))
    full = [int(rng.integers(1, 7)) for _ in range(rank)]
    a = tuple(d if rng.random() < 0.6 else 1 for d in full)
    b = tuple(d if rng.random() < 0.6 or a[i] == 1 else 1 for i, d in enumerate(full))
    b = b[int(rng.integers(0, rank)):] or (1,)  # fewer leading dims too
    op = [torch.add, torch.sub, torch.mul, torch.minimum, torch.maximum][k % 5]
    return _case(f"binary_{k}_{op.__name__}_{'x'.join(map(str, a))}_{'x'.join(map(str, b))}",
                 lambda m, x, y, op=op: op(x * 1.5, y - 0.25), (a, b))


def _reduction(rng: np.random.Generator, k: int) -> Architecture:
    rank = int(rng.integers(2, 5))
    shape = tuple(int(rng.integers(1, 8)) for _ in range(rank))
    dims = sorted(int(d) for d in rng.choice(rank, size=int(rng.integers(1, rank + 1)), replace=False))
    keep = bool(rng.integers(0, 2))
    function = ["mean", "sum"][k % 2]
    return _case(f"reduce_{k}_{function}_{'x'.join(map(str, shape))}_dims{''.join(map(str, dims))}_{int(keep)}",
                 lambda m, x, f=function, d=dims, kd=keep: getattr(torch.relu(x) + x, f)(d, keepdim=kd), (shape,))


def _softmax(rng: np.random.Generator, k: int) -> Architecture:
    rank = int(rng.integers(2, 5))
    shape = tuple(int(rng.integers(2, 9)) for _ in range(rank))
    dim = int(rng.integers(-rank, rank))
    log = k % 2 == 1
    return _case(f"softmax_{k}_{'log' if log else ''}_{'x'.join(map(str, shape))}_dim{dim}",
                 lambda m, x, d=dim, lg=log: (F.log_softmax if lg else F.softmax)(x * 2, d), (shape,))


def _conv(rng: np.random.Generator, k: int) -> Architecture:
    one_d = k % 2 == 0
    groups = int(rng.choice([1, 2, 3]))
    c_in, c_out = groups * int(rng.integers(1, 4)), groups * int(rng.integers(1, 4))
    kernel, stride, dilation = int(rng.integers(1, 5)), int(rng.integers(1, 3)), int(rng.integers(1, 3))
    padding = int(rng.integers(0, kernel))
    size = (kernel - 1) * dilation + 1 + int(rng.integers(0, 9))
    layer = (nn.Conv1d if one_d else nn.Conv2d)(c_in, c_out, kernel, stride, padding, dilation, groups)
    shape = (1, c_in, size) if one_d else (1, c_in, size, size + int(rng.integers(0, 3)))
    return _case(f"conv_{k}_{'1d' if one_d else '2d'}_k{kernel}s{stride}p{padding}d{dilation}g{groups}",
                 lambda m, x: F.relu(m[0](x)), (shape,), lambda layer=layer: [layer])


def _transposed(rng: np.random.Generator, k: int) -> Architecture:
    groups = int(rng.choice([1, 2]))
    c_in, c_out = groups * int(rng.integers(1, 4)), groups * int(rng.integers(1, 3))
    kernel, stride, dilation = int(rng.integers(1, 4)), int(rng.integers(1, 3)), int(rng.integers(1, 3))
    layer = nn.ConvTranspose2d(c_in, c_out, kernel, stride, groups=groups, dilation=dilation)
    shape = (1, c_in, int(rng.integers(2, 6)), int(rng.integers(2, 6)))
    return _case(f"transposed_{k}_k{kernel}s{stride}d{dilation}g{groups}", lambda m, x: m[0](x), (shape,),
                 lambda layer=layer: [layer])


def _pool(rng: np.random.Generator, k: int) -> Architecture:
    kernel = int(rng.integers(1, 4))
    stride = int(rng.integers(1, kernel + 2))
    padding = int(rng.integers(0, kernel // 2 + 1))
    ceil = bool(rng.integers(0, 2))
    size = kernel + int(rng.integers(0, 8))
    average = k % 2 == 0

    def forward(m, x, kernel=kernel, stride=stride, padding=padding, ceil=ceil, average=average):
        if average:
            return F.avg_pool2d(x, kernel, stride, padding, ceil_mode=ceil, count_include_pad=not ceil)
        return F.max_pool2d(x, kernel, stride, padding, ceil_mode=ceil)
    return _case(f"pool_{k}_{'avg' if average else 'max'}_k{kernel}s{stride}p{padding}c{int(ceil)}", forward,
                 ((1, 3, size, size + 1),))


def _pad(rng: np.random.Generator, k: int) -> Architecture:
    mode = ["reflect", "replicate", "circular", "constant"][k % 4]
    one_d = k % 3 == 0
    size = int(rng.integers(4, 9))
    pads = [int(rng.integers(0, 3)) for _ in range(2 if one_d else 4)]
    shape = (1, 2, size) if one_d else (1, 2, size, size + 1)
    return _case(f"pad_{k}_{mode}_{'x'.join(map(str, pads))}", lambda m, x, p=pads, md=mode: F.pad(x, p, mode=md) * 2,
                 (shape,))


def _linear(rng: np.random.Generator, k: int) -> Architecture:
    rank = int(rng.integers(1, 5))
    shape = tuple(int(rng.integers(1, 5)) for _ in range(rank - 1)) + (int(rng.integers(1, 9)),)
    out = int(rng.integers(1, 9))
    layer = nn.Linear(shape[-1], out)
    return _case(f"linear_{k}_{'x'.join(map(str, shape))}_{out}", lambda m, x: m[0](x), (shape,),
                 lambda layer=layer: [layer])


def _pointwise(rng: np.random.Generator, k: int) -> Architecture:
    functions = [torch.sigmoid, torch.tanh, F.elu, F.mish, F.softplus, F.hardswish, F.silu, F.gelu,
                 lambda x: x * 0.3 - 1, lambda x: (x - 0.5) ** 2, lambda x: torch.where(x > 0, x, 0.2 * x)]
    chosen = [functions[int(i)] for i in rng.choice(len(functions), size=int(rng.integers(1, 4)))]
    shape = tuple(int(rng.integers(1, 9)) for _ in range(int(rng.integers(1, 5))))

    def forward(m, x, chosen=chosen):
        for function in chosen:
            x = function(x)
        return x
    return _case(f"pointwise_{k}_{len(chosen)}_{'x'.join(map(str, shape))}", forward, (shape,))


def _split_cat(rng: np.random.Generator, k: int) -> Architecture:
    rank = int(rng.integers(2, 5))
    shape = tuple(int(rng.integers(2, 7)) for _ in range(rank))
    dim = int(rng.integers(0, rank))
    pieces = int(rng.integers(2, 4))
    return _case(f"split_cat_{k}_{'x'.join(map(str, shape))}_dim{dim}_{pieces}",
                 lambda m, x, d=dim, n=pieces: torch.cat(list(reversed(torch.chunk(x * 2, n, d))), d), (shape,))


KINDS = [_binary, _reduction, _softmax, _conv, _transposed, _pool, _pad, _linear, _pointwise, _split_cat]


def _cases() -> dict[str, Architecture]:
    rng = np.random.default_rng(SEED)
    cases = {}
    for kind in KINDS:
        for k in range(COUNT_PER_KIND):
            torch.manual_seed(int(rng.integers(0, 2**31)))
            case = kind(rng, k)
            cases[case.name] = case
    return cases


RANDOM_CASES: dict[str, Architecture] = _cases()
