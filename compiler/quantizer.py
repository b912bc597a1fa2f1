"""CortexMQuantizer: the PT2E quantizer for Ember's int8 contract.

Activations: int8 asymmetric per-tensor (-128..127); int16 symmetric (zero point 0, -32768..32767)
in the ops with int16 kernels (Import.int16) of layers whose precision is "a16w8". Weights: int8
symmetric per output channel (-127..127), or per tensor with `per_tensor_weights`; int4 (-8..7) in
layers whose precision is "a8w4" (its precision options). Bias: int32, scale = input scale × weight scale per channel,
zero point 0. Patterns whose activation Ember folds into the output clamp are annotated as one
unit, so no quantize/dequantize pair sits between a linear or conv and its ReLU.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import torch
from torch.fx import GraphModule, Node

from compiler.attention import product_scale, softmax_mask
from compiler.errors import ModelError
from compiler.gptq import LEVELS, GridObserver
from compiler.gptq import ROUNDED as GPTQ_ROUNDED
from compiler.histogram_observer import FastHistogramObserver
from compiler.importer import IMPORTS
from compiler.passes.graph_module import attr_value
from compiler.pointwise import regions
from compiler.precisions import PRECISIONS  # a layer's precision: activation and weight bits
from torchao.quantization.pt2e.observer import MinMaxObserver, PerChannelMinMaxObserver
from torchao.quantization.pt2e.quantizer import (
    DerivedQuantizationSpec,
    FixedQParamsQuantizationSpec,
    QuantizationAnnotation,
    QuantizationSpec,
    Quantizer,
    SharedQuantizationSpec,
)

aten = torch.ops.aten

# The ops' annotations come from their records (compiler/ops/: Import.scheme, gathered in
# compiler/importer.py IMPORTS); the schemes are CortexMQuantizer's methods (its annotate()):
# - "weighted": (input, weight, bias) in aten's order, the weight per channel along
#   Import.weight_axis, the bias at input scale × weight scale;
# - "binary": two activations, their own output scale; "matmul": two activations, or an
#   activation times a constant [K, N] quantized as weights along its columns (axis 1);
# - "shared_inputs": inputs and output share the first input's quantization, so that the int8
#   codes compare like the real values (TFLite's MINIMUM / MAXIMUM ask the same);
# - "own_scale": one activation input and its own output scale;
# - "softmax": the output is a probability, int8 with the fixed scale 1/256 and zero point
#   -128, as the TFLite / CMSIS-NN int8 softmax produces it;
# - "shared": the output keeps the input's scale and zero point (pooling, reshapes and data
#   movement move or pick values, so the int8 codes pass through unchanged);
# - "concatenation": every input and the output share the first input's quantization;
# - "recurrent": GRU / LSTM (compiler/ops/recurrent.py): the input and a given initial state as
#   activations, each layer's w_ih / w_hh per gate row (axis 0), the biases left float (lowering
#   quantizes them at the accumulator scales); each output (the getitems) its own scale.
# Elementwise functions of one activation (activations, arithmetic with numbers or per-channel
# constants, and chains of them: compiler/pointwise.py) are quantized at their input and outputs
# only, and lowered to 256-entry tables. ReLU and hardtanh join them when they cannot fold into a
# producer.
WEIGHTED_OPS = {target: i.weight_axis for i in IMPORTS if i.scheme == "weighted" for target in i.targets}
SOFTMAX_OUTPUT_QSPEC = FixedQParamsQuantizationSpec(
    dtype=torch.int8, scale=1.0 / 256.0, zero_point=-128, quant_min=-128, quant_max=127,
    qscheme=torch.per_tensor_affine)

# Activations folded into the producer's output clamp (Import.activation): ReLU, and hardtanh
# with any bounds (ReLU6 is hardtanh(0, 6)). The clamp of an int8 value to quantized bounds is exact.
FUSABLE_ACTIVATIONS = frozenset(target for i in IMPORTS if i.activation for target in i.targets)

ACTIVATION_QSPEC = QuantizationSpec(
    dtype=torch.int8,
    quant_min=-128,
    quant_max=127,
    qscheme=torch.per_tensor_affine,
    is_dynamic=False,
    observer_or_fake_quant_ctr=FastHistogramObserver.with_args(eps=2**-12),  # torchao's, faster
)

# A16W8's activations (TFLite's 16x8 convention): symmetric, zero point 0, over the observed
# min / max (int16 has the resolution to need no clipping).
ACTIVATION16_QSPEC = QuantizationSpec(
    dtype=torch.int16,
    quant_min=-32768,
    quant_max=32767,
    qscheme=torch.per_tensor_symmetric,
    is_dynamic=False,
    observer_or_fake_quant_ctr=MinMaxObserver.with_args(eps=2**-20),
)
ACTIVATION_QSPECS = {8: ACTIVATION_QSPEC, 16: ACTIVATION16_QSPEC}
INT16_OPS = frozenset(target for i in IMPORTS if i.int16 for target in i.targets)

# Weight ranges by bits, symmetric: the observer's scale is max|w| / high (a range of -8..7 would
# make it max|w| / 7.5 and clip the largest weight). Lowering takes any range inside -8..7 as int4
# (a user's own quantizer may use -8).
WEIGHT_RANGES = {8: (-127, 127), 4: (-7, 7)}


def weight_qspec(ch_axis: int | None, bits: int = 8, observer: object = None) -> QuantizationSpec:
    """Symmetric weights of `bits` (8, 4), per channel along `ch_axis` (observed by `observer`,
    PerChannelMinMaxObserver unless given), or per tensor when None."""
    low, high = WEIGHT_RANGES[bits]
    if ch_axis is None:
        return QuantizationSpec(dtype=torch.int8, quant_min=low, quant_max=high, qscheme=torch.per_tensor_symmetric,
                                is_dynamic=False, observer_or_fake_quant_ctr=MinMaxObserver.with_args(eps=2**-12))
    return QuantizationSpec(dtype=torch.int8, quant_min=low, quant_max=high, qscheme=torch.per_channel_symmetric,
                            ch_axis=ch_axis, is_dynamic=False,
                            observer_or_fake_quant_ctr=observer or PerChannelMinMaxObserver.with_args(eps=2**-12))


# by (output-channel axis (None: per tensor), bits)
WEIGHT_QSPECS = {(axis, bits): weight_qspec(axis, bits) for axis in (0, 1, None) for bits in WEIGHT_RANGES}
WEIGHT_QSPEC = WEIGHT_QSPECS[0, 8]

INT4_ROUNDINGS = ("gptq", "nearest")


def _bias_qparams(observers: list) -> tuple[torch.Tensor, torch.Tensor]:
    """Bias scale = input activation scale × per-channel weight scale, zero point 0."""
    act_scale, _ = observers[0].calculate_qparams()
    weight_scale, _ = observers[1].calculate_qparams()
    scale = (act_scale * weight_scale).to(torch.float32)
    return scale, torch.zeros_like(scale, dtype=torch.int32)


def _bias_qspec(node: Node, per_tensor: bool = False) -> DerivedQuantizationSpec:
    return DerivedQuantizationSpec(
        derived_from=[(node.args[0], node), (node.args[1], node)],
        derive_qparams_fn=_bias_qparams,
        dtype=torch.int32,
        quant_min=-(2**31) + 1,
        quant_max=2**31 - 1,
        qscheme=torch.per_tensor_symmetric if per_tensor else torch.per_channel_symmetric,
        ch_axis=None if per_tensor else 0,
    )


def _fused_activation(node: Node) -> Node | None:
    """The ReLU / ReLU6 that is `node`'s only user, if any."""
    if len(node.users) != 1:
        return None
    (user,) = node.users
    return user if user.target in FUSABLE_ACTIVATIONS else None


# Ops whose output clamp a ReLU / hardtanh that is their only user folds into.
FUSING_OPS = frozenset(target for i in IMPORTS if i.scheme in ("weighted", "binary", "matmul") for target in i.targets)


def _folds_into_producer(node: Node, root_of: dict[Node, Node]) -> bool:
    """`node` is a ReLU / hardtanh that its producer's annotation takes as its fused activation
    (a producer inside a pointwise region is no such producer: the activation joins the region)."""
    producer = node.args[0] if node.args else None
    return (node.target in FUSABLE_ACTIVATIONS and isinstance(producer, Node) and producer.target in FUSING_OPS
            and producer not in root_of and _fused_activation(producer) is node)


def _kept_quantization(node: Node, int16: bool = False,
                       unquantized: QuantizationSpec = ACTIVATION_QSPEC) -> QuantizationSpec | SharedQuantizationSpec:
    """An activation input's spec: the quantization its producer already gives it (a softmax's
    fixed 1/256, through any reshapes; with `int16`, a consumer with int16 kernels, an int16
    output), so that no requantization sits between them; else int8's own, or `unquantized`
    where no producer is quantized (a program input, a float op's output)."""
    producer = node
    while isinstance(producer, Node):
        annotation = producer.meta.get("quantization_annotation")
        output = annotation.output_qspec if annotation is not None else None
        if isinstance(output, FixedQParamsQuantizationSpec):
            return SharedQuantizationSpec(node)
        if int16 and output is ACTIVATION16_QSPEC:
            return ACTIVATION16_QSPEC
        if output is None:
            return unquantized
        if not isinstance(output, SharedQuantizationSpec) or not producer.args:
            break
        producer = producer.args[0]  # a reshape's or pool's output shares its input's
    return ACTIVATION_QSPEC


def within_module(path: str, prefix: str) -> bool:
    """Module `path` ("blocks.3.attn") is `prefix` ("blocks.3") or below it."""
    return bool(path) and (path == prefix or path.startswith(prefix + "."))


def _qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _module_stack(node: Node) -> list[tuple[str, str]]:
    """(path, qualified class name) of each module around `node`, outermost first."""
    return [(path, kind if isinstance(kind, str) else _qualified(kind))
            for path, kind in (node.meta.get("nn_module_stack") or {}).values()]


def _op_text(op: object) -> str:
    return op if isinstance(op, str) else str(op)


def _is_op(target: object, op: object) -> bool:
    """`target` (an OpOverload) is `op`: the same overload or packet, or its name with or without
    the "aten." prefix ("add", "aten.add")."""
    packet = getattr(target, "overloadpacket", None)
    if isinstance(op, str):
        return packet is not None and op.removeprefix("aten.") == packet.__name__
    return target == op or (packet is not None and packet == op)


@dataclass
class CortexMQuantizer(Quantizer):
    """Annotates linear and conv2d (each optionally followed by ReLU, ReLU6 or hardtanh), add
    (likewise), and pooling / reshapes with the output sharing the input's quantization.

    Leaving ops in float (they run in Ember's portable float32 kernels, with quantize /
    dequantize inserted around them; the compiler reports each one):
    - `skip_modules`: fully qualified submodule names ("head", "blocks.3.attn"): every op inside
      that submodule (or below it) stays in float.
    - `skip_module_types`: module classes (nn.LayerNorm, or a class of your own): every op inside
      an instance stays in float.
    - `skip_ops`: ATen ops, by name ("add", "softmax", "aten.mul") or as torch.ops.aten.*
      overloads or packets: every call of them stays in float.
    Ops the quantizer has no int8 pattern for stay in float anyway.

    Precision (PRECISIONS: "a8w8", "a8w4", "a16w8"), chosen like the skips, the most specific first:
    - `precision_modules`: {submodule name: precision}; the longest name that holds an op decides;
    - `precision_module_types`: {module class: precision}; the innermost instance decides;
    - `precision_ops`: {ATen op (as in skip_ops): precision};
    - `precision`: everything else ("a8w8" unless given).
    compiler.precision.choose() fills precision_modules for a flash budget or an accuracy bound.
    """

    skip_modules: tuple[str, ...] = ()
    skip_module_types: tuple[type, ...] = ()
    skip_ops: tuple = ()
    # One scale per weight tensor instead of one per output channel (lowering expands it to
    # per-channel requantization vectors, so the kernels are the same).
    per_tensor_weights: bool = False
    precision: str = "a8w8"
    precision_modules: Mapping[str, str] = field(default_factory=dict)
    precision_module_types: Mapping[type, str] = field(default_factory=dict)
    precision_ops: Mapping[object, str] = field(default_factory=dict)
    # How int4 weights of linears and conv2ds are rounded: "gptq" against the calibration data's
    # inputs (compiler/gptq.py), or "nearest" (each weight to its nearest code).
    int4_rounding: str = "gptq"

    def __post_init__(self) -> None:
        super().__init__()
        for name in ("skip_modules", "skip_module_types", "skip_ops"):
            value = getattr(self, name)
            if isinstance(value, (str, type)) or not isinstance(value, (tuple, list)):
                raise TypeError(f"CortexMQuantizer.{name} takes a tuple, e.g. {name}=({value!r},)")
            object.__setattr__(self, name, tuple(value))
        bad = [t for t in (*self.skip_module_types, *self.precision_module_types)
               if not (isinstance(t, type) and issubclass(t, torch.nn.Module))]
        if bad:
            raise TypeError(f"CortexMQuantizer.skip_module_types and precision_module_types take nn.Module classes, "
                            f"got {bad}")
        for name in ("precision_modules", "precision_module_types", "precision_ops"):
            value = getattr(self, name)
            if not isinstance(value, Mapping):
                raise TypeError(f"CortexMQuantizer.{name} takes a dict, e.g. {name}={{…: 'a8w4'}}")
            object.__setattr__(self, name, dict(value))
        if self.int4_rounding not in INT4_ROUNDINGS:
            raise ValueError(f"CortexMQuantizer.int4_rounding is {self.int4_rounding!r}: one of "
                             f"{', '.join(INT4_ROUNDINGS)}")
        for where, value in [("precision", self.precision),
                             *((f"{name}[{key!r}]", v) for name in ("precision_modules", "precision_module_types",
                                                                     "precision_ops")
                               for key, v in getattr(self, name).items())]:
            if value not in PRECISIONS:
                raise ValueError(f"CortexMQuantizer.{where} is {value!r}: a precision is one of "
                                 f"{', '.join(PRECISIONS)}")

    def transform_for_annotation(self, model: GraphModule) -> GraphModule:
        """Division by a tensor becomes a product with its reciprocal, where the division is to
        be quantized: the reciprocal is a function of one tensor (a table, with whatever computes
        the divisor: x / x.norm() is one table of the sum of squares), the product an int8 mul
        with broadcasting. PyTorch's quantized model is the rewritten graph, so the numerics
        contract holds; against the float model the reciprocal's int8 range costs accuracy where
        the divisor spans decades (a divisor through zero has no int8 form either way). A
        skipped division keeps float32 `a / b`."""
        graph, rewritten = model.graph, False
        for node in list(graph.nodes):
            if (node.op == "call_function" and node.target == aten.div.Tensor and len(node.args) == 2
                    and not node.kwargs and all(isinstance(a, Node) and a.op != "get_attr" for a in node.args)
                    and isinstance(node.args[1].meta.get("val"), torch.Tensor) and self.float_reason(node) is None):
                numerator, divisor = node.args
                with graph.inserting_before(node):
                    reciprocal = graph.call_function(aten.reciprocal.default, (divisor,))
                    product = graph.call_function(aten.mul.Tensor, (numerator, reciprocal))
                for new, value in ((reciprocal, torch.reciprocal(divisor.meta["val"])), (product, node.meta["val"])):
                    new.meta.update({k: v for k, v in node.meta.items() if k != "val"}, val=value)
                node.replace_all_uses_with(product)
                graph.erase_node(node)
                rewritten = True
        if rewritten:
            model.recompile()
        return model

    def annotate(self, model: GraphModule) -> GraphModule:
        schemes = {"weighted": self._annotate_weighted, "binary": self._annotate_binary,
                   "shared": self._annotate_shared, "softmax": self._annotate_softmax,
                   "own_scale": self._annotate_own_scale, "shared_inputs": self._annotate_shared_inputs,
                   "matmul": self._annotate_matmul, "concatenation": self._annotate_concatenation,
                   "recurrent": self._annotate_recurrent}
        annotators = {target: schemes[i.scheme] for i in IMPORTS if i.scheme is not None for target in i.targets}
        nodes = list(model.graph.nodes)
        root_of = self.pointwise_regions(model)
        for node in nodes:
            annotate = annotators.get(node.target) if node.op == "call_function" else None
            if (annotate is not None and node not in root_of and self.float_reason(node) is None
                    and "quantization_annotation" not in node.meta):
                annotate(node)
        for root in dict.fromkeys(root_of.values()):
            self._annotate_region(root, [n for n in nodes if root_of.get(n) is root])
        return model

    def validate(self, model: GraphModule) -> None:
        pass

    def pointwise_regions(self, model: GraphModule) -> dict[Node, Node]:
        """The root of every node that is part of an elementwise function of one tensor (quantized
        at its input and outputs only, lowered to a table: compiler/pointwise.py)."""
        return regions(list(model.graph.nodes), lambda n: attr_value(model, n.target) if n.op == "get_attr" else None,
                       lambda n, found: self.float_reason(n) is None and not _folds_into_producer(n, found)
                       and not self._part_of_attention(n))

    def _part_of_attention(self, node: Node) -> bool:
        """A product's scale or a softmax's mask (compiler/attention.py), which the batch_matmul's
        and the softmax's annotations take (unless the product or the softmax stays in float)."""
        if product_scale(node) is not None:
            return self.float_reason(node.args[0]) is None
        return softmax_mask(node) is not None and self.float_reason(next(iter(node.users))) is None

    def check_names(self, model: torch.nn.Module) -> None:
        """Every skip_modules entry names a submodule of `model` (ModelError with the closest
        names otherwise: a typo would silently quantize what was meant to stay float)."""
        import difflib

        names = [name for name, _ in model.named_modules() if name]
        for option, prefix in [*(("skip_modules", p) for p in self.skip_modules),
                               *(("precision_modules", p) for p in self.precision_modules)]:
            if not any(within_module(name, prefix) for name in names):
                closest = difflib.get_close_matches(prefix, names, n=3, cutoff=0.5)
                raise ModelError(f"{option} names {prefix!r}, which is no submodule of the model"
                                 + (f"; closest: {', '.join(closest)}" if closest else
                                    f"; its submodules: {', '.join(names[:8])}{' …' if len(names) > 8 else ''}"))

    def float_reason(self, node: Node) -> str | None:
        """Why the config leaves `node` in float ("left in float by quantizer config (…)"), or
        None. Reads only the node's target and module stack, so it answers alike on the float
        graph it annotates and on the re-exported quantized graph the compiler imports."""
        stack = _module_stack(node)
        for path, _ in stack:
            for prefix in self.skip_modules:
                if within_module(path, prefix):
                    return f"left in float by quantizer config (skip_modules {prefix!r})"
        for _, name in stack:
            for skipped in self.skip_module_types:
                if name == _qualified(skipped):
                    return f"left in float by quantizer config (skip_module_types {skipped.__name__})"
        for op in self.skip_ops:
            if _is_op(node.target, op):
                return f"left in float by quantizer config (skip_ops {_op_text(op)!r})"
        return None

    def precision_of(self, node: Node) -> tuple[str, str]:
        """(`node`'s precision, what chose it: "precision_modules 'head'", … or "default"), read
        from the node's target and module stack only, like float_reason."""
        stack = _module_stack(node)
        named = [(len(prefix), prefix) for prefix in self.precision_modules
                 if any(within_module(path, prefix) for path, _ in stack)]
        if named:
            prefix = max(named)[1]
            return self.precision_modules[prefix], f"precision_modules {prefix!r}"
        for _, name in reversed(stack):
            for kind, precision in self.precision_module_types.items():
                if name == _qualified(kind):
                    return precision, f"precision_module_types {kind.__name__}"
        for op, precision in self.precision_ops.items():
            if _is_op(node.target, op):
                return precision, f"precision_ops {_op_text(op)!r}"
        return self.precision, "default"

    def weight_bits(self, node: Node) -> int:
        return PRECISIONS[self.precision_of(node)[0]][1]

    def activation_bits(self, node: Node) -> int:
        """16 where `node`'s precision has int16 activations and its op has int16 kernels, else 8."""
        bits = PRECISIONS[self.precision_of(node)[0]][0]
        return bits if bits == 8 or node.target in INT16_OPS else 8

    def _activation(self, node: Node) -> QuantizationSpec:
        return ACTIVATION_QSPECS[self.activation_bits(node)]

    def _weight_qspec(self, node: Node, ch_axis: int) -> QuantizationSpec:
        """`node`'s weights at its precision's bits (on GPTQ's grid where compiler/gptq.py rounded them)."""
        bits = self.weight_bits(node)
        levels = node.args[1].meta.get(LEVELS) if isinstance(node.args[1], Node) else None
        if bits == 4 and levels is not None and not self.per_tensor_weights:
            return weight_qspec(ch_axis, 4, GridObserver.with_args(levels=levels, eps=2**-12))
        return WEIGHT_QSPECS[None if self.per_tensor_weights else ch_axis, bits]

    def gptq_nodes(self, model: GraphModule) -> list[Node]:
        """The linears and conv2ds whose int4 weights compiler/gptq.py rounds (int4_rounding "gptq")."""
        if self.int4_rounding != "gptq" or self.per_tensor_weights:
            return []
        return [n for n in model.graph.nodes if n.op == "call_function" and n.target in GPTQ_ROUNDED
                and isinstance(n.args[1], Node) and n.args[1].op == "get_attr" and self.float_reason(n) is None
                and self.weight_bits(n) == 4]

    def _annotate_weighted(self, node: Node) -> None:
        if node.target == aten.conv_transpose2d.input and len(node.args) > 6 and node.args[6] != 1:
            return  # grouped: its weight's axis 1 is not the output channels; lowering names it
        input_map = {node.args[0]: self._activation(node),
                     node.args[1]: self._weight_qspec(node, WEIGHTED_OPS[node.target])}
        if len(node.args) > 2 and node.args[2] is not None:
            input_map[node.args[2]] = _bias_qspec(node, self.per_tensor_weights)
        self._annotate_with_activation(node, input_map)

    def _annotate_matmul(self, node: Node) -> None:
        """Two activations; or an activation times a constant 2-D [K, N] (a parameter or buffer:
        a get_attr node), quantized as weights with its columns as output channels."""
        a, b = node.args[:2]
        constant = isinstance(b, Node) and b.op == "get_attr" and b.meta["val"].dim() == 2
        input_map = {a: _kept_quantization(a), b: self._weight_qspec(node, 1) if constant else _kept_quantization(b)}
        (scale,) = node.users if len(node.users) == 1 else (None,)
        if scale is not None and product_scale(scale) is not None and self.float_reason(scale) is None:
            # q kᵀ · number is quantized once, after the number (its batch_matmul's requantization)
            node.meta["quantization_annotation"] = QuantizationAnnotation(input_qspec_map=input_map, _annotated=True)
            self._annotate_with_activation(scale, {})
            return
        self._annotate_with_activation(node, input_map)

    def _annotate_shared_inputs(self, node: Node) -> None:
        """min / max: both inputs and the output share the first input's quantization."""
        inputs = [a for a in node.args[:2] if isinstance(a, Node)]
        if len(inputs) != 2:
            return  # against a Python number: left in float, lowering names it
        first, second = inputs
        shared = SharedQuantizationSpec((first, node))
        node.meta["quantization_annotation"] = QuantizationAnnotation(
            input_qspec_map={first: ACTIVATION_QSPEC, second: shared}, output_qspec=shared, _annotated=True)

    def _annotate_binary(self, node: Node) -> None:
        inputs = [a for a in node.args[:2] if isinstance(a, Node)]
        if len(inputs) != 2:
            return  # against a number: a pointwise function of one tensor (a table), or float
        self._annotate_with_activation(node, {a: self._activation(node) for a in inputs})

    def _annotate_own_scale(self, node: Node) -> None:
        node.meta["quantization_annotation"] = QuantizationAnnotation(
            input_qspec_map={node.args[0]: ACTIVATION_QSPEC}, output_qspec=ACTIVATION_QSPEC, _annotated=True)

    def _annotate_region(self, root: Node, members: list[Node]) -> None:
        """A pointwise function of `root`: its input quantized (unless the producer's output
        already is), each member read outside the region quantized, nothing inside."""
        annotation = root.meta.get("quantization_annotation")
        quantized_root = annotation is not None and annotation.output_qspec is not None
        # an int16 root (an A16W8 layer's output): an int16 table (compiler/ops/lut.py), int16 out
        output = ACTIVATION16_QSPEC if quantized_root and _kept_quantization(root, int16=True) is ACTIVATION16_QSPEC \
            else ACTIVATION_QSPEC
        inside = set(members)
        for node in members:
            read_outside = any(user not in inside for user in node.users) and node.meta["val"].is_floating_point()
            node.meta["quantization_annotation"] = QuantizationAnnotation(
                input_qspec_map={} if quantized_root or root not in node.all_input_nodes else {root: ACTIVATION_QSPEC},
                output_qspec=output if read_outside else None, _annotated=True)

    def _annotate_concatenation(self, node: Node) -> None:
        """All inputs and the output share the first input's quantization: a pure copy."""
        first, *rest = node.args[0]
        shared = SharedQuantizationSpec((first, node))
        own = ACTIVATION16_QSPEC if _kept_quantization(first, node.target in INT16_OPS) is ACTIVATION16_QSPEC \
            else ACTIVATION_QSPEC  # int16 where its first input is
        node.meta["quantization_annotation"] = QuantizationAnnotation(
            input_qspec_map={first: own, **{other: shared for other in rest if other is not first}},
            output_qspec=shared, _annotated=True)

    def _annotate_recurrent(self, node: Node) -> None:
        from compiler.ops.recurrent import states_of, weights_of

        input_map = {node.args[0]: ACTIVATION_QSPEC}
        for state in states_of(node):
            if isinstance(state, Node) and state.op != "get_attr":  # a constant (zero) state stays float
                input_map[state] = ACTIVATION_QSPEC
        for weight in weights_of(node):
            input_map[weight] = WEIGHT_QSPECS[None if self.per_tensor_weights else 0, 8]  # no int4 kernel
        node.meta["quantization_annotation"] = QuantizationAnnotation(input_qspec_map=input_map, _annotated=True)
        for item in node.users:  # operator.getitem of y, h_n (, c_n)
            item.meta["quantization_annotation"] = QuantizationAnnotation(output_qspec=ACTIVATION_QSPEC,
                                                                          _annotated=True)

    def _annotate_softmax(self, node: Node) -> None:
        source = node.args[0]
        if softmax_mask(source) is not None and self.float_reason(source) is None:
            # the scores are quantized before the mask (-inf has no int8 code): softmax applies it
            scores = source.args[2]
            source.meta["quantization_annotation"] = QuantizationAnnotation(
                input_qspec_map={scores: ACTIVATION_QSPEC}, _annotated=True)
            node.meta["quantization_annotation"] = QuantizationAnnotation(
                output_qspec=SOFTMAX_OUTPUT_QSPEC, _annotated=True)
            return
        node.meta["quantization_annotation"] = QuantizationAnnotation(
            input_qspec_map={source: ACTIVATION_QSPEC}, output_qspec=SOFTMAX_OUTPUT_QSPEC, _annotated=True)

    def _annotate_shared(self, node: Node) -> None:
        source = node.args[0]
        node.meta["quantization_annotation"] = QuantizationAnnotation(
            input_qspec_map={source: _kept_quantization(source, node.target in INT16_OPS, self._activation(node))},
            output_qspec=SharedQuantizationSpec((source, node)),
            _annotated=True,
        )

    def _annotate_with_activation(self, node: Node, input_map: dict) -> None:
        """Output spec on `node`, or on the ReLU / hardtanh that is its only user (fused)."""
        activation = _fused_activation(node)
        output = self._activation(node)
        node.meta["quantization_annotation"] = QuantizationAnnotation(
            input_qspec_map=input_map,
            output_qspec=None if activation is not None else output,
            _annotated=True,
        )
        if activation is not None:
            activation.meta["quantization_annotation"] = QuantizationAnnotation(output_qspec=output, _annotated=True)


class StateSharing(Quantizer):
    """`inner`'s annotation, then each state input quantized exactly as the output that feeds it
    (`pairs`: input index, output index, as compiler.lower's `state=`): one observer sees both,
    so the PT2E model's own round trip (dequantize the output, quantize it as the next input) is
    the identity, and the program's persistent tensor needs no requantize (passes/bind_state.py)."""

    def __init__(self, inner: Quantizer, pairs: tuple[tuple[int, int], ...]) -> None:
        super().__init__()
        self.inner, self.pairs = inner, pairs

    def transform_for_annotation(self, model: GraphModule) -> GraphModule:
        return self.inner.transform_for_annotation(model)

    def annotate(self, model: GraphModule) -> GraphModule:
        self.inner.annotate(model)
        inputs = [n for n in model.graph.nodes if n.op == "placeholder"]
        outputs = list(model.graph.output_node().args[0])
        for i, j in self.pairs:
            if not (0 <= i < len(inputs) and 0 <= j < len(outputs)):
                continue  # bind_state names the bad pair
            source, state = outputs[j], inputs[i]
            made = source.meta.get("quantization_annotation") if isinstance(source, Node) else None
            readers = [user for user in state.users
                       if state in getattr(user.meta.get("quantization_annotation"), "input_qspec_map", {})]
            if made is None or not readers:
                continue  # made or read in float: bind_state refuses it by name
            first = (state, readers[0])
            if isinstance(made.output_qspec, FixedQParamsQuantizationSpec):  # tanh, sigmoid: the input takes it
                for reader in readers:
                    reader.meta["quantization_annotation"].input_qspec_map[state] = made.output_qspec
            elif isinstance(made.output_qspec, QuantizationSpec):
                # observed: the output shares the state's observer on its first reader (a shared
                # spec must name an earlier edge, and the readers come before the next state's op)
                made.output_qspec = SharedQuantizationSpec(first)
                for reader in readers[1:]:
                    reader.meta["quantization_annotation"].input_qspec_map[state] = SharedQuantizationSpec(first)
            # else shared with an input of its own: the program requantizes (bind_state)
        return model

    def validate(self, model: GraphModule) -> None:
        self.inner.validate(model)
