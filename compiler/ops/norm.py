"""norm: int8 layer norm and RMS norm over the last axis (nn.LayerNorm, nn.RMSNorm, F.rms_norm;
group and instance norm, which compiler/decompositions.py rewrites into a layer norm).

One op with a mode rather than two: the two norms differ only in the row's centre (its mean, or
the input zero point, real 0), so they share the statistics, the reciprocal square root, the
affine and every kernel line; a second op would repeat the options table, adapter, kernels and
conformance cases for one branch per row.

Lowering: dequantize → layer_norm / rms_norm (float weight and bias, which PT2E leaves float) →
quantize becomes `norm` (reference.norm_s8). The input scale cancels out of (x − mean) / std;
only epsilon needs it (E = D²·eps / scale_in², in fixed point with `epsilon_shift` fractional
bits). gamma and beta fold with the output quantization into per-channel int32 multipliers and
biases. Forms the int8 kernel cannot take (rows longer than NORM_MAX_DEPTH, or constants that do
not fit its fixed point) stay in float32 (ops/float_layer_norm.py), as when the quantizer's config
leaves them in float.
"""
from __future__ import annotations

import numpy as np
import torch
from torch.fx import Node

from compiler import reference
from compiler.errors import UnsupportedOpError
from compiler.ir import Graph, Op
from compiler.ops import overlap
from compiler.ops.spec import Import, Lowering, OpSpec, tier_paths
from compiler.quantized_pattern import add_constant, match, replace
from compiler.reference import NORM_MAX_DEPTH, NORM_MODES
from compiler.schema import program_generated as fb

aten = torch.ops.aten

# attr -> NormOptions field (mode apart: an index of NORM_MODES)
FIELDS = (("input_zero_point", "InputZeroPoint"), ("epsilon_high", "EpsilonHigh"), ("epsilon_low", "EpsilonLow"),
          ("epsilon_shift", "EpsilonShift"), ("norm_bits", "NormBits"), ("output_shift", "OutputShift"))
MAX_EPSILON_SHIFT = 32  # fractional bits of the epsilon term: 2^-32 of an integer variance is plenty
EPSILON_LIMIT = 2**61  # V·2^F + E < 2^62 (em_norm_s8's bound: V < D²·2^16 is the other half)
BIAS_LIMIT = 2**30  # |bias| below this: VRMULH's product (<= 2^30) plus bias never saturates
# H <= 24: the DSP and scalar paths' saturating (acc + 2^(H−1)) >> H then equals the exact one
# wherever the output is not clamped (em_norm_s8.c); 2^-24 LSB is precision enough
MAX_OUTPUT_SHIFT = 24


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x, multiplier, bias = inputs
    return [reference.norm_s8(x, multiplier, bias, mode=op.attrs["mode"],
                              **{attr: op.attrs[attr] for attr, _ in FIELDS})]


def _write(builder, op: Op) -> int:
    fb.NormOptionsStart(builder)
    fb.NormOptionsAddMode(builder, NORM_MODES.index(op.attrs["mode"]))
    for attr, name in FIELDS:
        getattr(fb, f"NormOptionsAdd{name}")(builder, int(op.attrs[attr]))
    return fb.NormOptionsEnd(builder)


def _read(table) -> dict:
    options = fb.NormOptions()
    options.Init(table.Bytes, table.Pos)
    return {"mode": NORM_MODES[options.Mode()], **{attr: getattr(options, name)() for attr, name in FIELDS}}


def _depth_reason(normalized_shape: list[int]) -> str | None:
    """Why the int8 kernel cannot take this norm (it then stays in float32), or None."""
    depth = int(np.prod(normalized_shape))
    if depth > NORM_MAX_DEPTH:
        return f"int8 norm takes rows of at most {NORM_MAX_DEPTH} values, this one has {depth}"
    return None


def _import_layer_norm(node: Node, args: list) -> tuple[str, dict]:
    normalized_shape = [int(d) for d in node.args[1]]
    eps = node.args[4] if len(node.args) > 4 else node.kwargs.get("eps", 1e-5)
    attrs = {"normalized_shape": normalized_shape, "eps": float(eps),
             "affine": [len(node.args) > i and node.args[i] is not None for i in (2, 3)]}
    reason = _depth_reason(normalized_shape)
    return "aten.layer_norm", attrs | ({"float_reason": reason} if reason else {})


def _import_rms_norm(node: Node, args: list) -> tuple[str, dict]:
    """rms_norm(x, normalized_shape, weight=None, eps=None): eps None is the input dtype's
    machine epsilon, as PyTorch takes it."""
    normalized_shape = [int(d) for d in node.args[1]]
    eps = node.args[3] if len(node.args) > 3 else node.kwargs.get("eps")
    if eps is None:
        eps = torch.finfo(node.args[0].meta["val"].dtype).eps
    attrs = {"normalized_shape": normalized_shape, "eps": float(eps),
             "affine": [len(node.args) > 2 and node.args[2] is not None, False]}
    reason = _depth_reason(normalized_shape)
    return "aten.rms_norm", attrs | ({"float_reason": reason} if reason else {})


def _affine(graph: Graph, op: Op, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """gamma and beta [D] as float64 (ones and zeros where the norm has none)."""
    given = iter(op.inputs[1:])
    values = []
    for present, default in zip(op.attrs["affine"], (1.0, 0.0)):
        if not present:
            values.append(np.full(depth, default))
            continue
        tensor = graph.tensors[next(given)]
        if not tensor.is_constant or tensor.dtype != "float32":
            raise UnsupportedOpError(f"{op.kind.removeprefix('aten.')} with non-constant weight or bias", op.origin,
                                     "Its weight and bias must be constant float32 parameters.")
        values.append(np.asarray(tensor.data, np.float64).reshape(-1))
    return values[0], values[1]


def norm_parameters(depth: int, input_scale: float, output_scale: float, output_zero_point: int,
                    gamma: np.ndarray, beta: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray, dict]:
    """(multiplier [D], bias [D], the fixed-point attrs) of reference.norm_s8: norm_bits N, the
    most with D·4^N <= 2^60 (|normalised value| <= sqrt(D) in 30 bits); epsilon_shift F, the most
    (even, <= MAX_EPSILON_SHIFT) that keeps V·2^F and E below 2^61; output_shift H, the most
    (<= MAX_OUTPUT_SHIFT) that keeps every multiplier in int32 and every bias below BIAS_LIMIT. None fits:
    ValueError (the op stays unsupported)."""
    norm_bits = max(n for n in range(31) if depth << (2 * n) <= 1 << 60)
    epsilon = depth * depth * float(eps) / (float(input_scale) ** 2)
    variance_bits = ((depth * depth) << 16).bit_length()
    shifts = [f for f in range(0, MAX_EPSILON_SHIFT + 1, 2)
              if variance_bits + f <= 61 and epsilon * 2.0 ** f < EPSILON_LIMIT]
    if not shifts:
        raise ValueError(f"epsilon {eps:g} is too large for input scale {input_scale:g}")
    epsilon_shift = shifts[-1]
    epsilon_term = int(round(epsilon * 2.0 ** epsilon_shift))
    for output_shift in range(MAX_OUTPUT_SHIFT, 0, -1):
        multiplier = np.round(gamma / output_scale * 2.0 ** (32 + output_shift - norm_bits))
        bias = np.round((beta / output_scale + output_zero_point) * 2.0 ** output_shift)
        if np.abs(multiplier).max() < 2**31 and np.abs(bias).max() < BIAS_LIMIT:
            break
    else:
        raise ValueError(f"gamma / output scale up to {np.abs(gamma).max() / output_scale:g} and "
                         f"beta / output scale up to {np.abs(beta).max() / output_scale:g} leave no fixed point")
    attrs = {"epsilon_high": epsilon_term >> 31, "epsilon_low": epsilon_term & (2**31 - 1),
             "epsilon_shift": epsilon_shift, "norm_bits": norm_bits, "output_shift": output_shift}
    return multiplier.astype(np.int32), bias.astype(np.int32), attrs


def _lower(graph: Graph, op: Op) -> None:
    what = op.kind.removeprefix("aten.")
    matched = match(graph, op, ("int8",), what)
    (x, x_quant), out = matched.sources[0], matched.out_quant
    depth = int(x.shape[-1])
    if list(op.attrs["normalized_shape"]) != [depth]:
        raise UnsupportedOpError(f"{what} over {op.attrs['normalized_shape']} of a {list(x.shape)} tensor",
                                 op.origin, "Norms run over the last axis.")
    gamma, beta = _affine(graph, op, depth)
    try:
        multiplier, bias, attrs = norm_parameters(depth, float(x_quant.scale[0]), float(out.scale[0]),
                                                  int(out.zero_point[0]), gamma, beta, op.attrs["eps"])
    except ValueError as error:
        raise UnsupportedOpError(f"int8 {what}: {error}", op.origin,
                                 "Leave it in float (CortexMQuantizer(skip_ops=(...,))).") from None
    stem = matched.output
    inputs = [x.name, add_constant(graph, f"{stem}_multiplier", "int32", multiplier),
              add_constant(graph, f"{stem}_bias", "int32", bias)]
    attrs |= {"mode": "layer" if op.kind == "aten.layer_norm" else "rms", "input_zero_point": int(x_quant.zero_point[0])}
    replace(graph, matched, Op("norm", inputs, [stem], attrs, op.origin))


NORM = OpSpec(
    kind="norm",
    opcode=fb.OpCode.NORM,
    options_type=fb.OpOptions.NormOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_norm",
    imports=(Import((aten.layer_norm.default,), _import_layer_norm, "own_scale"),
             Import((aten.rms_norm.default,), _import_rms_norm, "own_scale")),
    lowerings=(Lowering(("aten.layer_norm", "aten.rms_norm"), _lower),),
    in_place=overlap.elementwise,  # a row's statistics are taken before any of it is written
    path=tier_paths(mve="Helium sums and output", dsp="SMLAD sums of squares"),
    weighted=True,
    shape_note=lambda graph, op: f" {op.attrs['mode']}",
)
