"""Test programs built with the flatc-generated Python builders (compiler/schema/).

A `ProgramSpec` is plain data that tests mutate (wrong version, bad index, ...) before `build()`
turns it into program file bytes. `fc_program()` is a small valid FULLY_CONNECTED program
(`fc_int4_program()` the same with int4 weights); `pipeline_program()` wraps it in QUANTIZE /
DEQUANTIZE (float in, float out).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import flatbuffers
import numpy as np

from compiler import int4
from compiler.checksum import CHECKSUM_BYTES, with_checksum
from compiler.fixedpoint import quantize_multiplier  # noqa: F401 (re-exported for tests)
from compiler.schema import program_generated as fb

INT8, INT32, FLOAT32, INT4 = fb.DType.INT8, fb.DType.INT32, fb.DType.FLOAT32, fb.DType.INT4
DTYPE_BYTES = {INT8: 1, INT32: 4, FLOAT32: 4}


@dataclass
class TensorSpec:
    name: str
    dtype: int
    shape: list[int]
    buffer: int = -1
    arena: int = 0
    offset: int = 0
    size: int | None = None  # None: computed from shape and dtype
    scale: float | None = None
    zero_point: int | None = None
    initial_buffer: int = -1  # >= 0: a constant pinned to RAM, copied from that buffer at load

    def byte_size(self) -> int:
        if self.size is not None:
            return self.size
        if self.dtype == INT4:
            return int4.packed_bytes(tuple(self.shape))
        return int(np.prod(self.shape, dtype=np.int64)) * DTYPE_BYTES.get(self.dtype, 1)


@dataclass
class OpSpec:
    opcode: int
    inputs: list[int]
    outputs: list[int]
    options_type: int
    options: dict = field(default_factory=dict)


@dataclass
class ProgramSpec:
    tensors: list[TensorSpec]
    operators: list[OpSpec]
    inputs: list[int]
    outputs: list[int]
    buffers: list[bytes]
    arenas: list[tuple[str, int]]
    schema_version: int = 1
    pinned_constants: int | None = None  # None: the true count, as compiler/writer.py writes it
    inputs_kept: list[int] | None = None  # Program.inputs_kept; None: absent (every input consumed)
    tier: int = fb.Tier.SCALAR
    name: str = "test"
    target: str = "host"

    def copy(self) -> "ProgramSpec":
        return dataclasses.replace(
            self, tensors=[dataclasses.replace(t) for t in self.tensors],
            operators=[dataclasses.replace(o, options=dict(o.options)) for o in self.operators],
            inputs=list(self.inputs), outputs=list(self.outputs), buffers=list(self.buffers),
            arenas=list(self.arenas))


def _int_vector(builder, start_fn, values):
    start_fn(builder, len(values))
    for v in reversed(values):
        builder.PrependInt32(int(v))
    return builder.EndVector()


def _options(builder, op: OpSpec) -> int:
    o = op.options
    if op.options_type == fb.OpOptions.QuantizeOptions:
        fb.QuantizeOptionsStart(builder)
        fb.QuantizeOptionsAddInvScale(builder, o.get("inv_scale", 1.0))
        fb.QuantizeOptionsAddZeroPoint(builder, o.get("zero_point", 0))
        return fb.QuantizeOptionsEnd(builder)
    if op.options_type == fb.OpOptions.DequantizeOptions:
        fb.DequantizeOptionsStart(builder)
        fb.DequantizeOptionsAddScale(builder, o.get("scale", 1.0))
        fb.DequantizeOptionsAddZeroPoint(builder, o.get("zero_point", 0))
        return fb.DequantizeOptionsEnd(builder)
    if op.options_type == fb.OpOptions.FullyConnectedOptions:
        mult = _int_vector(builder, fb.FullyConnectedOptionsStartOutputMultiplierVector,
                           o["output_multiplier"])
        shift = _int_vector(builder, fb.FullyConnectedOptionsStartOutputShiftVector, o["output_shift"])
        fb.FullyConnectedOptionsStart(builder)
        fb.FullyConnectedOptionsAddOutputOffset(builder, o.get("output_offset", 0))
        fb.FullyConnectedOptionsAddActivationMin(builder, o.get("activation_min", -128))
        fb.FullyConnectedOptionsAddActivationMax(builder, o.get("activation_max", 127))
        fb.FullyConnectedOptionsAddOutputMultiplier(builder, mult)
        fb.FullyConnectedOptionsAddOutputShift(builder, shift)
        return fb.FullyConnectedOptionsEnd(builder)
    return 0


def build(spec: ProgramSpec) -> bytes:
    b = flatbuffers.Builder(1024)
    buffers = []
    for data in spec.buffers:
        b.StartVector(1, len(data), 16)  # force_align: 16
        b.head = b.head - len(data)
        b.Bytes[b.head:b.head + len(data)] = data
        vec = b.EndVector()
        fb.BufferStart(b)
        fb.BufferAddData(b, vec)
        buffers.append(fb.BufferEnd(b))
    tensors = []
    for t in spec.tensors:
        name = b.CreateString(t.name)
        shape = _int_vector(b, fb.TensorStartShapeVector, t.shape)
        quant = None
        if t.scale is not None:
            fb.QuantizationStartScaleVector(b, 1)
            b.PrependFloat32(t.scale)
            scale = b.EndVector()
            zp = _int_vector(b, fb.QuantizationStartZeroPointVector, [t.zero_point or 0])
            fb.QuantizationStart(b)
            fb.QuantizationAddScale(b, scale)
            fb.QuantizationAddZeroPoint(b, zp)
            quant = fb.QuantizationEnd(b)
        fb.TensorStart(b)
        fb.TensorAddName(b, name)
        fb.TensorAddDtype(b, t.dtype)
        fb.TensorAddShape(b, shape)
        if quant is not None:
            fb.TensorAddQuantization(b, quant)
        fb.TensorAddBuffer(b, t.buffer)
        fb.TensorAddArena(b, t.arena)
        fb.TensorAddOffset(b, t.offset)
        fb.TensorAddSize(b, t.byte_size())
        if t.initial_buffer != -1:
            fb.TensorAddInitialBuffer(b, t.initial_buffer)
        tensors.append(fb.TensorEnd(b))
    operators = []
    for op in spec.operators:
        inputs = _int_vector(b, fb.OperatorStartInputsVector, op.inputs)
        outputs = _int_vector(b, fb.OperatorStartOutputsVector, op.outputs)
        options = _options(b, op)
        origin = b.CreateString("tests/runtime/programs.py")
        fb.OperatorStart(b)
        fb.OperatorAddOpcode(b, op.opcode)
        fb.OperatorAddInputs(b, inputs)
        fb.OperatorAddOutputs(b, outputs)
        fb.OperatorAddOptionsType(b, op.options_type)
        if options:
            fb.OperatorAddOptions(b, options)
        fb.OperatorAddOrigin(b, origin)
        operators.append(fb.OperatorEnd(b))
    arenas = []
    for name, size in spec.arenas:
        n = b.CreateString(name)
        fb.ArenaStart(b)
        fb.ArenaAddName(b, n)
        fb.ArenaAddSize(b, size)
        arenas.append(fb.ArenaEnd(b))

    def table_vector(start_fn, items):
        start_fn(b, len(items))
        for item in reversed(items):
            b.PrependUOffsetTRelative(item)
        return b.EndVector()

    tensors_v = table_vector(fb.ProgramStartTensorsVector, tensors)
    operators_v = table_vector(fb.ProgramStartOperatorsVector, operators)
    buffers_v = table_vector(fb.ProgramStartBuffersVector, buffers)
    arenas_v = table_vector(fb.ProgramStartArenasVector, arenas)
    inputs_v = _int_vector(b, fb.ProgramStartInputsVector, spec.inputs)
    outputs_v = _int_vector(b, fb.ProgramStartOutputsVector, spec.outputs)
    kept_v = None if spec.inputs_kept is None else b.CreateByteVector(bytes(spec.inputs_kept))
    target = b.CreateString(spec.target)
    name = b.CreateString(spec.name)
    fb.ProgramStart(b)
    fb.ProgramAddSchemaVersion(b, spec.schema_version)
    fb.ProgramAddTier(b, spec.tier)
    fb.ProgramAddTarget(b, target)
    fb.ProgramAddName(b, name)
    fb.ProgramAddTensors(b, tensors_v)
    fb.ProgramAddOperators(b, operators_v)
    fb.ProgramAddInputs(b, inputs_v)
    pins = sum(1 for t in spec.tensors if t.initial_buffer != -1)
    fb.ProgramAddPinnedConstants(b, pins if spec.pinned_constants is None else spec.pinned_constants)
    fb.ProgramAddOutputs(b, outputs_v)
    fb.ProgramAddBuffers(b, buffers_v)
    fb.ProgramAddArenas(b, arenas_v)
    if kept_v is not None:
        fb.ProgramAddInputsKept(b, kept_v)
    b.Finish(fb.ProgramEnd(b), file_identifier=b"EMBR")
    return with_checksum(b.Output())


def resealed(data: bytes) -> bytes:
    """A program file whose FlatBuffers part was edited, given a matching CRC-32 trailer again,
    so that the loader's structural checks (not the checksum) see the edit."""
    return with_checksum(bytes(data[:-CHECKSUM_BYTES]))


@dataclass
class FcCase:
    """The numbers of an FC program, to compute the expected output with compiler.reference."""
    weights: np.ndarray
    bias: np.ndarray
    multiplier: np.ndarray
    shift: np.ndarray
    output_offset: int
    activation_min: int
    activation_max: int


def fc_case(batches=2, n_in=17, n_out=5, seed=0) -> FcCase:
    rng = np.random.default_rng(seed)
    pairs = [quantize_multiplier(float(2.0 ** rng.uniform(-12, -6))) for _ in range(n_out)]
    return FcCase(
        weights=rng.integers(-128, 128, size=(n_out, n_in), dtype=np.int8),
        bias=rng.integers(-3000, 3000, size=n_out, dtype=np.int32),
        multiplier=np.array([m for m, _ in pairs], dtype=np.int32),
        shift=np.array([s for _, s in pairs], dtype=np.int32),
        output_offset=-3, activation_min=-100, activation_max=120)


def _align16(n: int) -> int:
    return (n + 15) & ~15


def fc_program(case: FcCase | None = None, batches=2) -> tuple[ProgramSpec, FcCase]:
    """input [B, I] int8 (arena 0) -> FC -> output [B, O] int8 (arena 0)."""
    case = case or fc_case(batches=batches)
    n_out, n_in = case.weights.shape
    out_offset = _align16(batches * n_in)
    tensors = [
        TensorSpec("input", INT8, [batches, n_in], offset=0, scale=0.05, zero_point=0),
        TensorSpec("weights", INT8, [n_out, n_in], buffer=0),
        TensorSpec("bias", INT32, [n_out], buffer=1),
        TensorSpec("output", INT8, [batches, n_out], offset=out_offset, scale=0.1, zero_point=-3),
    ]
    fc = OpSpec(fb.OpCode.FULLY_CONNECTED, [0, 1, 2], [3], fb.OpOptions.FullyConnectedOptions, {
        "output_offset": case.output_offset, "activation_min": case.activation_min,
        "activation_max": case.activation_max, "output_multiplier": case.multiplier.tolist(),
        "output_shift": case.shift.tolist()})
    spec = ProgramSpec(tensors=tensors, operators=[fc], inputs=[0], outputs=[3],
                       buffers=[case.weights.tobytes(), case.bias.tobytes()],
                       arenas=[("sram", out_offset + _align16(batches * n_out))])
    return spec, case


def fc_int4_program(batches=2, seed=3) -> tuple[ProgramSpec, FcCase]:
    """fc_program with int4 weights (A8W4, -8..7, packed: compiler/int4.py) and the scratch they
    are unpacked into (tensor 4, [round_up16(O·I)] int8 after the output, the op's second output)."""
    case = fc_case(batches=batches, seed=seed)
    case.weights = np.random.default_rng(seed).integers(-8, 8, size=case.weights.shape).astype(np.int8)
    case.weights[0, 0], case.weights[-1, -1] = -8, 7
    case.shift += 3  # products 16 times smaller than int8's: outputs spread over int8 again
    spec, _ = fc_program(case, batches)
    spec.tensors[1].dtype = INT4
    spec.buffers[0] = int4.pack(case.weights)
    name, size = spec.arenas[0]
    scratch = _align16(case.weights.size)
    spec.tensors.append(TensorSpec("output.scratch", INT8, [scratch], offset=size))
    spec.operators[0].outputs.append(4)
    spec.arenas[0] = (name, size + scratch)
    return spec, case


def fc_edge_program(batches: int, n_in: int, n_out: int, tier: int):
    """An FC program for a kernel tier's edges: a row of -128 weights and a row with 127 at even
    columns, an input row of -128 (products of +16384), scales spread so outputs cover int8 with
    ~20 % of channels at shift > 0 (the saturating pre-shift), a random output zero point.
    Returns (program bytes, input [B, I], expected output)."""
    seed = batches * 1000003 + n_in * 1009 + n_out
    case = fc_case(batches=batches, n_in=n_in, n_out=n_out, seed=seed)
    rng = np.random.default_rng(seed)
    case.weights[0, :] = -128
    case.weights[-1, ::2] = 127
    spread = float(np.log2(0.012 / np.sqrt(n_in)))
    reals = 2.0 ** rng.uniform(spread - 1.0, spread + 1.0, size=n_out)
    reals[rng.random(n_out) < 0.2] = 3.0
    pairs = [quantize_multiplier(float(r)) for r in reals]
    case.multiplier[:] = [m for m, _ in pairs]
    case.shift[:] = [s for _, s in pairs]
    case.bias[:] = rng.integers(-2000, 2000, size=n_out)
    case.activation_min, case.activation_max = -128, 127
    case.output_offset = int(rng.integers(-128, 128))
    spec, _ = fc_program(case, batches)
    spec.tier = tier
    x = rng.integers(-128, 128, size=(batches, n_in), dtype=np.int8)
    x[0, :] = -128
    return build(spec), x, _fc_reference(x, case)


def fc_ties_program(tier: int):
    """An FC program of exact requantization ties (half up, both signs), INT32 extremes and
    shifts at both ends of -31..30, over a zero input. Returns (bytes, input, expected)."""
    case = fc_case(batches=1, n_in=1, n_out=20)
    case.weights[:] = 1
    case.multiplier[:] = 1 << 30
    case.shift[:16] = [-(1 + i % 4) for i in range(16)]
    case.bias[:16] = [(1 if i % 2 else -1) * ((2 * i + 1) << (1 + i % 4)) for i in range(16)]
    case.multiplier[16:] = [2**31 - 1, 2**31 - 1, 1 << 30, 0]
    case.shift[16:] = [-31, 0, 30, 0]
    case.bias[16:] = [-(2**31), 2**31 - 1, -5, 7]
    case.output_offset, case.activation_min, case.activation_max = 0, -128, 127
    spec, _ = fc_program(case, 1)
    spec.tier = tier
    x = np.zeros((1, 1), dtype=np.int8)
    return build(spec), x, _fc_reference(x, case)


def _fc_reference(x: np.ndarray, case: FcCase) -> np.ndarray:
    from compiler import reference
    return reference.fully_connected_s8(x, case.weights, case.bias, case.multiplier, case.shift,
                                        case.output_offset, case.activation_min, case.activation_max)


def pipeline_program(batches=2, seed=1, inv_scale=20.0, in_zp=0, out_scale=0.1, out_zp=-3):
    """float input -> QUANTIZE -> FC -> DEQUANTIZE -> float output, all in arena 0."""
    case = fc_case(batches=batches, seed=seed)
    n_out, n_in = case.weights.shape
    spec, _ = fc_program(case, batches)
    f_in = _align16(spec.arenas[0][1])
    f_out = _align16(f_in + 4 * batches * n_in)
    spec.tensors += [
        TensorSpec("x", FLOAT32, [batches, n_in], offset=f_in),
        TensorSpec("y", FLOAT32, [batches, n_out], offset=f_out),
    ]
    spec.operators = [
        OpSpec(fb.OpCode.QUANTIZE, [4], [0], fb.OpOptions.QuantizeOptions,
               {"inv_scale": inv_scale, "zero_point": in_zp}),
        spec.operators[0],
        OpSpec(fb.OpCode.DEQUANTIZE, [3], [5], fb.OpOptions.DequantizeOptions,
               {"scale": out_scale, "zero_point": out_zp}),
    ]
    spec.inputs, spec.outputs = [4], [5]
    spec.arenas = [("sram", _align16(f_out + 4 * batches * n_out))]
    return spec, case


def quantize_program(n: int, inv_scale: float, zero_point: int):
    """float input [1, n] -> QUANTIZE -> int8 output [1, n], in arena 0."""
    out = _align16(4 * n)
    tensors = [TensorSpec("x", FLOAT32, [1, n], offset=0),
               TensorSpec("q", INT8, [1, n], offset=out, scale=1.0, zero_point=zero_point)]
    op = OpSpec(fb.OpCode.QUANTIZE, [0], [1], fb.OpOptions.QuantizeOptions,
                {"inv_scale": inv_scale, "zero_point": zero_point})
    return ProgramSpec(tensors=tensors, operators=[op], inputs=[0], outputs=[1], buffers=[],
                       arenas=[("sram", out + _align16(n))])


def dequantize_program(n: int, scale: float, zero_point: int):
    """int8 input [1, n] -> DEQUANTIZE -> float output [1, n], in arena 0."""
    out = _align16(n)
    tensors = [TensorSpec("q", INT8, [1, n], offset=0, scale=scale, zero_point=zero_point),
               TensorSpec("y", FLOAT32, [1, n], offset=out)]
    op = OpSpec(fb.OpCode.DEQUANTIZE, [0], [1], fb.OpOptions.DequantizeOptions,
                {"scale": scale, "zero_point": zero_point})
    return ProgramSpec(tensors=tensors, operators=[op], inputs=[0], outputs=[1], buffers=[],
                       arenas=[("sram", out + _align16(4 * n))])


def fc_chain_program(n_ops: int = 20, width: int = 7, batches: int = 2, seed: int = 0):
    """int8 input [B, width] -> n_ops chained FULLY_CONNECTED [width -> width] -> int8 output.

    Activations ping-pong between two slots of arena 0; each op has its own weights, bias and
    requantization (constants in buffers 2k, 2k + 1). Returns (spec, cases)."""
    rng = np.random.default_rng(seed)
    slot = _align16(batches * width)
    tensors = [TensorSpec("act0", INT8, [batches, width], offset=0),
               TensorSpec("act1", INT8, [batches, width], offset=slot)]
    operators, buffers, cases = [], [], []
    for k in range(n_ops):
        reals = 2.0 ** rng.uniform(-9.5, -7.5, size=width)
        pairs = [quantize_multiplier(float(r)) for r in reals]
        case = FcCase(weights=rng.integers(-128, 128, size=(width, width), dtype=np.int8),
                      bias=rng.integers(-3000, 3000, size=width, dtype=np.int32),
                      multiplier=np.array([m for m, _ in pairs], dtype=np.int32),
                      shift=np.array([s for _, s in pairs], dtype=np.int32),
                      output_offset=int(rng.integers(-20, 20)),
                      activation_min=-128 if k % 3 else -100, activation_max=127 if k % 4 else 100)
        cases.append(case)
        w, b = len(tensors), len(tensors) + 1
        tensors += [TensorSpec(f"w{k}", INT8, [width, width], buffer=len(buffers)),
                    TensorSpec(f"b{k}", INT32, [width], buffer=len(buffers) + 1)]
        buffers += [case.weights.tobytes(), case.bias.tobytes()]
        operators.append(OpSpec(fb.OpCode.FULLY_CONNECTED, [k % 2, w, b], [(k + 1) % 2],
                                fb.OpOptions.FullyConnectedOptions, {
            "output_offset": case.output_offset, "activation_min": case.activation_min,
            "activation_max": case.activation_max, "output_multiplier": case.multiplier.tolist(),
            "output_shift": case.shift.tolist()}))
    spec = ProgramSpec(tensors=tensors, operators=operators, inputs=[0], outputs=[n_ops % 2],
                       buffers=buffers, arenas=[("sram", 2 * slot)])
    return spec, cases


def fc_chain_reference(x: np.ndarray, cases) -> np.ndarray:
    """compiler.reference over fc_chain_program's ops, in order."""
    from compiler import reference
    for c in cases:
        x = reference.fully_connected_s8(x, c.weights, c.bias, c.multiplier, c.shift,
                                         c.output_offset, c.activation_min, c.activation_max)
    return x
