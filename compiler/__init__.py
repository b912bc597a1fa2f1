"""Ember compiler: PyTorch model → int8 program for a Cortex-M target.

    program = compiler.lower(model, example_inputs, calibration_data, target="cortex-m55")
    program.save("model.embr"); program.run_reference(x); print(program.summary())

`lower` (and so torch) is imported on first use: the build and the tools that only read, run
or emit programs (reader, reference, emit_c, ops) start without loading PyTorch.
"""
import logging

# torchao probes optional CUDA extensions at import and logs each failure, and torch's pytree
# logs a deprecation for one of torchao's enums: neither concerns a CPU-only compiler.
for _noisy in ("torchao", "torch.utils._pytree"):
    logging.getLogger(_noisy).setLevel(logging.ERROR)

from compiler.program import Program  # noqa: E402
from compiler.target import Target  # noqa: E402

__all__ = ["lower", "Program", "Target"]


def __getattr__(name: str):
    if name == "lower":
        from compiler.pipeline import lower

        return lower
    raise AttributeError(f"module 'compiler' has no attribute {name!r}")
