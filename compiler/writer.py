"""Serializes lowered Ember IR into a program file (FlatBuffers, compiler/schema/program.fbs)."""
from __future__ import annotations

from dataclasses import replace

import flatbuffers
import numpy as np

from compiler import int4
from compiler.checksum import with_checksum
from compiler.ir import Graph, Tensor
from compiler.kernel_variants import bits_of, chosen_variants
from compiler.ops import OP_TABLE
from compiler.planner import inputs_kept
from compiler.schema import program_generated as fb
from compiler.target import Target

SCHEMA_VERSION = 1
STATE_SCHEMA_VERSION = 2  # a program with persistent tensors (Program.state): older runtimes refuse it
FILE_IDENTIFIER = b"EMBR"
CONSTANT_ALIGNMENT = 16  # constants are read in place by vector loads
DTYPES = {"int8": fb.DType.INT8, "int32": fb.DType.INT32, "float32": fb.DType.FLOAT32, "int16": fb.DType.INT16,
          "int4": fb.DType.INT4}


def _aligned_bytes(builder: flatbuffers.Builder, data: bytes) -> int:
    """A [ubyte] vector whose first element is CONSTANT_ALIGNMENT-aligned (force_align: 16)."""
    builder.StartVector(1, len(data), CONSTANT_ALIGNMENT)
    builder.head -= len(data)
    builder.Bytes[builder.head:builder.head + len(data)] = data
    return builder.EndVector()


def _quantization(builder: flatbuffers.Builder, tensor: Tensor) -> int | None:
    if tensor.quant is None:
        return None
    scale = builder.CreateNumpyVector(np.asarray(tensor.quant.scale, np.float32).reshape(-1))
    zero_points = np.asarray(tensor.quant.zero_point, np.int32).reshape(-1)
    if len(zero_points) > 1 and np.all(zero_points == zero_points[0]):
        zero_points = zero_points[:1]  # symmetric weights: one 0 for every channel (4 B a channel less)
    zero_point = builder.CreateNumpyVector(zero_points)
    fb.QuantizationStart(builder)
    fb.QuantizationAddScale(builder, scale)
    fb.QuantizationAddZeroPoint(builder, zero_point)
    if tensor.quant.axis is not None:
        fb.QuantizationAddAxis(builder, tensor.quant.axis)
    return fb.QuantizationEnd(builder)


def _table_vector(builder: flatbuffers.Builder, offsets: list[int]) -> int:
    builder.StartVector(4, len(offsets), 4)
    for offset in reversed(offsets):
        builder.PrependUOffsetTRelative(offset)
    return builder.EndVector()


def _constant_bytes(tensor: Tensor) -> bytes:
    """A constant's program bytes: little-endian values, int4 packed two to a byte."""
    if tensor.dtype == "int4":
        return int4.pack(tensor.data)
    return np.ascontiguousarray(tensor.data).astype(tensor.data.dtype.newbyteorder("<")).tobytes()


def write_program(graph: Graph, target: Target, name: str = "model") -> bytes:
    """Returns the program file bytes. `graph` must be lowered and planned."""
    builder = flatbuffers.Builder(1024)
    names = list(graph.tensors)
    index = {n: i for i, n in enumerate(names)}

    constants = [graph.tensors[n] for n in names if graph.tensors[n].is_constant]
    buffer_of = {t.name: i for i, t in enumerate(constants)}
    buffers = []
    for tensor in constants:
        data = _aligned_bytes(builder, _constant_bytes(tensor))
        fb.BufferStart(builder)
        fb.BufferAddData(builder, data)
        buffers.append(fb.BufferEnd(builder))

    tensors = []
    for n in names:
        tensor = graph.tensors[n]
        if not tensor.is_constant and tensor.offset is None:
            raise ValueError(f"tensor {n} has no planned offset: run the planner before writing")
        name_offset = builder.CreateString(n)
        shape = builder.CreateNumpyVector(np.array(tensor.shape, np.int32))
        quant = _quantization(builder, tensor)
        fb.TensorStart(builder)
        fb.TensorAddName(builder, name_offset)
        fb.TensorAddDtype(builder, DTYPES[tensor.dtype])
        fb.TensorAddShape(builder, shape)
        if quant is not None:
            fb.TensorAddQuantization(builder, quant)
        pinned = tensor.is_pinned  # copied to its arena at load
        fb.TensorAddBuffer(builder, -1 if pinned else buffer_of.get(n, -1))
        fb.TensorAddArena(builder, tensor.arena)
        fb.TensorAddOffset(builder, tensor.offset or 0)
        fb.TensorAddSize(builder, tensor.nbytes)
        if pinned:
            fb.TensorAddInitialBuffer(builder, buffer_of[n])
        tensors.append(fb.TensorEnd(builder))

    operators = []
    for op, variants in zip(graph.ops, chosen_variants(graph, target.tier, target.optimize)):
        spec = OP_TABLE[op.kind]
        # the kernel variants the compiler chose: the op's options record them (their `paths`)
        recorded = replace(op, attrs={**op.attrs, "paths": bits_of(variants)}) if variants else op
        options = spec.write_options(builder, recorded)
        inputs = builder.CreateNumpyVector(np.array([index[t] for t in op.inputs], np.int32))
        outputs = builder.CreateNumpyVector(np.array([index[t] for t in op.outputs], np.int32))
        origin = builder.CreateString(op.origin)
        fb.OperatorStart(builder)
        fb.OperatorAddOpcode(builder, spec.opcode)
        fb.OperatorAddInputs(builder, inputs)
        fb.OperatorAddOutputs(builder, outputs)
        fb.OperatorAddOptionsType(builder, spec.options_type)
        fb.OperatorAddOptions(builder, options)
        fb.OperatorAddOrigin(builder, origin)
        operators.append(fb.OperatorEnd(builder))

    arenas = []
    for arena in graph.arenas:
        arena_name = builder.CreateString(arena.name)
        fb.ArenaStart(builder)
        fb.ArenaAddName(builder, arena_name)
        fb.ArenaAddSize(builder, arena.size)
        arenas.append(fb.ArenaEnd(builder))

    states = []
    for state in graph.state:
        fb.StateStart(builder)
        fb.StateAddTensor(builder, index[state.tensor])
        fb.StateAddNext(builder, index[state.next])
        states.append(fb.StateEnd(builder))

    vectors = {
        "tensors": _table_vector(builder, tensors),
        "operators": _table_vector(builder, operators),
        "buffers": _table_vector(builder, buffers),
        "arenas": _table_vector(builder, arenas),
        "inputs": builder.CreateNumpyVector(np.array([index[t] for t in graph.inputs], np.int32)),
        "outputs": builder.CreateNumpyVector(np.array([index[t] for t in graph.outputs], np.int32)),
        "inputs_kept": builder.CreateNumpyVector(np.array(inputs_kept(graph), np.bool_)),
        "state": _table_vector(builder, states) if states else None,
    }
    target_name = builder.CreateString(target.cpu)
    program_name = builder.CreateString(name)
    fb.ProgramStart(builder)
    fb.ProgramAddSchemaVersion(builder, STATE_SCHEMA_VERSION if states else SCHEMA_VERSION)
    fb.ProgramAddTier(builder, target.tier_index)
    fb.ProgramAddTarget(builder, target_name)
    fb.ProgramAddName(builder, program_name)
    fb.ProgramAddTensors(builder, vectors["tensors"])
    fb.ProgramAddOperators(builder, vectors["operators"])
    fb.ProgramAddInputs(builder, vectors["inputs"])
    fb.ProgramAddOutputs(builder, vectors["outputs"])
    fb.ProgramAddBuffers(builder, vectors["buffers"])
    fb.ProgramAddPinnedConstants(builder, sum(t.is_pinned for t in graph.tensors.values()))
    fb.ProgramAddArenas(builder, vectors["arenas"])
    fb.ProgramAddInputsKept(builder, vectors["inputs_kept"])
    if states:
        fb.ProgramAddState(builder, vectors["state"])
    builder.Finish(fb.ProgramEnd(builder), file_identifier=FILE_IDENTIFIER)
    return with_checksum(builder.Output())
