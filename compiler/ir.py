"""Ember IR: a flat list of ops over named tensors, the form every lowering pass works on.

Before lowering, ops mirror the quantized PyTorch graph (float `linear`, `relu`, `quantize`,
`dequantize` …); after lowering, only ops of the operator table (compiler/ops) remain, with
integer tensors in NHWC and every constant computed ahead of time.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from compiler import int4

DTYPE_BYTES = {"int8": 1, "int32": 4, "float32": 4, "int16": 2}
# "int4": A8W4 weights, held unpacked (int8 values -8..7) and packed two to a byte in a program
# (compiler/int4.py), so their bytes are not a multiple of the shape.
NUMPY_DTYPES = {"int8": np.int8, "int32": np.int32, "float32": np.float32, "int16": np.int16, "int4": np.int8}


@dataclass
class Quant:
    """real = scale · (q − zero_point); one entry, or one per channel along `axis`."""

    scale: np.ndarray
    zero_point: np.ndarray
    axis: int | None = None
    # The integer range the quantizer used (quant_min, quant_max), where known: (-8, 7) marks
    # int4 weights (lowering stores them as "int4"); None: the dtype's own range.
    quant_range: tuple[int, int] | None = None

    @staticmethod
    def per_tensor(scale: float, zero_point: int, quant_range: tuple[int, int] | None = None) -> "Quant":
        return Quant(np.array([scale], np.float32), np.array([zero_point], np.int32), quant_range=quant_range)

    @property
    def is_int4(self) -> bool:
        """Quantized to -8..7 (A8W4 weights)."""
        return self.quant_range is not None and -8 <= self.quant_range[0] and self.quant_range[1] <= 7


@dataclass
class Tensor:
    name: str
    dtype: str
    shape: tuple[int, ...]
    quant: Quant | None = None
    data: np.ndarray | None = None  # constants only
    arena: int = 0
    offset: int | None = None  # planned arena offset (activations, and constants pinned to RAM: copied at load)

    def __post_init__(self) -> None:
        if self.dtype not in NUMPY_DTYPES:
            raise ValueError(f"tensor {self.name}: unsupported dtype {self.dtype}")
        self.shape = tuple(int(d) for d in self.shape)
        if self.data is not None:
            self.data = np.ascontiguousarray(self.data, dtype=NUMPY_DTYPES[self.dtype]).reshape(self.shape)

    @property
    def is_constant(self) -> bool:
        return self.data is not None

    @property
    def is_pinned(self) -> bool:
        """A constant the plan placed in an arena (app.yaml memory: pin:): copied there at load."""
        return self.is_constant and self.offset is not None

    @property
    def nbytes(self) -> int:
        if self.dtype == "int4":
            return int4.packed_bytes(self.shape)
        return int(np.prod(self.shape, dtype=np.int64)) * DTYPE_BYTES[self.dtype]


@dataclass(eq=False)  # ops are compared by identity: graph.ops.index / remove find this very op
class Op:
    kind: str
    inputs: list[str]
    outputs: list[str]
    attrs: dict = field(default_factory=dict)
    origin: str = ""  # "file:line" in the user's model that produced it


@dataclass
class State:
    """A persistent tensor (schema State): `tensor` holds what the last invoke left in it (its zero
    point, a real 0, after a reset); ops read it like an input the caller never writes, and at the
    end of each invoke it takes the value of `next`."""

    tensor: str
    next: str


@dataclass
class Arena:
    name: str
    size: int = 0


@dataclass
class Graph:
    tensors: dict[str, Tensor]
    ops: list[Op]
    inputs: list[str]
    outputs: list[str]
    arenas: list[Arena] = field(default_factory=lambda: [Arena("sram")])
    state: list[State] = field(default_factory=list)

    def add_tensor(self, tensor: Tensor) -> Tensor:
        if tensor.name in self.tensors:
            raise ValueError(f"tensor {tensor.name} already exists")
        self.tensors[tensor.name] = tensor
        return tensor

    def unique_name(self, base: str) -> str:
        name, n = base, 1
        while name in self.tensors:
            name, n = f"{base}_{n}", n + 1
        return name

    def producer(self, tensor: str) -> Op | None:
        return next((op for op in self.ops if tensor in op.outputs), None)

    def consumers(self, tensor: str) -> list[Op]:
        return [op for op in self.ops if tensor in op.inputs]

    def replace_uses(self, old: str, new: str) -> None:
        for op in self.ops:
            op.inputs = [new if t == old else t for t in op.inputs]
        self.outputs = [new if t == old else t for t in self.outputs]

    def summary(self) -> str:
        """One line per op: kind, inputs → outputs with shapes and dtypes."""
        def describe(name: str) -> str:
            t = self.tensors[name]
            return f"{name}:{t.dtype}{list(t.shape)}"

        return "\n".join(
            f"{op.kind}({', '.join(map(describe, op.inputs))}) -> {', '.join(map(describe, op.outputs))}"
            for op in self.ops
        )
