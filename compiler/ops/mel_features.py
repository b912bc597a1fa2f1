"""mel_features: an audio front end, int16 PCM → MFCC or log-mel features (float32).

Inputs: audio int16 [..., T], then the constants of compiler.audio_features (window, twiddles,
mel_bands, mel_weights, log2_table and, for MFCCs, dct). Outputs: the features
[..., frames, coefficients] float32, and a scratch int32 tensor (FFT buffer, spectrum and log-mel
values of one frame) that the planner places like any activation and no other op reads.
"""
from __future__ import annotations

import numpy as np

from compiler import streaming
from compiler.audio_features import features_int
from compiler.ir import Op
from compiler.ops.spec import OpSpec
from compiler.schema import program_generated as fb


CONSTANTS = ("window", "twiddles", "mel_bands", "mel_weights", "log2_table", "dct")


def scratch_words(fft_length: int, n_mels: int) -> int:
    """int32 words of the scratch output: the FFT buffer (N), one more int64 spectrum bin (2),
    the log-mel values as int64 (2 · n_mels)."""
    return fft_length + 2 + 2 * n_mels


def _reference(op: Op, inputs: list[np.ndarray]) -> list[np.ndarray]:
    tables = dict(zip(CONSTANTS, inputs[1:]))
    features = features_int(inputs[0], magnitude=bool(op.attrs["magnitude"]), frame_step=op.attrs["frame_step"],
                            log_scale_q24=op.attrs["log_scale"], **tables)
    words = scratch_words(2 * tables["twiddles"].shape[0], tables["mel_bands"].shape[0])
    return [features, np.zeros(words, np.int32)]  # the scratch's contents are undefined


def _write(builder, op: Op) -> int:
    fb.MelFeaturesOptionsStart(builder)
    fb.MelFeaturesOptionsAddFrameStep(builder, op.attrs["frame_step"])
    fb.MelFeaturesOptionsAddMagnitude(builder, int(op.attrs["magnitude"]))
    fb.MelFeaturesOptionsAddLogScale(builder, op.attrs["log_scale"])
    return fb.MelFeaturesOptionsEnd(builder)


def _read(table) -> dict:
    options = fb.MelFeaturesOptions()
    options.Init(table.Bytes, table.Pos)
    return {"frame_step": options.FrameStep(), "magnitude": int(options.Magnitude()), "log_scale": options.LogScale()}


MEL_FEATURES = OpSpec(
    kind="mel_features",
    opcode=fb.OpCode.MEL_FEATURES,
    options_type=fb.OpOptions.MelFeaturesOptions,
    reference=_reference,
    write_options=_write,
    read_options=_read,
    registration="em_op_mel_features",
    # streamed along the samples (compiler.options.Stream(1, hop) on a program with a front end):
    # each invoke's hop of new samples after the frame's earlier ones gives hop / frame_step frames
    stream=streaming.frame_window,
)


def front_end_op(front_end, audio: str, features: str, batch_shape: tuple[int, ...] = (1,),
                 prefix: str = "front_end") -> tuple[list, Op]:
    """The tensors (audio input, constants, features, scratch) and the mel_features op computing
    `front_end` (a compiler.audio_features.FrontEnd) of int16 audio [*batch_shape, samples]."""
    from compiler.ir import Tensor

    constants = front_end.constants()
    tensors = [Tensor(audio, "int16", (*batch_shape, front_end.samples))]
    names = [audio]
    for key in CONSTANTS:
        if key in constants:
            data = constants[key]
            dtype = "int16" if data.dtype == np.int16 else "int32"
            tensors.append(Tensor(f"{prefix}_{key}", dtype, data.shape, data=data))
            names.append(f"{prefix}_{key}")
    scratch = f"{prefix}_scratch"
    tensors += [Tensor(features, "float32", (*batch_shape, *front_end.output_shape)),
                Tensor(scratch, "int32", (scratch_words(front_end.fft_length, front_end.n_mels),))]
    attrs = {"frame_step": front_end.frame_step, "magnitude": int(front_end.magnitude),
             "log_scale": front_end.log_scale_q24}
    return tensors, Op("mel_features", names, [features, scratch], attrs, origin=front_end.name)
