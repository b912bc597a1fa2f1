"""bind_state: model inputs fed by the model's own outputs of the invoke before become persistent tensors.

A model written for a sequence takes its state and returns the next one (`forward(x, h) -> (y,
h_next)`). Lowered with `state=[(1, 1)]` (LoweringOptions.state: pairs of program input index,
program output index), input 1 is no longer the caller's: it becomes a persistent tensor S
(ir.State) that holds output 1 of the previous invoke, and a reset value (its zero point, a real
0) before the first. Output 1 leaves the program's outputs (return it twice to see it as well).

S keeps the int8 bytes of the state output, in its quantization: exactly what PyTorch's PT2E model
returns for it. Where the model quantizes the state input on another scale, a `requantize` from S
follows, which is the PT2E model's own round trip (dequantize the output, quantize it as the
input). The pass runs last, after the boundaries are lowered, so both ends are int8 tensors:
either program inputs / outputs (int8_io) or the tensors next to their quantize / dequantize.
"""
from __future__ import annotations

from compiler.errors import StateError
from compiler.ir import Graph, Op, State, Tensor
from compiler.layout import requantize_attrs, same_quant
from compiler.options import LoweringOptions


def bind_state(graph: Graph, options: LoweringOptions) -> Graph:
    if not options.state:
        return graph
    inputs, outputs = list(graph.inputs), list(graph.outputs)
    _check_pairs(options.state, len(inputs), len(outputs))
    bound = []
    for i, j in options.state:
        s = _persistent(graph, inputs[i], i, _state_value(graph, outputs[j], j))
        bound.append((inputs[i], j, s))
    for name, _, s in bound:
        graph.inputs.remove(name)
        del graph.tensors[name]
    for j in sorted((j for _, j, _ in bound), reverse=True):
        _drop_output(graph, j)
    return graph


def _check_pairs(pairs: tuple[tuple[int, int], ...], n_inputs: int, n_outputs: int) -> None:
    for i, j in pairs:
        if not (0 <= i < n_inputs and 0 <= j < n_outputs):
            raise StateError(f"state pair (input {i}, output {j}): the model has {n_inputs} input(s) and "
                             f"{n_outputs} output(s); give pairs of an input index and an output index")
    for what, k in (("input", 0), ("output", 1)):
        seen = [pair[k] for pair in pairs]
        if len(set(seen)) != len(seen):
            raise StateError(f"state pairs {list(pairs)} name an {what} twice: each state is one input and one output")
    if len(pairs) == n_inputs:
        raise StateError("every model input is state: leave at least one input for the caller to write each invoke")


def _state_value(graph: Graph, output: str, j: int) -> str:
    """The integer tensor whose bytes are output `j`'s: the output itself (int8 I/O) or what its
    boundary dequantize reads."""
    producer = graph.producer(output)
    if producer is not None and producer.kind == "dequantize":
        return producer.inputs[0]
    if graph.tensors[output].quant is not None and graph.tensors[output].dtype in ("int8", "int16"):
        return output
    raise StateError(f"state output {j} ({output}) is computed in float32 ({producer.kind if producer else 'no op'}): "
                     "a persistent tensor holds integers; quantize the ops that make the state (the quantizer's "
                     "skip options left them in float?)")


def _persistent(graph: Graph, input_name: str, i: int, value: str) -> str:
    """Adds the persistent tensor for input `i`, fed by `value`, and points the input's readers at it."""
    v = graph.tensors[value]
    s = graph.add_tensor(Tensor(graph.unique_name(f"state_{i}"), v.dtype, v.shape, v.quant))
    graph.state.append(State(s.name, value))
    x = graph.tensors[input_name]
    readers = graph.consumers(input_name)
    if x.dtype == v.dtype and x.quant is not None:  # int8 I/O: the input is the integer tensor
        _read_as(graph, input_name, s, graph.ops.index(readers[0]) if readers else len(graph.ops))
        return s.name
    for op in readers:
        if op.kind != "quantize":
            raise StateError(f"state input {i} ({input_name}) is read in float32 by {op.kind} ({op.origin}): "
                             "a persistent tensor holds integers; quantize the ops that read the state")
        graph.ops.remove(op)
        _read_as(graph, op.outputs[0], s, min((graph.ops.index(c) for c in graph.consumers(op.outputs[0])),
                                                      default=len(graph.ops)), op.origin)
    return s.name


def _read_as(graph: Graph, name: str, s: Tensor, at: int, origin: str = "") -> None:
    """Makes `name` S itself, or S requantized into its quantization (before op `at`); a program
    input is kept apart, for bind_state to remove."""
    tensor = graph.tensors[name]
    if tensor.shape != s.shape:
        raise StateError(f"state {s.name}: the input {name} has shape {list(tensor.shape)} but the output that feeds "
                         f"it has {list(s.shape)}; return the next state in the shape the model takes it")
    if same_quant(tensor.quant, s.quant):
        graph.replace_uses(name, s.name)
        if name not in graph.inputs:  # the quantize's output, now made by nothing
            del graph.tensors[name]
        return
    if name in graph.inputs:
        target = graph.add_tensor(Tensor(graph.unique_name(f"{name}_requantized"), tensor.dtype, tensor.shape,
                                         tensor.quant))
        graph.replace_uses(name, target.name)
        name = target.name
    graph.ops.insert(at, Op("requantize", [s.name], [name], requantize_attrs(s.quant, tensor.quant), origin))


def _drop_output(graph: Graph, j: int) -> None:
    """Removes output `j`, and the boundary dequantize that made it if nothing else reads it."""
    name = graph.outputs.pop(j)
    producer = graph.producer(name)
    if name in graph.outputs or graph.consumers(name) or producer is None or producer.kind != "dequantize":
        return
    graph.ops.remove(producer)
    del graph.tensors[name]
