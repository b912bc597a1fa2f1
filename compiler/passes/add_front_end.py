"""add_front_end: the program takes raw audio; an audio front end op computes the model's input.

With `options.front_end` (a compiler.audio_features.FrontEnd), the graph's one input — the
model's features, float32, or int8 with `int8_io` — becomes the output of
`mel_features(audio int16 [batch, samples])`, reshaped to the input's shape (an alias: no copy),
with a `quantize` before the reshape when the input is int8. The float32 features feed the
boundary `quantize` that lowering already put at the model's input, so the model's int8 input
is the same as when the features come from `audio_features` in Python.

The model's input must hold batch × frames × coefficients values in the front end's order
(frame-major): [batch, frames, coefficients], [batch, frames · coefficients], or a 4-D map with
one channel ([batch, 1, frames, coefficients] in PyTorch, NHWC [batch, frames, coefficients, 1]).
"""
from __future__ import annotations

import numpy as np

from compiler.errors import FrontEndError
from compiler.ir import Graph, Op, Tensor
from compiler.layout import SCHEMA_DTYPES
from compiler.ops.mel_features import front_end_op
from compiler.options import LoweringOptions


def add_front_end(graph: Graph, options: LoweringOptions) -> Graph:
    front_end = options.front_end
    if front_end is None:
        return graph
    if len(graph.inputs) != 1:
        raise FrontEndError(f"front end {front_end.name}: the model must take one input (its features), "
                            f"it takes {len(graph.inputs)}")
    model_input = graph.tensors[graph.inputs[0]]
    shape = model_input.shape
    frames, coefficients = front_end.output_shape
    per_example = frames * coefficients
    fits = {2: (per_example,), 3: (frames, coefficients), 4: (frames, coefficients, 1)}
    if fits.get(len(shape)) != tuple(shape[1:]):
        raise FrontEndError(
            f"front end {front_end.name} makes {list(front_end.output_shape)} features per example, but the "
            f"model's input is {list(shape)} (Ember's layout); give the model an input of "
            f"[batch, {', '.join(map(str, front_end.output_shape))}], [batch, {per_example}] or [batch, 1, "
            f"{', '.join(map(str, front_end.output_shape))}]")
    batch = shape[0]
    audio, features = graph.unique_name("audio"), graph.unique_name("features")
    tensors, op = front_end_op(front_end, audio, features, (batch,), prefix=graph.unique_name(front_end.name))
    for tensor in tensors:
        graph.add_tensor(tensor)
    ops = [op]
    source = features
    if model_input.dtype in SCHEMA_DTYPES:  # int8_io: the boundary quantize was removed; put one back
        quant = model_input.quant
        source = graph.unique_name("features_q")
        graph.add_tensor(Tensor(source, model_input.dtype, graph.tensors[features].shape, quant))
        ops.append(Op("quantize", [features], [source], {"inv_scale": np.float32(1.0 / float(quant.scale[0])),
                                                        "zero_point": int(quant.zero_point[0]),
                                                        "output_type": SCHEMA_DTYPES[model_input.dtype]},
                      front_end.name))
    ops.append(Op("reshape", [source], [model_input.name], {}, front_end.name))
    graph.ops[:0] = ops
    graph.inputs = [audio]
    return graph
