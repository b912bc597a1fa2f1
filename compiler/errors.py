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


class TargetError(EmberCompileError):
    """An unknown CPU, or a tier the CPU cannot run."""


class PlanError(EmberCompileError):
    """The memory plan does not fit, or failed verification."""


class ProgramFormatError(EmberCompileError):
    """A program file that is not a valid Ember program."""


class ProfileFormatError(EmberCompileError):
    """A profile file (tools/profile.py's profile.json) that is missing, malformed or of another program."""


class FrontEndError(EmberCompileError):
    """An audio front end (lower(..., front_end=)) that does not fit the model's input."""


class PlacementError(PlanError):
    """A memory placement the app asked for (app.yaml `memory:` pins and caps) that cannot be
    honoured: an unknown region, tensor or layer, a cap that is not a size, or a pin that does not fit."""
