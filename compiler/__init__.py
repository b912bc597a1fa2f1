"""Ember compiler: PyTorch model → int8 program for a Cortex-M target.

    program = compiler.lower(model, example_inputs, calibration_data, target="cortex-m55")
    program.save("model.embr"); program.run_reference(x); print(program.summary())

`lower` and `Program` (and so torch: the operator table names ATen ops) are imported on first
use: the build starts without loading PyTorch, importing compiler.target, compiler.reference,
compiler.files and compiler.precisions only (tests/test_lazy_imports.py).
"""
import logging

# torchao probes optional CUDA extensions at import and logs each failure, and torch's pytree
# logs a deprecation for one of torchao's enums: neither concerns a CPU-only compiler.
for _noisy in ("torchao", "torch.utils._pytree"):
    logging.getLogger(_noisy).setLevel(logging.ERROR)

from compiler.target import Target  # noqa: E402

__all__ = ["lower", "Program", "Target"]


def __getattr__(name: str):
    if name == "lower":
        from compiler.pipeline import lower

        return lower
    if name == "Program":
        from compiler.program import Program

        return Program
    raise AttributeError(f"module 'compiler' has no attribute {name!r}")
