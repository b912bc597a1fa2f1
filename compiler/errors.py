"""Named errors of the compiler: each says what is wrong and how to fix it."""
from __future__ import annotations


class EmberCompileError(Exception):
    """Base class of every error the compiler raises on purpose."""


class UnsupportedOpError(EmberCompileError):
    """An op of the user's model that Ember cannot lower; names the op and the model line."""

    def __init__(self, op: str, origin: str, hint: str = "") -> None:
        where = f" (from {origin})" if origin else ""
        super().__init__(f"unsupported op {op}{where}. {hint}".strip())
        self.op = op
        self.origin = origin


class CalibrationError(EmberCompileError, ValueError):
    """Calibration data that does not fit the model: empty, or batches whose per-sample shape is
    not the example input's."""


class UnsupportedOpsError(UnsupportedOpError):
    """Every op of a model that Ember cannot lower, found in one pass, one line each."""

    def __init__(self, problems: list[UnsupportedOpError]) -> None:
        lines = [f"  - {problem}" for problem in problems]
        EmberCompileError.__init__(self, f"{len(problems)} op{'s' if len(problems) > 1 else ''} of the model "
                                   "cannot be lowered:\n" + "\n".join(lines))
        self.problems = problems
        self.op, self.origin = problems[0].op, problems[0].origin


class InputShapeError(EmberCompileError, ValueError):
    """An input whose shape is not the one the program (or the model) takes."""


class ModelError(EmberCompileError, TypeError):
    """What was given as the model is not one Ember can take (not an nn.Module, None …), or the
    quantizer's options name nothing in it."""


class TargetError(EmberCompileError):
    """An unknown CPU, or a tier the CPU cannot run."""


class PlanError(EmberCompileError):
    """The memory plan does not fit, or failed verification."""


class ProgramFormatError(EmberCompileError):
    """A program file that is not a valid Ember program."""


class ProfileFormatError(EmberCompileError):
    """A profile file (tools/op_profile.py's profile.json) that is missing, malformed or of another program."""


class FrontEndError(EmberCompileError):
    """An audio front end (lower(..., front_end=)) that does not fit the model's input."""


class PlacementError(PlanError):
    """A memory placement the app asked for (app.yaml `memory:` pins and caps) that cannot be
    honoured: an unknown region, tensor or layer, a cap that is not a size, or a pin that does not fit."""


class StreamError(EmberCompileError):
    """A `stream=` the model cannot take: an axis or hop that does not fit program input 0, or a
    window along time over a tensor left in float (passes/stream_frames.py)."""


class StateError(EmberCompileError):
    """A `state=` binding the model cannot take: an index out of range, a state made or read in
    float, or an input and the output that feeds it of different shapes (passes/bind_state.py)."""
