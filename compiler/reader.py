"""Reads a program file back into Ember IR (for inspection and reference runs)."""
from __future__ import annotations

import struct

import numpy as np

from compiler import int4
from compiler.checksum import without_checksum
from compiler.errors import ProgramFormatError
from compiler.ir import NUMPY_DTYPES, Arena, Graph, Op, Quant, State, Tensor
from compiler.ops import OPCODES
from compiler.schema import program_generated as fb
from compiler.target import TIERS, Target
from compiler.writer import FILE_IDENTIFIER, SCHEMA_VERSION, STATE_SCHEMA_VERSION

DTYPE_NAMES = {fb.DType.INT8: "int8", fb.DType.INT32: "int32", fb.DType.FLOAT32: "float32", fb.DType.INT16: "int16",
               fb.DType.INT4: "int4"}


def recorded_inputs_kept(data: bytes) -> list[bool]:
    """Program.inputs_kept as the file records it, one per input (absent: every input consumed,
    as the runtime reads it). `data` is a program file read_program accepted."""
    program = fb.Program.GetRootAs(data, 0)
    recorded = [bool(program.InputsKept(i)) for i in range(program.InputsKeptLength())]
    return recorded or [False] * program.InputsLength()


def _named(names: list[str], index: int) -> str:
    if not 0 <= index < len(names):
        raise IndexError(f"tensor index {index} of {len(names)}")
    return names[index]


def read_program(data: bytes) -> tuple[Graph, Target, str]:
    """Returns (graph, target, name). Raises ProgramFormatError for a file that is not a program."""
    if len(data) < 8 or data[4:8] != FILE_IDENTIFIER:
        raise ProgramFormatError("not an Ember program: file identifier 'EMBR' missing at bytes 4..7")
    data = without_checksum(data)
    try:
        program = fb.Program.GetRootAs(data, 0)
        version = program.SchemaVersion()
        if version not in (SCHEMA_VERSION, STATE_SCHEMA_VERSION) or (version == SCHEMA_VERSION) != (program.StateLength() == 0):
            raise ProgramFormatError(f"schema version {version} with {program.StateLength()} persistent tensors: this "
                                     f"compiler reads {SCHEMA_VERSION} (no state) and {STATE_SCHEMA_VERSION} (state)")
        graph = Graph(tensors={}, ops=[], inputs=[], outputs=[], arenas=[])
        names = []
        for i in range(program.TensorsLength()):
            t = program.Tensors(i)
            dtype = DTYPE_NAMES[t.Dtype()]
            shape = tuple(int(d) for d in t.ShapeAsNumpy()) if t.ShapeLength() else ()
            quant = None
            if t.Quantization() is not None:
                q = t.Quantization()
                quant = Quant(q.ScaleAsNumpy().astype(np.float32), q.ZeroPointAsNumpy().astype(np.int32),
                              None if q.Axis() < 0 else q.Axis())
            data_array = None
            source = t.Buffer() if t.Buffer() >= 0 else t.InitialBuffer()  # a pinned constant: its bytes
            if source >= 0:
                raw = program.Buffers(source).DataAsNumpy()
                data_array = (int4.unpack(raw.tobytes(), shape) if dtype == "int4"
                              else np.frombuffer(raw.tobytes(), NUMPY_DTYPES[dtype]).reshape(shape))
            name = t.Name().decode()
            graph.add_tensor(Tensor(name, dtype, shape, quant, data_array, t.Arena(),
                                    None if t.Buffer() >= 0 else t.Offset()))
            names.append(name)
        for i in range(program.OperatorsLength()):
            o = program.Operators(i)
            spec = OPCODES.get(o.Opcode())
            if spec is None:
                raise ProgramFormatError(f"operator {i} has unknown opcode {o.Opcode()}")
            graph.ops.append(Op(spec.kind, [names[j] for j in o.InputsAsNumpy()],
                                [names[j] for j in o.OutputsAsNumpy()],
                                spec.read_options(o.Options()), (o.Origin() or b"").decode()))
        graph.inputs = [names[j] for j in program.InputsAsNumpy()]
        graph.outputs = [names[j] for j in program.OutputsAsNumpy()]
        graph.state = [State(_named(names, program.State(i).Tensor()), _named(names, program.State(i).Next()))
                       for i in range(program.StateLength())]
        graph.arenas = [Arena(program.Arenas(i).Name().decode(), program.Arenas(i).Size())
                        for i in range(program.ArenasLength())]
        return graph, Target(program.Target().decode(), TIERS[program.Tier()]), (program.Name() or b"").decode()
    except (IndexError, KeyError, ValueError, TypeError, AttributeError, struct.error) as error:
        # flatbuffers reads past the end of a truncated file, or through garbage offsets
        raise ProgramFormatError(f"malformed or truncated program ({len(data)} bytes: {error}): write it again "
                                 "with `python -m compiler lower ... -o FILE`") from None
