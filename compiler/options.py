"""LoweringOptions: what the IR passes may need to know of the compilation, in one frozen object."""
from __future__ import annotations

from dataclasses import dataclass

from compiler.audio_features import FrontEnd
from compiler.target import Target


@dataclass(frozen=True)
class Stream:
    """Run the model on a stream: `axis` is the time axis of its input 0 (as the model takes it,
    e.g. 2 for a conv1d's [N, C, T]), `hop` the frames each invoke takes (passes/stream_frames.py)."""

    axis: int
    hop: int = 1

    def __post_init__(self) -> None:
        if not (isinstance(self.axis, int) and isinstance(self.hop, int) and self.hop >= 1):
            raise TypeError(f"Stream(axis, hop) takes an axis index and hop >= 1 frames, got {self.axis!r}, {self.hop!r}")


@dataclass(frozen=True)
class LoweringOptions:
    """`target`: the CPU and tier. `int8_io`: the program takes and returns int8 tensors (with
    their quantization recorded) instead of float32. `front_end`: an audio front end the program
    runs on its raw int16 audio input to make the model's input (passes/add_front_end.py).
    `state`: pairs (program input, program output): the input is a persistent tensor fed by the
    output of the invoke before (passes/bind_state.py). `stream`: the program takes new frames
    of input 0 per invoke, keeping what it needs of earlier ones (passes/stream_frames.py)."""

    target: Target = Target("cortex-m55")
    int8_io: bool = False
    front_end: FrontEnd | None = None
    state: tuple[tuple[int, int], ...] = ()
    stream: Stream | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "state", tuple((int(i), int(j)) for i, j in self.state))
        if not isinstance(self.target, Target):
            raise TypeError(f"target must be a compiler.target.Target, got {type(self.target).__name__}")
        if self.front_end is not None and not isinstance(self.front_end, FrontEnd):
            raise TypeError("front_end must be a compiler.audio_features.FrontEnd (e.g. MFCC_KWS, LOG_MEL_ANOMALY), "
                            f"got {type(self.front_end).__name__}")
