"""Ember compiler: PyTorch model → int8 program for a Cortex-M target.

    program = compiler.lower(model, example_inputs, calibration_data, target="cortex-m55")
    program.save("model.embr"); program.run_reference(x); print(program.summary())
"""
from compiler.lower import lower
from compiler.program import Program
from compiler.target import Target

__all__ = ["lower", "Program", "Target"]
