"""LoweringOptions: what the IR passes may need to know of the compilation, in one frozen object."""
from __future__ import annotations

from dataclasses import dataclass

from compiler.target import Target


@dataclass(frozen=True)
class LoweringOptions:
    """`target`: the CPU and tier. `int8_io`: the program takes and returns int8 tensors (with
    their quantization recorded) instead of float32."""

    target: Target = Target("cortex-m55")
    int8_io: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.target, Target):
            raise TypeError(f"target must be a compiler.target.Target, got {type(self.target).__name__}")
