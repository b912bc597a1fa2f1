"""Ember's decomposition table: what a model says in ATen ops Ember has no lowering of, said again
in ops it has, before quantization (so PT2E observes and quantizes what Ember runs).

`decomposition_table()` is what `ExportedProgram.run_decompositions` takes: Ember's own entries
(below, one function per ATen op) over PyTorch's core ATen table, from which every op the
importer lowers as it is has been taken out. So what Ember imports stays whole, what it does not
is decomposed the way PyTorch itself decomposes it (GRU and LSTM unroll into linear, sigmoid,
tanh, mul and add; Mish into tanh and softplus's exp and log1p …), and Ember's entries rewrite
the rest into its own ops. `run_decompositions` also functionalizes the graph: in-place ops
(`relu_`, `add_`) become their functional forms, and eval-mode dropout a clone.

An entry returns NotImplemented where the op needs no rewriting (a linear already 2-D), so the
op stays as it is; entries may call ops that are decomposed again (a conv1d's conv2d with string
padding). Rewrites that need the whole graph (unused pooling indices, identity ops, constants)
are FX passes run afterwards (compiler/frontend.py).
"""
from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Callable, Iterator, Sequence

import numpy as np
import torch

aten = torch.ops.aten

Decomposition = Callable[..., object]


def _ints(value: int | Sequence[int], n: int) -> list[int]:
    values = [int(v) for v in (value if isinstance(value, (list, tuple)) else [value])]
    return values * n if len(values) == 1 else values


def _same_padding(kernel: Sequence[int], dilation: Sequence[int]) -> list[tuple[int, int]]:
    """padding='same' per spatial dim as (before, after): PyTorch puts the odd extra pixel after."""
    totals = [d * (k - 1) for k, d in zip(kernel, dilation)]
    return [(t // 2, t - t // 2) for t in totals]


def _conv_string_padding(x, weight, bias, stride, padding: str, dilation, groups):
    """conv1d / conv2d with padding='valid' or 'same' as the numeric form (an explicit pad first
    where 'same' is asymmetric)."""
    spatial = weight.dim() - 2
    dilation = _ints(dilation, spatial)
    if padding == "valid":
        pads = [(0, 0)] * spatial
    elif padding == "same":
        pads = _same_padding(weight.shape[2:], dilation)
    else:
        raise ValueError(f"unknown convolution padding {padding!r}")
    if any(before != after for before, after in pads):
        flat = [p for before_after in reversed(pads) for p in before_after]  # F.pad's order: last dim first
        x = aten.constant_pad_nd.default(x, flat, 0.0)
        pads = [(0, 0)] * spatial
    conv = aten.conv1d.default if spatial == 1 else aten.conv2d.default
    return conv(x, weight, bias, _ints(stride, spatial), [p for p, _ in pads], dilation, groups)


def _conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """conv1d as conv2d over a height of 1: [N, C, L] → [N, C, 1, L]."""
    if isinstance(padding, str):
        return _conv_string_padding(x, weight, bias, stride, padding, dilation, groups)
    batched = x.dim() == 3
    x4 = aten.unsqueeze.default(x if batched else aten.unsqueeze.default(x, 0), 2)
    y = aten.conv2d.default(x4, aten.unsqueeze.default(weight, 2), bias, [1, _ints(stride, 1)[0]],
                            [0, _ints(padding, 1)[0]], [1, _ints(dilation, 1)[0]], groups)
    y = aten.squeeze.dim(y, 2)
    return y if batched else aten.squeeze.dim(y, 0)


def _conv2d_string_padding(x, weight, bias=None, stride=1, padding="valid", dilation=1, groups=1):
    return _conv_string_padding(x, weight, bias, stride, padding, dilation, groups)


def _dense_transposed_weight(weight, groups: int, dilation: Sequence[int]):
    """A grouped, dilated transposed-conv weight [C_in, C_out/g, KH, KW] as the ungrouped,
    undilated one that computes the same: zeros between the dilated taps and off the groups'
    diagonal blocks (the zero weights add nothing to any sum)."""
    c_in, c_out_group, kh, kw = weight.shape
    dh, dw = dilation
    if (dh, dw) != (1, 1):
        zeros = aten.zeros.default([c_in, c_out_group, (kh - 1) * dh + 1, (kw - 1) * dw + 1], dtype=weight.dtype)
        weight = _scatter_2d(zeros, weight, dh, dw)
    if groups == 1:
        return weight
    c_in_group = c_in // groups
    blocks = []
    for g in range(groups):
        rows = aten.slice.Tensor(weight, 0, g * c_in_group, (g + 1) * c_in_group)
        zeros_before = aten.zeros.default([c_in_group, g * c_out_group, *weight.shape[2:]], dtype=weight.dtype)
        zeros_after = aten.zeros.default([c_in_group, (groups - g - 1) * c_out_group, *weight.shape[2:]],
                                         dtype=weight.dtype)
        blocks.append(aten.cat.default([zeros_before, rows, zeros_after], 1))
    return aten.cat.default(blocks, 0)


def _scatter_2d(dilated, weight, dh: int, dw: int):
    """`weight`'s taps at every dh-th row and dw-th column of the zero tensor `dilated`."""
    rows = aten.slice.Tensor(dilated, 2, 0, None, dh)  # the rows that hold taps
    rows = aten.slice_scatter.default(rows, weight, 3, 0, None, dw)
    return aten.slice_scatter.default(dilated, rows, 2, 0, None, dh)


def _conv_transpose2d(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Grouped or dilated transposed convolution as the plain one over an expanded weight."""
    dilation = _ints(dilation, 2)
    if groups == 1 and dilation == [1, 1]:
        return NotImplemented
    dense = _dense_transposed_weight(weight, groups, dilation)
    return aten.conv_transpose2d.input(x, dense, bias, stride, padding, output_padding, 1, [1, 1])


def _conv_transpose1d(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """conv_transpose1d as conv_transpose2d over a height of 1."""
    batched = x.dim() == 3
    x4 = aten.unsqueeze.default(x if batched else aten.unsqueeze.default(x, 0), 2)
    y = aten.conv_transpose2d.input(x4, aten.unsqueeze.default(weight, 2), bias, [1, _ints(stride, 1)[0]],
                                    [0, _ints(padding, 1)[0]], [0, _ints(output_padding, 1)[0]], groups,
                                    [1, _ints(dilation, 1)[0]])
    y = aten.squeeze.dim(y, 2)
    return y if batched else aten.squeeze.dim(y, 0)


def _relu6(x):
    return aten.hardtanh.default(x, 0.0, 6.0)


def _clamp(x, min=None, max=None):
    """clamp with number bounds as hardtanh (which folds into its producer); an absent bound is
    infinite."""
    low = -math.inf if min is None else float(min)
    high = math.inf if max is None else float(max)
    return aten.hardtanh.default(x, low, high)


def _clamp_tensor(x, min=None, max=None):
    """clamp with tensor bounds: maximum with the lower, minimum with the upper."""
    if min is not None:
        x = aten.maximum.default(x, min)
    if max is not None:
        x = aten.minimum.default(x, max)
    return x


def _clamp_min(x, bound):
    return _clamp(x, min=bound)


def _clamp_max(x, bound):
    return _clamp(x, max=bound)


def _linear(x, weight, bias=None):
    """linear on any rank: the leading dims fold into the batch ([B, T, F] → [B·T, F])."""
    if x.dim() == 2:
        return NotImplemented
    features = x.shape[-1]
    flat = aten.reshape.default(x, [1 if x.dim() == 1 else -1, features])
    y = aten.linear.default(flat, weight, bias)
    return aten.reshape.default(y, [*x.shape[:-1], weight.shape[0]])


def _matmul(a, b):
    """matmul of any ranks as Ember's two forms: [B, M, K] × [B, K, N] between activations, and
    [M, K] × [K, N]; batch dims fold into one and broadcast batch dims are expanded."""
    if a.dim() == 2 and b.dim() == 2:
        return NotImplemented
    if a.dim() == 3 and b.dim() == 3 and a.shape[0] == b.shape[0]:
        return NotImplemented
    if b.dim() == 1:
        return aten.squeeze.dim(aten.matmul.default(a, aten.unsqueeze.default(b, 1)), -1)
    if a.dim() == 1:
        return aten.squeeze.dim(aten.matmul.default(aten.unsqueeze.default(a, 0), b), -2)
    if b.dim() == 2:  # [..., M, K] × [K, N]: the leading dims fold into M
        flat = aten.reshape.default(a, [-1, a.shape[-1]])
        return aten.reshape.default(aten.mm.default(flat, b), [*a.shape[:-1], b.shape[-1]])
    batch = list(torch.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
    a = aten.expand.default(a, [*batch, *a.shape[-2:]])
    b = aten.expand.default(b, [*batch, *b.shape[-2:]])
    count = math.prod(batch)
    y = aten.bmm.default(aten.reshape.default(a, [count, *a.shape[-2:]]), aten.reshape.default(b, [count, *b.shape[-2:]]))
    return aten.reshape.default(y, [*batch, a.shape[-2], b.shape[-1]])


def _mm(a, b):
    return aten.matmul.default(a, b)


def _split(x, split_size, dim=0):
    """split / chunk into slices."""
    size = x.shape[dim]
    sizes = [min(split_size, size - start) for start in range(0, size, split_size)] if split_size else [size]
    return _split_with_sizes(x, sizes, dim)


def _split_with_sizes(x, split_sizes, dim=0):
    pieces, start = [], 0
    for size in split_sizes:
        pieces.append(aten.slice.Tensor(x, dim, start, start + size))
        start += size
    return pieces


def _unbind(x, dim=0):
    return [aten.select.int(x, dim, i) for i in range(x.shape[dim])]


def _softmax_dim(rank: int) -> int:
    """The dim Ember's softmax runs over: the last, or a 4-D map's channels (NHWC's last axis)."""
    return 1 if rank == 4 else rank - 1


def _softmax(x, dim, half_to_float=False):
    """softmax over any dim: moved to the dim Ember's kernel runs over and back. Over the last dim
    of a 4-D tensor (attention's [B, H, Tq, Tk] scores) it runs on the 3-D [B·H, Tq, Tk]: a reshape
    of the batch_matmul's own output, so no transpose into NHWC and back is needed."""
    rank = x.dim()
    dim = int(dim) % max(rank, 1)
    target = _softmax_dim(rank)
    if rank == 0 or dim == target:
        return NotImplemented
    if rank == 4 and dim == 3:
        rows = aten.reshape.default(x, [-1, *x.shape[2:]])
        return aten.reshape.default(aten._softmax.default(rows, 2, half_to_float), list(x.shape))
    y = aten._softmax.default(aten.transpose.int(x, dim, target), target, half_to_float)
    return aten.transpose.int(y, dim, target)


def _softmax_int(x, dim, dtype=None):
    return _softmax(x, dim)


def _safe_softmax(x, dim, dtype=None):
    """scaled_dot_product_attention's softmax, which gives 0 rather than NaN for a row of -inf
    only: a quantized tensor holds no -inf, so it is softmax."""
    return aten._softmax.default(x, dim, False)


def _scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, *, scale=None,
                                  enable_gqa=False):
    """F.scaled_dot_product_attention written out as users write attention by hand:
    softmax(q @ kᵀ · scale, masked) @ v. The scale is a number times the product (it folds into the
    batch_matmul's requantization, rather than PyTorch's √scale on q and on k: two tables); a causal
    or boolean mask is a masked_fill of −inf and a float mask an add, before the softmax (a constant
    mask goes into Ember's softmax: passes/fold_softmax_masks.py). Dropout (dropout_p > 0 drops
    even in eval) and grouped-query heads keep PyTorch's own decomposition."""
    if dropout_p != 0.0 or (enable_gqa and q.shape[-3] != k.shape[-3]):
        return NotImplemented
    length, source = q.shape[-2], k.shape[-2]
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = aten.mul.Tensor(aten.matmul.default(q, aten.transpose.int(k, -2, -1)), scale)
    if is_causal:
        above = aten.triu.default(aten.ones.default([length, source], dtype=torch.bool, device=q.device), 1)
        scores = aten.masked_fill.Scalar(scores, above, -math.inf)
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:  # True: attend
            scores = aten.masked_fill.Scalar(scores, aten.logical_not.default(attn_mask), -math.inf)
        else:
            scores = aten.add.Tensor(scores, attn_mask)
    return aten.matmul.default(aten._softmax.default(scores, -1, False), v)


def _reduced_dims(x, dim) -> list[int]:
    """A reduction's dims, sorted and non-negative (None or [] : all of them, as ATen reads them)."""
    return list(range(x.dim())) if dim is None or dim == [] else \
        sorted({int(d) % x.dim() for d in ([dim] if isinstance(dim, int) else dim)})


def _vector_norm(x, ord=2, dim=None, keepdim=False, dtype=None):
    """linalg.vector_norm of orders 1 and 2 as sum(|x|) and sqrt(sum(x²))."""
    dims = _reduced_dims(x, dim)
    if ord == 2:
        return aten.sqrt.default(aten.sum.dim_IntList(aten.mul.Tensor(x, x), dims, keepdim))
    if ord == 1:
        return aten.sum.dim_IntList(aten.abs.default(x), dims, keepdim)
    return NotImplemented


def _log_softmax(x, dim, half_to_float=False):
    """log_softmax as log(softmax): the softmax runs in int8, the log becomes a table of its codes."""
    return aten.log.default(aten._softmax.default(x, dim, half_to_float))


def _log_softmax_int(x, dim, dtype=None):
    return _log_softmax(x, dim)


def _pad(x, pad, mode="constant", value=None):
    """F.pad: constant padding as constant_pad_nd, reflect / replicate / circular as slices of
    the input concatenated around it (a pure copy of the int8 codes)."""
    if mode == "constant":
        return aten.constant_pad_nd.default(x, pad, 0.0 if value is None else value)
    pairs = [(pad[2 * k], pad[2 * k + 1]) for k in range(len(pad) // 2)]  # last dim first
    for k, (before, after) in enumerate(pairs):
        dim = x.dim() - 1 - k
        x = _pad_dim(x, dim, int(before), int(after), mode)
    return x


PAD_MODES = ("reflect", "replicate", "circular")


def _pad_dim(x, dim: int, before: int, after: int, mode: str):
    size = x.shape[dim]
    if mode not in PAD_MODES:
        raise ValueError(f"unknown padding mode {mode!r}")

    def index(i: int) -> int:  # the input index padded position i (may be < 0 or >= size) copies
        if mode == "replicate":
            return min(max(i, 0), size - 1)
        if mode == "circular":
            return i % size
        period = 2 * (size - 1)
        i = abs(i) % period if period else 0
        return i if i < size else period - i

    def column(i: int):
        return aten.slice.Tensor(x, dim, index(i), index(i) + 1)

    parts = [column(i) for i in range(-before, 0)] + [x] + [column(i) for i in range(size, size + after)]
    return aten.cat.default(parts, dim) if len(parts) > 1 else x


def _reflection_pad(x, padding):
    return _pad(x, padding, "reflect")


def _replication_pad(x, padding):
    return _pad(x, padding, "replicate")


def _avg_pool2d(x, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
    """avg_pool2d with divisor_override: a depthwise convolution whose taps are all
    1 / divisor (padding cells add zero, whatever they count); ceil_mode's overhang as extra zero
    padding at the end."""
    if divisor_override is None:
        return NotImplemented
    kh, kw = _ints(kernel_size, 2)
    sh, sw = _ints(stride or kernel_size, 2)
    ph, pw = _ints(padding, 2)
    channels, (h, w) = x.shape[-3], x.shape[-2:]
    eh = ceil_overhang(h, kh, sh, ph) if ceil_mode else 0
    ew = ceil_overhang(w, kw, sw, pw) if ceil_mode else 0
    if eh or ew:
        x = aten.constant_pad_nd.default(x, [0, ew, 0, eh], 0.0)
    weight = aten.full.default([channels, 1, kh, kw], 1.0 / float(divisor_override), dtype=x.dtype)
    return aten.conv2d.default(x, weight, None, [sh, sw], [ph, pw], [1, 1], channels)


def ceil_overhang(size: int, kernel: int, stride: int, pad: int) -> int:
    """Cells past the padded end that PyTorch's ceil_mode windows reach along one axis (0 without
    them): the last window may start in the padding after the input, never past it."""
    out = -(-(size + 2 * pad - kernel) // stride) + 1
    if (out - 1) * stride >= size + pad:
        out -= 1
    return max((out - 1) * stride + kernel - (size + 2 * pad), 0)


def _layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    """layer_norm over several trailing dims, or of a tensor of rank > 3, as one over the last
    dim of a 2-D view [rows, features] (Ember's layer norm runs over the last axis)."""
    normalized = [int(d) for d in normalized_shape]
    if x.dim() <= 3 and len(normalized) == 1:
        return NotImplemented
    features = math.prod(normalized)
    flat = aten.reshape.default(x, [-1, features])
    weight = None if weight is None else aten.reshape.default(weight, [features])
    bias = None if bias is None else aten.reshape.default(bias, [features])
    y = aten.layer_norm.default(flat, [features], weight, bias, eps, cudnn_enable)
    return aten.reshape.default(y, list(x.shape))


def _rms_norm(x, normalized_shape, weight=None, eps=None):
    """rms_norm likewise, over the last dim of a 2-D view."""
    normalized = [int(d) for d in normalized_shape]
    if x.dim() <= 3 and len(normalized) == 1:
        return NotImplemented
    features = math.prod(normalized)
    weight = None if weight is None else aten.reshape.default(weight, [features])
    y = aten.rms_norm.default(aten.reshape.default(x, [-1, features]), [features], weight, eps)
    return aten.reshape.default(y, list(x.shape))


def _group_norm(x, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    """group_norm as a layer norm over each group's values (a view [batch, groups, values]),
    then the per-channel affine as a product and a sum (broadcast over the spatial dims)."""
    channels = int(x.shape[1])
    grouped = aten.reshape.default(x, [int(x.shape[0]), int(num_groups), -1])
    y = aten.reshape.default(aten.layer_norm.default(grouped, [int(grouped.shape[-1])], None, None, eps), list(x.shape))
    per_channel = [1, channels] + [1] * (x.dim() - 2)
    if weight is not None:
        y = aten.mul.Tensor(y, aten.reshape.default(weight, per_channel))
    if bias is not None:
        y = aten.add.Tensor(y, aten.reshape.default(bias, per_channel))
    return y


def _instance_norm(x, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    """instance_norm on the input's own statistics is group_norm with a group per channel (with
    running statistics it is a batch norm, which folds)."""
    if not use_input_stats:
        return NotImplemented
    return _group_norm(x, int(x.shape[1]), weight, bias, eps)


def _var(x, dim=None, *, correction=None, keepdim=False):
    """var as the mean of squared deviations from the mean (int8: a broadcast sub, a table of
    the square, a reduction), times n / (n - correction)."""
    dims = _reduced_dims(x, dim)
    n = math.prod(int(x.shape[d]) for d in dims)
    correction = 1 if correction is None else float(correction)
    if n - correction <= 0:  # PyTorch's inf / nan: left to it
        return NotImplemented
    deviation = aten.sub.Tensor(x, aten.mean.dim(x, dims, True))
    variance = aten.mean.dim(aten.mul.Tensor(deviation, deviation), dims, keepdim)
    return variance if correction == 0 else aten.mul.Tensor(variance, n / (n - correction))


def _amax(x, dim=(), keepdim=False, largest=True):
    """amax / amin over any dims as one max pool: the kept dims as channels, the reduced ones as
    the pooled height of a map [1, kept, reduced, 1] (amin: the max of -x, negated)."""
    dims = _reduced_dims(x, dim)
    kept = [d for d in range(x.dim()) if d not in dims]
    reduced = math.prod(int(x.shape[d]) for d in dims)
    values = x if largest else aten.neg.default(x)
    grid = aten.reshape.default(aten.permute.default(values, kept + dims),
                                [1, math.prod(int(x.shape[d]) for d in kept), reduced, 1])
    y = aten.max_pool2d.default(grid, [reduced, 1], [reduced, 1])
    y = y if largest else aten.neg.default(y)
    shape = [1 if d in dims else int(x.shape[d]) for d in range(x.dim())] if keepdim else \
        [int(x.shape[d]) for d in kept]
    return aten.reshape.default(y, shape)


def _amin(x, dim=(), keepdim=False):
    return _amax(x, dim, keepdim, largest=False)


def _adaptive_max_pool2d(x, output_size):
    """adaptive_max_pool2d to a size that divides the input's: one max pool (its indices unused)."""
    (h, w), (oh, ow) = x.shape[-2:], _ints(output_size, 2)
    if h % oh or w % ow:
        return NotImplemented
    return aten.max_pool2d_with_indices.default(x, [h // oh, w // ow], [h // oh, w // ow])


def _nearest_sources(size: int, out: int, scale: float | None) -> list[int]:
    """The input index of each output index, as PyTorch's CPU kernel picks it (nearest_idx:
    floor(i · s) in float32, s = 1 / scale_factor when one is given, else in / out)."""
    s = np.float32(1.0 / scale) if scale is not None else np.float32(size) / np.float32(out)
    return [min(int(np.floor(np.float32(i) * s)), size - 1) for i in range(out)]


def _upsample_nearest2d(x, output_size=None, scale_factors=None):
    """Nearest resizing by a factor that is no integer as a copy of the input's rows, then its
    columns, each taken as PyTorch takes it (a slice per output row and column, concatenated);
    integer factors stay Ember's upsample op."""
    (h, w), (oh, ow) = x.shape[-2:], [int(d) for d in output_size] if output_size is not None else \
        [int(math.floor(d * f)) for d, f in zip(x.shape[-2:], scale_factors)]
    integer = oh % h == 0 and ow % w == 0 and (scale_factors is None or [float(f) for f in scale_factors] ==
                                                [oh // h, ow // w])
    if integer:
        return NotImplemented
    scales = scale_factors or (None, None)
    for dim, size, out, scale in ((2, h, oh, scales[0]), (3, w, ow, scales[1])):
        if size != out:
            x = aten.cat.default([aten.slice.Tensor(x, dim, i, i + 1) for i in _nearest_sources(size, out, scale)], dim)
    return x


def _flip(x, dims):
    """flip as the input's slices of one along each dim, concatenated in reverse (a pure copy)."""
    for dim in sorted({int(d) % x.dim() for d in dims}):
        size = x.shape[dim]
        if size > 1:
            x = aten.cat.default([aten.slice.Tensor(x, dim, i, i + 1) for i in reversed(range(size))], dim)
    return x


def interpolation_matrix(size: int, out: int, align_corners: bool, scale: float | None) -> list[list[float]]:
    """[size, out]: column o holds the linear interpolation weights of output o over the inputs,
    as PyTorch's upsample_bilinear2d / linear compute the source coordinate."""
    matrix = [[0.0] * out for _ in range(size)]
    for o in range(out):
        if align_corners:
            source = o * (size - 1) / (out - 1) if out > 1 else 0.0
        else:
            ratio = 1.0 / scale if scale else size / out
            source = max((o + 0.5) * ratio - 0.5, 0.0)
        low = min(int(math.floor(source)), size - 1)
        high = min(low + 1, size - 1)
        weight = source - low
        matrix[low][o] += 1.0 - weight
        matrix[high][o] += weight
    return matrix


def _mean_all(x, dtype=None):
    return aten.mean.dim(x, list(range(x.dim())), False)


def _sum_all(x, dtype=None):
    return aten.sum.dim_IntList(x, list(range(x.dim())), False)


def _adaptive_avg_pool1d(x, output_size):
    y = aten.adaptive_avg_pool2d.default(aten.unsqueeze.default(x, -2), [1, _ints(output_size, 1)[0]])
    return aten.squeeze.dim(y, -2)


def _avg_pool1d(x, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True):
    y = aten.avg_pool2d.default(aten.unsqueeze.default(x, -2), [1, _ints(kernel_size, 1)[0]],
                                [1, _ints(stride or kernel_size, 1)[0]], [0, _ints(padding, 1)[0]], ceil_mode,
                                count_include_pad)
    return aten.squeeze.dim(y, -2)


def _max_pool1d(x, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    y = aten.max_pool2d.default(aten.unsqueeze.default(x, -2), [1, _ints(kernel_size, 1)[0]],
                                [1, _ints(stride or kernel_size, 1)[0]], [0, _ints(padding, 1)[0]],
                                [1, _ints(dilation, 1)[0]], ceil_mode)
    return aten.squeeze.dim(y, -2)


def _same_rank(op):
    """`op` (a broadcasting elementwise op of two tensors) with a lower-rank operand of a 4-D
    result given 4 dims first (leading 1s, as broadcasting aligns them), so that Ember's NHWC
    layout of the map applies to both operands."""
    def rewrite(a, b, *args, **kwargs):
        tensors = isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)
        if not tensors or a.dim() == b.dim() or max(a.dim(), b.dim()) != 4:
            return NotImplemented
        a, b = (aten.reshape.default(t, [1] * (4 - t.dim()) + list(t.shape)) if t.dim() < 4 else t for t in (a, b))
        return op(a, b, *args, **kwargs)
    return rewrite


def _recurrent(kind: str) -> Decomposition:
    """aten.gru.input / aten.lstm.input: one layer stays whole (Ember's `kind` op); two become two
    one-layer calls, the second reading the first's output, with h_n (and c_n) concatenated as
    PyTorch returns them; what the op cannot take (compiler/ops/recurrent.py takes_whole:
    bidirectional, 3+ layers, proj_size, dropout in training) unrolls as PyTorch decomposes it."""
    from torch._decomp import decomposition_table as torch_decompositions

    from compiler.ops.recurrent import takes_whole

    op = getattr(aten, kind).input

    def rewrite(x, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
        args = (x, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first)
        if takes_whole(kind, x, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
            return torch_decompositions[op](*args)
        if num_layers == 1:
            return NotImplemented
        per_layer = len(params) // num_layers
        states = list(hx) if kind == "lstm" else [hx]
        finals, y = [[] for _ in states], x
        for layer in range(num_layers):
            layer_states = [aten.slice.Tensor(s, 0, layer, layer + 1) for s in states]
            out = op(y, layer_states if kind == "lstm" else layer_states[0],
                     params[layer * per_layer:(layer + 1) * per_layer], has_biases, 1, dropout, False, False,
                     batch_first)
            y = out[0]
            for final, value in zip(finals, out[1:]):
                final.append(value)
        return (y, *(aten.cat.default(final, 0) for final in finals))
    return rewrite


BROADCASTING_BINARY = (aten.add.Tensor, aten.sub.Tensor, aten.mul.Tensor, aten.div.Tensor, aten.minimum.default,
                       aten.maximum.default)

# ATen op → Ember's rewrite of it.
EMBER_DECOMPOSITIONS: dict[object, Decomposition] = {
    aten.conv1d.default: _conv1d,
    aten.conv1d.padding: _conv1d,
    aten.conv2d.padding: _conv2d_string_padding,
    aten.conv_transpose1d.default: _conv_transpose1d,
    aten.conv_transpose2d.input: _conv_transpose2d,
    aten.relu6.default: _relu6,
    aten.clamp.default: _clamp,
    aten.clamp.Tensor: _clamp_tensor,
    aten.clamp_min.default: _clamp_min,
    aten.clamp_max.default: _clamp_max,
    aten.linear.default: _linear,
    aten.matmul.default: _matmul,
    aten.mm.default: _mm,
    aten.split.Tensor: _split,
    aten.split_with_sizes.default: _split_with_sizes,
    aten.unbind.int: _unbind,
    aten.softmax.int: _softmax_int,
    aten._softmax.default: _softmax,
    aten._safe_softmax.default: _safe_softmax,
    aten.scaled_dot_product_attention.default: _scaled_dot_product_attention,
    aten.linalg_vector_norm.default: _vector_norm,
    aten.log_softmax.int: _log_softmax_int,
    aten._log_softmax.default: _log_softmax,
    aten.pad.default: _pad,
    aten.reflection_pad1d.default: _reflection_pad,
    aten.reflection_pad2d.default: _reflection_pad,
    aten.replication_pad1d.default: _replication_pad,
    aten.replication_pad2d.default: _replication_pad,
    aten.avg_pool2d.default: _avg_pool2d,
    aten.layer_norm.default: _layer_norm,
    aten.rms_norm.default: _rms_norm,
    aten.flip.default: _flip,
    aten.mean.default: _mean_all,
    aten.sum.default: _sum_all,
    aten.adaptive_avg_pool1d.default: _adaptive_avg_pool1d,
    aten.avg_pool1d.default: _avg_pool1d,
    aten.max_pool1d.default: _max_pool1d,
    aten.upsample_nearest2d.vec: _upsample_nearest2d,
    aten.group_norm.default: _group_norm,
    aten.instance_norm.default: _instance_norm,
    aten.var.correction: _var,
    aten.amax.default: _amax,
    aten.amin.default: _amin,
    aten.adaptive_max_pool2d.default: _adaptive_max_pool2d,
    **{op: _same_rank(op) for op in BROADCASTING_BINARY},
    aten.gru.input: _recurrent("gru"),
    aten.lstm.input: _recurrent("lstm"),
}


def decomposition_table(kept: Sequence[object]) -> dict[object, Decomposition]:
    """PyTorch's core ATen decompositions less the ops in `kept` (those the importer lowers as
    they are), overlaid with Ember's own. (A fresh dict each call of one table built once per
    `kept`: building it walks every registered op, 0.15 s, a fifth of a small model's lowering.)"""
    return dict(_table(tuple(kept)))


@contextlib.contextmanager
def cia_ops_listed_once() -> Iterator[None]:
    """Within the context, torch.export's list of the CompositeImplicitAutograd ops is read from
    a cache: torch walks every op namespace and, for each, every CIA registration of the C++
    dispatcher, twice per run_decompositions (0.3 s, a third of a small model's lowering). The
    list changes only when ops are registered: the cache is keyed by the op namespaces and the
    number of CIA registrations."""
    from torch.export import decomp_utils, exported_program

    modules = [m for m in (exported_program, decomp_utils) if hasattr(m, "_collect_all_valid_cia_ops")]
    if not modules:  # another torch: its own way
        yield
        return
    collect = modules[0]._collect_all_valid_cia_ops

    def cached() -> set:
        key = (tuple(torch.ops._dir), len(torch._C._dispatch_get_registrations_for_dispatch_key(
            "CompositeImplicitAutograd")))
        if key not in _CIA_OPS:
            _CIA_OPS[key] = collect()
        return _CIA_OPS[key]

    for module in modules:
        module._collect_all_valid_cia_ops = cached
    try:
        yield
    finally:
        for module in modules:
            module._collect_all_valid_cia_ops = collect


_CIA_OPS: dict[tuple, set] = {}


@functools.cache
def _table(kept: tuple[object, ...]) -> dict[object, Decomposition]:
    table = torch.export.default_decompositions()
    for op in (*kept, *EMBER_DECOMPOSITIONS):
        table.pop(op, None)
    return {**dict(table.items()), **EMBER_DECOMPOSITIONS}
