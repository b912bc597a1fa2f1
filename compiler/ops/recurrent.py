"""What the GRU and LSTM records share (compiler/ops/gru.py, lstm.py): the forms they take whole,
their import, calibration of the ranges PT2E cannot see, lowering, options and scratch.

Export keeps `aten.gru.input` / `aten.lstm.input` whole (the importer takes them, so the
decomposition table leaves them; compiler/decompositions.py splits a 2-layer module into two
1-layer calls and unrolls what `takes_whole` refuses, as PyTorch itself would). One call becomes
one op over all time steps, its weights stored once.

Quantization (CortexMQuantizer scheme "recurrent"): the input and a given initial state are int8
activations, w_ih / w_hh int8 symmetric per gate row; the biases stay float and are quantized here
(b_ih to int32 at the input accumulator's scale, b_hh to Q3.12 codes); each output (y, h_n, c_n)
has its own int8 observer. The hidden state carried between steps is int16 Q0.15, not y's int8:
PT2E carries a float h, and an int8 h at y's calibrated range clips where a later input drives h
past it (then every later step inherits the error: 5 LSB in tests/zoo's gru_two_layers_time_first),
while h lies in (-1, 1) by construction (Q0.15; a given initial state reaching past ±1 takes
integer bits from the fraction: hidden_bits). Gate pre-activations are Q3.12 int16 (TFLite's integer
LSTM); the LSTM's cell state is int16 at 2^-cell_bits, chosen from the cell's calibrated range:
PT2E observes only the op's inputs and outputs, so during calibration `calibrate` runs the float
cell on the op's very inputs and records the range of c (and of h) over every step
(compiler/frontend.py).
"""
from __future__ import annotations

import ctypes
import math
from dataclasses import dataclass

import numpy as np
import torch
from torch.fx import Node

from compiler import reference
from compiler.aten_node import origin_of
from compiler.errors import UnsupportedOpError
from compiler.ir import Graph, Op, Quant, Tensor
from compiler.quantized_pattern import add_constant, dequantized_source, requantization
from compiler.ops.spec import Import, Lowering, OpSpec
from compiler.schema import program_generated as fb

GATES = {"gru": 3, "lstm": 4}
MAX_LAYERS = 2  # a 2-layer module becomes two ops; deeper ones unroll


def _shape(value) -> tuple:
    return tuple((value.meta["val"] if isinstance(value, Node) else value).shape)


def takes_whole(kind: str, x, hx, params, has_biases, num_layers, dropout, train, bidirectional,
                batch_first) -> str | None:
    """Why Ember's `kind` op cannot take this aten.gru.input / aten.lstm.input call (None: it can,
    as `num_layers` ops)."""
    per_layer = 4 if has_biases else 2
    if bidirectional:
        return "a bidirectional layer"
    if not 1 <= num_layers <= MAX_LAYERS:
        return f"{num_layers} layers (at most {MAX_LAYERS})"
    if train and dropout > 0:
        return "dropout in training mode"
    if len(params) != num_layers * per_layer:
        return "a projection (proj_size)"
    if _shape(params[1])[-1] > reference.RNN_HIDDEN_MAX:
        return f"a hidden size above {reference.RNN_HIDDEN_MAX}"
    if x.dim() != 3:
        return "an unbatched input"
    return None


def read(kind: str):
    """Import.read of aten.<kind>.input: (the importer's kind, attrs); refuses what takes_whole does."""
    def read_node(node: Node, args: list) -> tuple[str, dict]:
        x, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first = node.args[:9]
        why = takes_whole(kind, x.meta["val"], hx, params, has_biases, num_layers, dropout, train, bidirectional,
                          batch_first)
        if why is None and num_layers != 1:
            why = "more than one layer in one call (compiler/decompositions.py splits them)"
        if why is not None:
            raise UnsupportedOpError(f"{kind} with {why}", origin_of(node))
        return f"aten.{kind}", {"batch_first": bool(batch_first), "has_biases": bool(has_biases),
                                "ranges": dict(node.meta.get("ember_ranges", {}))}
    return read_node


def states_of(node: Node) -> list:
    """The initial state arguments of a gru (hx) or lstm ([h0, c0]) node."""
    hx = node.args[1]
    return list(hx) if isinstance(hx, (list, tuple)) else [hx]


def weights_of(node: Node) -> list:
    """w_ih, w_hh of each layer of the call (what the quantizer gives int8 per-row observers)."""
    params, has_biases = node.args[2], node.args[3]
    per_layer = 4 if has_biases else 2
    return [w for k, w in enumerate(params) if k % per_layer < 2]


def calibrate(kind: str):
    """Import.calibrate: (node, its float argument values, its result) -> the ranges the op's
    lowering needs and PT2E does not observe: every step's hidden state (y), and for the LSTM the
    cell state, by running the float cell on the same inputs (PyTorch's equations)."""
    def ranges(node: Node, args: tuple, result) -> dict[str, tuple[float, float]]:
        y = result[0]
        found = {"hidden": (float(y.min()), float(y.max()))}
        if kind == "lstm":
            x, (h, c), params, has_biases = args[0], args[1], args[2], args[3]
            w_ih, w_hh = params[0], params[1]
            b = params[2] + params[3] if has_biases else 0
            xs = x.transpose(0, 1) if args[8] else x
            h, c = h[0], c[0]
            low = high = 0.0
            for t in range(xs.shape[0]):
                i, f, g, o = (xs[t] @ w_ih.T + h @ w_hh.T + b).chunk(4, dim=-1)
                c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
                h = torch.sigmoid(o) * torch.tanh(c)
                low, high = min(low, float(c.min())), max(high, float(c.max()))
            found["cell"] = (low, high)
        return found
    return ranges


def cell_bits(cell_range: tuple[float, float] | None) -> int:
    """The cell state's fraction bits: the int16 range covers twice the calibrated |c| (one bit
    of headroom for inputs beyond the calibration's), 8..15 (|c| < 128 .. < 1)."""
    if not cell_range:
        return 12
    peak = max(abs(cell_range[0]), abs(cell_range[1]), 2.0 ** -8)
    integer_bits = max(0, math.ceil(math.log2(2.0 * peak)))
    return int(np.clip(15 - integer_bits, reference.CELL_BITS_MIN, reference.CELL_BITS_MAX))


def _range_quant(low: float, high: float) -> Quant:
    """int8 asymmetric quantization covering [low, high] and 0 (a MinMax observer's)."""
    low, high = min(low, 0.0), max(high, 0.0)
    scale = max((high - low) / 255.0, 2.0 ** -12)
    zero_point = int(np.clip(-128 - round(low / scale), -128, 127))
    return Quant.per_tensor(scale, zero_point)


def _multiplier(real: float) -> tuple[int, int]:
    multiplier, shift = requantization(np.array([real]))
    return int(multiplier[0]), int(shift[0])


@dataclass
class _Output:
    tensor: str  # the int8 tensor the op writes
    quant: Quant
    quantize: Op | None  # the quantize it replaces


def _output(graph: Graph, op: Op, name: str, fallback: Quant | None, what: str) -> _Output | None:
    """The int8 output behind float output `name`: its quantize's, or a new tensor at `fallback`."""
    consumers = graph.consumers(name)
    if len(consumers) == 1 and consumers[0].kind == "quantize":
        return _Output(consumers[0].outputs[0], consumers[0].attrs["quant"], consumers[0])
    if consumers:
        raise UnsupportedOpError(f"float {op.kind.removeprefix('aten.')} {what}", op.origin,
                                 "Quantize the whole model with CortexMQuantizer (the output is read unquantized).")
    if fallback is None:
        return None
    shape = graph.tensors[name].shape
    tensor = graph.unique_name(f"{name}_int8")
    graph.add_tensor(Tensor(tensor, "int8", shape, quant=fallback))
    return _Output(tensor, fallback, None)


def _state(graph: Graph, op: Op, name: str, fallback: Quant) -> tuple[str, Quant] | None:
    """An initial state: (its int8 tensor, quantization), or None for a zero state. A constant
    float state (PyTorch's zeros, folded) is zero or quantized here at `fallback`."""
    source = dequantized_source(graph, name, "int8")
    if source is not None:
        return source[0].name, source[1]
    tensor = graph.tensors[name]
    if tensor.is_constant and tensor.dtype == "float32":
        if not np.any(tensor.data):
            return None
        scale, zp = float(fallback.scale[0]), int(fallback.zero_point[0])
        q = reference.quantize_f32_s8(tensor.data.reshape(tensor.shape[-2:]), np.float32(1.0 / scale), zp)
        return add_constant(graph, f"{name}_int8", "int8", q.astype(np.int32), fallback), fallback
    raise UnsupportedOpError(f"{op.kind.removeprefix('aten.')} with an unquantized initial state", op.origin,
                             "Quantize the whole model with CortexMQuantizer.")


def _weights(graph: Graph, op: Op, name: str, what: str) -> tuple[np.ndarray, np.ndarray]:
    """(int8 weights as int32, per-row scales) of a constant dequantized per gate row."""
    source = dequantized_source(graph, name, "int8")
    if source is None or not source[0].is_constant:
        raise UnsupportedOpError(f"{op.kind.removeprefix('aten.')} with unquantized {what}", op.origin,
                                 "Quantize with CortexMQuantizer (int8 weights, symmetric per gate row).")
    tensor, quant = source
    if np.any(quant.zero_point != 0) or quant.axis not in (None, 0):
        raise UnsupportedOpError(f"{op.kind.removeprefix('aten.')} with asymmetric {what}", op.origin,
                                 "Quantize with CortexMQuantizer (symmetric, per gate row).")
    rows = tensor.shape[0]
    return tensor.data.astype(np.int32), np.broadcast_to(quant.scale.astype(np.float64), (rows,)).copy()


def _bias(graph: Graph, name: str | None, rows: int, scale: np.ndarray, weights: np.ndarray, zp: int) -> np.ndarray:
    """A float bias as int32 at the accumulator scale, with zp · Σ w folded in."""
    values = np.zeros(rows) if name is None else graph.tensors[name].data.astype(np.float64).reshape(rows)
    folded = np.round(values / scale) - zp * weights.sum(axis=1, dtype=np.int64)
    if np.any(np.abs(folded) >= 2**31):
        raise UnsupportedOpError("recurrent layer whose folded bias overflows int32", "")
    return folded.astype(np.int32)


def _given_state_quant(graph: Graph, names: list[str]) -> Quant | None:
    """The quantization of a given (int8) initial hidden state, None for a zero or float one."""
    source = dequantized_source(graph, names[0], "int8") if names else None
    return source[1] if source is not None else None


def hidden_bits(state: Quant | None) -> int:
    """The hidden state's fraction bits: 15 (Q0.15: what the recurrence produces lies in (-1, 1)),
    fewer where a given initial state's int8 range reaches past ±1, so that h0 enters unclipped."""
    if state is None:
        return reference.HIDDEN_BITS_MAX
    scale, zp = float(state.scale[0]), int(state.zero_point[0])
    peak = max(abs(scale * (-128 - zp)), abs(scale * (127 - zp)))
    integer_bits = max(0, math.ceil(math.log2(peak))) if peak > 1.0 else 0
    return int(max(reference.HIDDEN_BITS_MIN, reference.HIDDEN_BITS_MAX - integer_bits))


def _gate_bias(graph: Graph, name: str | None, rows: int) -> np.ndarray:
    """A float recurrent bias as Q3.12 codes (added after the recurrent part's requantization;
    |b| >= 8 saturates the gate as the float sum would): int32."""
    values = np.zeros(rows) if name is None else graph.tensors[name].data.astype(np.float64).reshape(rows)
    return np.clip(np.round(values * 2.0 ** reference.GATE_FRACTION_BITS), -(2**31), 2**31 - 1).astype(np.int32)


def lower(kind: str):
    """Lowering of aten.<kind>: one `kind` op, outputs y, h_n (, c_n)."""
    gates = GATES[kind]
    n_states = 1 if kind == "gru" else 2

    def lower_op(graph: Graph, imported: Op) -> Op:
        a = imported.attrs
        x_name, *rest = imported.inputs
        state_names, params = rest[:n_states], rest[n_states:]
        x = dequantized_source(graph, x_name, "int8")
        if x is None:
            raise UnsupportedOpError(f"float {kind}", imported.origin,
                                     "Only quantized recurrent layers lower; check that CortexMQuantizer annotated it.")
        x_tensor, x_quant = x
        w_ih, s_ih = _weights(graph, imported, params[0], "w_ih")
        w_hh, s_hh = _weights(graph, imported, params[1], "w_hh")
        rows, hidden = w_hh.shape
        if rows != gates * hidden or w_ih.shape[0] != rows:
            raise UnsupportedOpError(f"{kind} with weights {list(w_ih.shape)}, {list(w_hh.shape)}", imported.origin)
        ranges = a.get("ranges", {})
        outputs = imported.outputs
        y = _output(graph, imported, outputs[0], _range_quant(*ranges.get("hidden", (-1.0, 1.0))), "output")
        hn = _output(graph, imported, outputs[1], y.quant, "h_n")
        cn = (_output(graph, imported, outputs[2], _range_quant(*ranges.get("cell", (-1.0, 1.0))), "c_n")
              if kind == "lstm" else None)
        s_x, zp_x = float(x_quant.scale[0]), int(x_quant.zero_point[0])
        given_quant = _given_state_quant(graph, state_names)
        bits = hidden_bits(given_quant)
        h_unit = 2.0 ** -bits  # the hidden state is int16 at 2^-hidden_bits
        biases = params[2:4] if a["has_biases"] else [None, None]
        b_ih = _bias(graph, biases[0], rows, s_x * s_ih, w_ih, zp_x)
        b_hh = _gate_bias(graph, biases[1], rows)
        gate_unit = 2.0 ** reference.GATE_FRACTION_BITS
        in_m, in_s = requantization(s_x * s_ih * gate_unit)
        rec_m, rec_s = requantization(h_unit * s_hh * gate_unit)
        attrs = {"batch_first": a["batch_first"], "input_multiplier": in_m, "input_shift": in_s,
                 "recurrent_multiplier": rec_m, "recurrent_shift": rec_s, "hidden_bits": bits}
        # y and h_n: int8 views of the GRU's h, of the LSTM's Q0.30 o·tanh(c) before rounding
        value_unit = h_unit if kind == "gru" else 2.0 ** -30
        for prefix, out in (("hidden", y), ("hn", hn)):
            attrs[f"{prefix}_offset"] = int(out.quant.zero_point[0])
            attrs[f"{prefix}_multiplier"], attrs[f"{prefix}_shift"] = _multiplier(value_unit / float(out.quant.scale[0]))
        states = [_state(graph, imported, name, q) for name, q in
                  zip(state_names, [y.quant, cn.quant if cn is not None else None])]
        given = any(s is not None for s in states)
        if given:  # both or neither: a zero one becomes its int8 zero point
            states = [s if s is not None else (_zero_state(graph, name, q), q)
                      for s, name, q in zip(states, state_names, [y.quant, cn.quant if cn else None])]
            attrs["state_offset"] = int(states[0][1].zero_point[0])
            attrs["state_multiplier"], attrs["state_shift"] = _multiplier(float(states[0][1].scale[0]) / h_unit)
        else:
            attrs["state_offset"], attrs["state_multiplier"], attrs["state_shift"] = 0, 0, 0
        if kind == "lstm":
            bits = cell_bits(ranges.get("cell"))
            attrs["cell_bits"] = bits
            attrs["cn_offset"] = int(cn.quant.zero_point[0])
            attrs["cn_multiplier"], attrs["cn_shift"] = _multiplier(2.0 ** -bits / float(cn.quant.scale[0]))
            if given:
                c_quant = states[1][1]
                attrs["cell_in_offset"] = int(c_quant.zero_point[0])
                attrs["cell_in_multiplier"], attrs["cell_in_shift"] = _multiplier(float(c_quant.scale[0]) * 2.0 ** bits)
            else:
                attrs["cell_in_offset"], attrs["cell_in_multiplier"], attrs["cell_in_shift"] = 0, 0, 0
        stem = y.tensor
        inputs = [x_tensor.name,
                  add_constant(graph, f"{stem}_w_ih", "int8", w_ih),
                  add_constant(graph, f"{stem}_w_hh", "int8", w_hh),
                  add_constant(graph, f"{stem}_b_ih", "int32", b_ih),
                  add_constant(graph, f"{stem}_b_hh", "int32", b_hh)]
        if given:
            inputs += [s[0] for s in states]
        x_tensor.quant = x_quant
        for s in states:
            if s is not None and not graph.tensors[s[0]].is_constant:
                graph.tensors[s[0]].quant = s[1]
        written = [y, hn] + ([cn] if cn is not None else [])
        lowered = Op(kind, inputs, [o.tensor for o in written], attrs, imported.origin)
        position = graph.ops.index(imported)
        for o in written:
            if o.quantize is not None:
                position = max(position, graph.ops.index(o.quantize))
        graph.ops.insert(position + 1, lowered)
        for o in written:
            if o.quantize is not None:
                graph.ops.remove(o.quantize)
        graph.ops.remove(imported)
        return lowered

    return lower_op


def _zero_state(graph: Graph, name: str, quant: Quant) -> str:
    shape = graph.tensors[name].shape[-2:]
    return add_constant(graph, f"{name}_zero", "int8", np.full(shape, int(quant.zero_point[0]), np.int32), quant)


def _params(op: Op) -> dict:
    return {**op.attrs, "batch_first": bool(op.attrs["batch_first"])}


def reference_of(kind: str):
    """The record's reference: (y, h_n[, c_n]) by reference.gru_s8 / lstm_s8."""
    def run(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
        x, w_ih, w_hh, b_ih, b_hh, *states = inputs
        if kind == "gru":
            return list(reference.gru_s8(x, w_ih, w_hh, b_ih, b_hh, states[0] if states else None, _params(op)))
        h0, c0 = states if states else (None, None)
        return list(reference.lstm_s8(x, w_ih, w_hh, b_ih, b_hh, h0, c0, _params(op)))
    return run


SCALARS = (("hidden_offset", "HiddenOffset"), ("hidden_multiplier", "HiddenMultiplier"), ("hidden_shift", "HiddenShift"),
           ("state_offset", "StateOffset"), ("state_multiplier", "StateMultiplier"), ("state_shift", "StateShift"),
           ("hn_offset", "HnOffset"), ("hn_multiplier", "HnMultiplier"), ("hn_shift", "HnShift"),
           ("cell_bits", "CellBits"), ("cell_in_offset", "CellInOffset"),
           ("cell_in_multiplier", "CellInMultiplier"), ("cell_in_shift", "CellInShift"),
           ("cn_offset", "CnOffset"), ("cn_multiplier", "CnMultiplier"), ("cn_shift", "CnShift"),
           ("hidden_bits", "HiddenBits"))
VECTORS = (("input_multiplier", "InputMultiplier"), ("input_shift", "InputShift"),
           ("recurrent_multiplier", "RecurrentMultiplier"), ("recurrent_shift", "RecurrentShift"))


def write(builder, op: Op) -> int:
    vectors = {name: builder.CreateNumpyVector(np.ascontiguousarray(op.attrs[attr], dtype=np.int32))
               for attr, name in VECTORS}
    fb.RecurrentOptionsStart(builder)
    fb.RecurrentOptionsAddBatchFirst(builder, int(bool(op.attrs["batch_first"])))
    for name, vector in vectors.items():
        getattr(fb, f"RecurrentOptionsAdd{name}")(builder, vector)
    for attr, name in SCALARS:
        if attr in op.attrs:
            getattr(fb, f"RecurrentOptionsAdd{name}")(builder, int(op.attrs[attr]))
    fb.RecurrentOptionsAddPaths(builder, op.attrs.get("paths", 0))
    return fb.RecurrentOptionsEnd(builder)


def read_options(kind: str):
    def read_table(table) -> dict:
        options = fb.RecurrentOptions()
        options.Init(table.Bytes, table.Pos)
        attrs = {"batch_first": bool(options.BatchFirst()), "paths": options.Paths()}
        attrs.update({attr: getattr(options, f"{name}AsNumpy")().astype(np.int32) for attr, name in VECTORS})
        attrs.update({attr: getattr(options, name)() for attr, name in SCALARS
                      if kind == "lstm" or not attr.startswith(("cell", "cn"))})
        return attrs
    return read_table


def macs(graph: Graph, op: Op) -> int:
    """Σ over steps and batch of the gates' two matrix-vector products."""
    x = graph.tensors[op.inputs[0]].shape
    rows, hidden = graph.tensors[op.inputs[2]].shape
    inputs = graph.tensors[op.inputs[1]].shape[1]
    return x[0] * x[1] * rows * (inputs + hidden)


def scratch(kind: str):
    """Bytes em_<kind>_s8_get_buffer_size asks for (the gate buffers)."""
    def size(lib: ctypes.CDLL, graph: Graph, op: Op) -> int:
        function = getattr(lib, f"em_{kind}_s8_get_buffer_size")
        function.restype, function.argtypes = ctypes.c_int32, [ctypes.c_int32]
        return int(function(graph.tensors[op.inputs[2]].shape[1]))
    return size


def shape_note(graph: Graph, op: Op) -> str:
    steps = graph.tensors[op.inputs[0]].shape[1 if op.attrs["batch_first"] else 0]
    return f" T={steps}"


def spec(kind: str, opcode: int, target: object) -> OpSpec:
    """The record of one recurrent op (`gru`, `lstm`), which differ only in their kind: its
    reference, import of `target` (aten.gru.input / aten.lstm.input), lowering and scratch."""
    return OpSpec(
        kind=kind,
        opcode=opcode,
        options_type=fb.OpOptions.RecurrentOptions,
        reference=reference_of(kind),
        write_options=write,
        read_options=read_options(kind),
        registration=f"em_op_{kind}",
        imports=(Import((target,), read(kind), "recurrent", calibrate=calibrate(kind), fixed_batch=True),),
        lowerings=(Lowering((f"aten.{kind}",), lower(kind)),),
        macs=macs,
        scratch=scratch(kind),
        shape_note=shape_note,
        path={"mve": "MVE gate rows (VMLADAV)", "dsp": "DSP 4 gate rows (SMLAD)", "scalar": "scalar 4 gate rows"},
        weighted=True,
    )
