"""The audio front ends (compiler/audio_features.py): API, tolerance against the float64 textbook
definitions, and lowering a model with `front_end=` so that the program takes raw audio."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

import compiler
from compiler import audio_features as af
from compiler.errors import FrontEndError

T = np.arange(af.KWS_SAMPLES) / af.SAMPLE_RATE


def pcm(signal: np.ndarray, dbfs: float) -> np.ndarray:
    """Scale to a peak of `dbfs` and round to int16."""
    x = signal / np.abs(signal).max() * 10 ** (dbfs / 20)
    return np.clip(np.round(x * 32767), -32768, 32767).astype(np.int16)


def voiced(rng: np.random.Generator, noise: float = 0.0) -> np.ndarray:
    """Speech-like: a glottal harmonic series up to 8 kHz, amplitude-modulated, optional noise."""
    f0 = rng.uniform(90, 250)
    harmonics = np.arange(1, int(7900 / f0))
    amplitudes = rng.uniform(0.1, 1, harmonics.size) / harmonics
    s = (amplitudes[:, None] * np.sin(2 * np.pi * f0 * harmonics[:, None] * T + rng.uniform(0, 6, (harmonics.size, 1)))).sum(0)
    s = s * (1 + 0.8 * np.sin(2 * np.pi * rng.uniform(2, 6) * T))
    return s / np.abs(s).max() + rng.normal(0, noise, T.size)


def signals(kind: str, count: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    make = {
        "voiced": lambda: voiced(rng),
        "voiced+noise": lambda: voiced(rng, 0.01),
        "noise": lambda: rng.normal(0, 1, T.size),
        "tone": lambda: np.sin(2 * np.pi * rng.uniform(50, 3900) * T),
        "chirp": lambda: np.sin(2 * np.pi * (rng.uniform(50, 500) * T + rng.uniform(100, 1500) * T * T)),
    }[kind]
    return [pcm(make(), rng.uniform(-60, 0)) for _ in range(count)]


def test_shapes_constants_and_dtype():
    audio = np.zeros((2, 3, af.KWS_SAMPLES), np.int16)
    assert af.mfcc(audio).shape == (2, 3, *af.MFCC_SHAPE) and af.mfcc(audio).dtype == np.float32
    assert af.log_mel(np.zeros(af.ANOMALY_SAMPLES, np.int16)).shape == af.LOG_MEL_SHAPE
    assert af.MFCC_SHAPE == (49, 10) and af.LOG_MEL_SHAPE == (5, 128)
    assert af.MFCC_KWS.output_shape == af.MFCC_SHAPE and af.LOG_MEL_ANOMALY.output_shape == af.LOG_MEL_SHAPE
    assert af.MFCC_KWS.input_shape == (af.KWS_SAMPLES,) and af.LOG_MEL_ANOMALY.input_shape == (af.ANOMALY_SAMPLES,)


def test_bad_audio_is_a_named_error():
    with pytest.raises(TypeError, match="int16"):
        af.mfcc(np.zeros(af.KWS_SAMPLES, np.float32))
    with pytest.raises(ValueError, match=r"\[\.\.\., 16000\]"):
        af.mfcc(np.zeros(16001, np.int16))


def test_batches_are_independent():
    rng = np.random.default_rng(3)
    audio = rng.integers(-32768, 32768, (3, af.KWS_SAMPLES)).astype(np.int16)
    audio[1] = 0
    together = af.mfcc(audio)
    for i in range(3):
        assert np.array_equal(together[i], af.mfcc(audio[i]))


@pytest.mark.parametrize("kind, bound", [("voiced", 1e-3), ("voiced+noise", 1e-3), ("noise", 1e-3),
                                         ("tone", 0.15), ("chirp", 0.15)])
def test_mfcc_within_tolerance_of_float64(kind, bound):
    audio = np.stack(signals(kind, 4, seed=len(kind)))
    error = np.abs(af.mfcc(audio) - af.textbook_mfcc(audio)).max()
    assert error <= bound, f"{kind}: max |MFCC error| {error}"


@pytest.mark.parametrize("kind", ["voiced", "voiced+noise", "noise", "tone", "chirp"])
def test_log_mel_within_tolerance_of_float64(kind):
    clips = np.stack(signals(kind, 3, seed=7 + len(kind)))
    audio = clips[:, :5 * af.ANOMALY_SAMPLES].reshape(-1, af.ANOMALY_SAMPLES)
    ours, textbook = af.log_mel(audio), af.textbook_log_mel(audio)
    below_peak = textbook.max(axis=-1, keepdims=True) - textbook
    error = np.abs(ours - textbook)
    assert error[below_peak <= 60].max() <= 0.05
    assert error[below_peak <= 80].max() <= 0.1


def test_silence_and_full_scale():
    silence = np.zeros(af.KWS_SAMPLES, np.int16)
    assert np.abs(af.mfcc(silence) - af.textbook_mfcc(silence)).max() < 1e-3  # log(eps) exactly
    assert np.abs(af.log_mel(silence[:af.ANOMALY_SAMPLES]) - af.textbook_log_mel(silence[:af.ANOMALY_SAMPLES])).max() < 1e-3
    square = np.where((np.arange(af.KWS_SAMPLES) // 8) % 2 == 0, 32767, -32768).astype(np.int16)
    assert np.abs(af.mfcc(square) - af.textbook_mfcc(square)).max() < 0.01


# ---- lowering with a front end ----------------------------------------------------------------

class TinyKws(nn.Module):
    """A DS-CNN-shaped toy: conv over the [1, 49, 10] MFCC map, pooling, a classifier."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.conv = nn.Conv2d(1, 4, (5, 3), stride=2, padding=1)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(torch.relu(self.conv(x))), 1))


def kws_features(count: int, seed: int) -> np.ndarray:
    audio = np.stack(signals("voiced+noise", count, seed))
    return af.mfcc(audio)[:, None]  # [N, 1, 49, 10]


@pytest.fixture(scope="module")
def kws_programs():
    model = TinyKws().eval()
    calibration = [torch.from_numpy(kws_features(4, seed)) for seed in range(3)]
    example = (calibration[0][:1],)
    with_front_end = compiler.lower(model, example, calibration, front_end=af.MFCC_KWS, report_fallbacks=False)
    features_only = compiler.lower(model, example, calibration, report_fallbacks=False)
    return with_front_end, features_only


def test_program_takes_audio_and_equals_features_then_model(kws_programs):
    program, features_only = kws_programs
    graph = program.graph
    audio_input = graph.tensors[graph.inputs[0]]
    assert audio_input.dtype == "int16" and audio_input.shape == (1, af.KWS_SAMPLES)
    assert [op.kind for op in graph.ops[:3]] == ["mel_features", "reshape", "quantize"]
    for seed in (10, 11):
        audio = signals("voiced+noise", 1, seed)[0][None]
        features = af.mfcc(audio)[:, None].transpose(0, 2, 3, 1)  # NHWC, one channel
        got = program.run_reference(audio)
        want = features_only.run_reference(features)
        assert all(np.array_equal(g, w) for g, w in zip(got, want))


def test_program_with_front_end_survives_its_file(kws_programs, tmp_path):
    program, _ = kws_programs
    loaded = compiler.Program.load(program.save(tmp_path / "kws.embr"))
    audio = signals("voiced", 1, 5)[0][None]
    assert np.array_equal(loaded.run_reference(audio)[0], program.run_reference(audio)[0])


def test_log_mel_front_end_with_int8_io():
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(640, 16), nn.ReLU(), nn.Linear(16, 640)).eval()
    clips = np.stack(signals("voiced+noise", 2, 21))[:, :4 * af.ANOMALY_SAMPLES].reshape(-1, af.ANOMALY_SAMPLES)
    calibration = [torch.from_numpy(af.log_mel(clips).reshape(-1, 640))]
    program = compiler.lower(model, (calibration[0][:1],), calibration, int8_io=True, front_end=af.LOG_MEL_ANOMALY,
                             report_fallbacks=False)
    features_only = compiler.lower(model, (calibration[0][:1],), calibration, int8_io=True, report_fallbacks=False)
    assert [op.kind for op in program.graph.ops[:3]] == ["mel_features", "quantize", "reshape"]
    q = features_only.graph.tensors[features_only.graph.inputs[0]].quant
    from compiler import reference

    codes = reference.quantize_f32_s8(af.log_mel(clips[:1]).reshape(1, 640), np.float32(1 / float(q.scale[0])),
                                      int(q.zero_point[0]))
    assert np.array_equal(program.run_reference(clips[:1])[0], features_only.run_reference(codes)[0])


def test_front_end_that_does_not_fit_the_model_is_a_named_error():
    model = nn.Sequential(nn.Linear(100, 4)).eval()
    data = [torch.randn(2, 100)]
    with pytest.raises(FrontEndError, match=r"makes \[49, 10\] features"):
        compiler.lower(model, (data[0][:1],), data, front_end=af.MFCC_KWS, report_fallbacks=False)


def test_add_front_end_pass_before_and_after():
    from compiler.ir import Graph, Op, Quant, Tensor
    from compiler.options import LoweringOptions
    from compiler.passes import add_front_end

    def graph() -> Graph:
        tensors = {"x": Tensor("x", "float32", (1, 640)), "q": Tensor("q", "int8", (1, 640), Quant.per_tensor(0.5, 3))}
        return Graph(tensors, [Op("quantize", ["x"], ["q"], {"inv_scale": np.float32(2.0), "zero_point": 3})],
                     ["x"], ["q"])

    unchanged = add_front_end(graph(), LoweringOptions())
    assert [op.kind for op in unchanged.ops] == ["quantize"] and unchanged.inputs == ["x"]
    after = add_front_end(graph(), LoweringOptions(front_end=af.LOG_MEL_ANOMALY))
    assert [op.kind for op in after.ops] == ["mel_features", "reshape", "quantize"]
    audio = after.tensors[after.inputs[0]]
    assert (audio.dtype, audio.shape) == ("int16", (1, af.ANOMALY_SAMPLES))
    mel = after.ops[0]
    assert after.tensors[mel.outputs[0]].shape == (1, *af.LOG_MEL_SHAPE) and after.ops[1].outputs == ["x"]
    assert all(after.tensors[name].is_constant for name in mel.inputs[1:])
    with pytest.raises(TypeError, match="FrontEnd"):
        LoweringOptions(front_end="mfcc_kws")


def test_add_front_end_refuses_features_in_another_order():
    from compiler.ir import Graph, Tensor
    from compiler.options import LoweringOptions
    from compiler.passes import add_front_end

    for shape in [(1, 10, 49), (1, 49, 10, 2), (1, 491)]:
        graph = Graph({"x": Tensor("x", "float32", shape)}, [], ["x"], ["x"])
        with pytest.raises(FrontEndError, match="makes"):
            add_front_end(graph, LoweringOptions(front_end=af.MFCC_KWS))
