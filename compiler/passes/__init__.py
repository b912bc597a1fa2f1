"""Compiler passes, one per file, named <verb>_<noun>. The ops' own lowerings live in their
modules (compiler/ops/, OpSpec.lowerings); lower_ops runs them.

`FLOAT_GRAPH_PASSES` run on the exported float FX graph (a GraphModule) before quantization,
in order; the others run on Ember IR in the order of `IR_PASSES`, each as `pass(graph, options)`
with the compilation's frozen `LoweringOptions`.
"""
from __future__ import annotations

from compiler.passes.decompose_batch_norm import decompose_batch_norm
from compiler.passes.decompose_bilinear_resize import decompose_bilinear_resize
from compiler.passes.drop_unused_pool_indices import drop_unused_pool_indices
from compiler.passes.eliminate_common_subexpressions import eliminate_common_subexpressions
from compiler.passes.fold_batch_norm import fold_batch_norm
from compiler.passes.fold_constants import fold_constants
from compiler.passes.fold_product_scales import fold_product_scales
from compiler.passes.fold_softmax_masks import fold_softmax_masks
from compiler.passes.fold_written_norms import fold_written_norms
from compiler.passes.materialize_expands import materialize_expands
from compiler.passes.remove_identity_ops import remove_identity_ops
from compiler.passes.sink_reshapes import sink_reshapes

from compiler.passes.convert_to_nhwc import convert_to_nhwc
from compiler.passes.fold_activations import fold_activations
from compiler.passes.lower_boundaries import lower_boundaries
from compiler.passes.lower_float_ops import lower_float_ops
from compiler.passes.lower_ops import lower_ops, lower_ops_after_folds
from compiler.passes.lower_reductions import lower_reductions
from compiler.passes.deduplicate_constants import deduplicate_constants
from compiler.passes.remove_dead_tensors import remove_dead_tensors
from compiler.passes.fold_quantize_pairs import fold_quantize_pairs
from compiler.passes.fold_data_movement import fold_data_movement
from compiler.passes.add_front_end import add_front_end
from compiler.passes.bind_state import bind_state
from compiler.passes.stream_frames import stream_frames

# Identities go first (a dropout between a conv and its batch norm; a clone hides a repeat from
# CSE), constants are folded before
# expands (a constant's expand folds with it) and batch norms (whose statistics may be computed), batch norms fold into the weights they follow, and
# the others become depthwise convolutions. Attention's constant masks (folded by then) and scales
# go where the softmax and the batch_matmul take them, masks first (a scale moves past the
# reshapes a mask leaves); reshapes sink below the elementwise ops last (a conv1d's squeeze below
# its ReLU, which then fuses).
FLOAT_GRAPH_PASSES = (remove_identity_ops, eliminate_common_subexpressions, drop_unused_pool_indices, fold_constants,
                      materialize_expands, fold_batch_norm, decompose_batch_norm, decompose_bilinear_resize,
                      fold_written_norms, fold_softmax_masks, fold_product_scales, sink_reshapes)

# Order matters: layout first (shapes the lowerings read), activations folded before the
# quantized patterns are matched, reshapes lowered (lower_ops) before the linear that folds them
# (lower_ops_after_folds), and the
# boundary quantize/dequantize ops are all that remains of q/dq pairs once the ops are lowered.
# Requantizations (dequantize → quantize of another scale) are folded first, so the patterns
# see one dequantize per input; transposes are folded after the data movement that made them, and
# zero pads into the convolutions / average pools that read them once both are lowered
# (fold_data_movement runs the ops' folds).
# Ops left in float are lowered first, so the quantized lowerings see only quantized ops.
# An audio front end goes in front of the finished model (its input is the boundary's); a stream
# is cut from the finished graph, and state binds last, to the integer tensors at the boundaries.
IR_PASSES = (
    convert_to_nhwc,
    fold_quantize_pairs,
    fold_activations,
    lower_float_ops,
    lower_reductions,
    lower_ops,
    fold_data_movement,
    lower_ops_after_folds,
    lower_boundaries,
    remove_dead_tensors,
    deduplicate_constants,
    add_front_end,
    stream_frames,
    bind_state,
)
