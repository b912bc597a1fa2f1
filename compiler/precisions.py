"""A layer's precision by name: activation and weight bits (no torch: the build validates app.yaml's
`precision:` against it at start-up; compiler.quantizer applies them).

"a8w8" is Ember's int8 contract; "a8w4" keeps int8 activations with int4 weights in the weighted
ops that have int4 kernels (conv2d, depthwise, transposed conv, linear, matmul by a constant);
other ops of such a layer stay a8w8. "a16w8": int16 activations in the ops with int16 kernels
(conv2d, depthwise, linear, add / sub, mul, pooling, mean, activation tables, reshapes), int8 weights; its other ops stay a8w8,
a requantize between."""
PRECISIONS = {"a8w8": (8, 8), "a8w4": (8, 4), "a16w8": (16, 8)}
