"""OpSpec: what the compiler, the reference, the writer and the build know of one op."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from compiler.ir import Op


@dataclass(frozen=True)
class OpSpec:
    kind: str
    opcode: int  # schema OpCode value
    options_type: int  # schema OpOptions union type
    # (op, input arrays) -> output arrays, exactly as the C kernels compute them.
    reference: Callable[[Op, list[np.ndarray]], list[np.ndarray]]
    # (flatbuffers builder, op) -> offset of the options table.
    write_options: Callable[[object, Op], int]
    # (options table object from the generated reader) -> op attrs.
    read_options: Callable[[object], dict]
    # C symbol of the op's em_op_registration (runtime/ops/em_op_<kind>.c). The generated
    # registry names it, so the linker pulls that adapter and its kernels from the runtime library.
    registration: str
    # The output holds exactly the input's bytes (reshape): the planner may give both one buffer.
    output_aliases_input: bool = False

    def __post_init__(self) -> None:
        if not self.registration.startswith("em_op_"):
            raise ValueError(f"{self.kind}: registration symbol must start with em_op_")


def int_vector(builder, values) -> int:
    """An options table's [int] field."""
    return builder.CreateNumpyVector(np.ascontiguousarray(values, dtype=np.int32).reshape(-1))


def int_list(options, field: str) -> list[int]:
    """An options table's [int] field `field` (generated accessor name) as a list; [] when absent."""
    n = getattr(options, f"{field}Length")()
    return [int(v) for v in getattr(options, f"{field}AsNumpy")()] if n else []
