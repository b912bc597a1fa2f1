"""stream_frames: a windowed model lowered with stream=Stream(axis, hop) takes hop new frames per
invoke, and each invoke returns exactly what the windowed program returns for the window ending
with its frames (the reference, the host runtime and QEMU), once the stream has filled a window.

Graph level: each window along time gets a history of extent - stride frames (a persistent tensor);
an op that needs the whole window (a dense layer over all frames, a mean over time) gets all
but the new frames; the rest of the graph, once a tensor is whole again, is the windowed graph's."""
from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn

import compiler
from compiler.audio_features import FrontEnd
from compiler.errors import StreamError
from compiler.options import Stream
from compiler.quantizer import CortexMQuantizer

from build_host import build_em_run, build_em_run_firmware

STREAM = 48


class TemporalNet(nn.Module):
    """A 1-D DS-CNN over time (the MLPerf Tiny streaming wake word model's shape, smaller):
    depthwise k x 1 and pointwise conv1d blocks that reduce `frames` to `frames - sum(k - 1)`, then
    `head`: "dense" (a linear over the remaining frames: the whole window), "mean" (over time), or
    "last" (the receptive field is the window: one frame is left)."""

    def __init__(self, kernels=(3, 5), channels=(8, 12), features=6, head="dense", frames=12, pool=False):
        super().__init__()
        layers, cin = [], features
        for k, c in zip(kernels, channels):
            layers += [nn.Conv1d(cin, cin, k, groups=cin), nn.BatchNorm1d(cin), nn.ReLU(), nn.Conv1d(cin, c, 1),
                       nn.ReLU()]
            cin = c
        if pool:
            layers.append(nn.MaxPool1d(2, 1))
        self.blocks, self.head = nn.Sequential(*layers), head
        left = frames - sum(k - 1 for k in kernels) - (1 if pool else 0)
        self.fc = nn.Linear(cin * (left if head == "dense" else 1), 3)

    def forward(self, x):
        y = self.blocks(x)
        y = y.mean(2) if self.head == "mean" else torch.flatten(y, 1)
        return self.fc(y)


def programs(model: nn.Module, features: int, frames: int, hop: int = 1, target: str = "cortex-m55", **kw):
    torch.manual_seed(0)
    model.eval()
    for m in model.modules():
        if isinstance(m, nn.BatchNorm1d):
            m.running_mean.uniform_(-0.3, 0.3)
            m.running_var.uniform_(0.5, 2.0)
    g = torch.Generator().manual_seed(1)
    calibration = [torch.randn(1, features, frames, generator=g) for _ in range(8)]
    windowed = compiler.lower(model, (calibration[0],), calibration, target, report_fallbacks=False)
    streamed = compiler.lower(model, (calibration[0],), calibration, target, stream=Stream(2, hop),
                              report_fallbacks=False, **kw)
    return windowed, streamed


def check_equal_on_the_stream(windowed, streamed, features: int, frames: int, hop: int = 1) -> np.ndarray:
    x = torch.randn(1, features, STREAM, generator=torch.Generator().manual_seed(2)).numpy()
    state: dict = {}
    outs = [streamed.run_reference(x[:, :, t:t + hop], state=state)[0] for t in range(0, STREAM, hop)]
    for k, t in enumerate(range(0, STREAM, hop)):
        end = t + hop
        if end >= frames:
            np.testing.assert_array_equal(outs[k], windowed.run_reference(x[:, :, end - frames:end])[0])
    return x


@pytest.mark.parametrize("head", ["dense", "mean", "last"])
def test_each_invoke_equals_the_windowed_program_on_its_window(head):
    frames = 7 if head == "last" else 12
    windowed, streamed = programs(TemporalNet(head=head, frames=frames), 6, frames)
    check_equal_on_the_stream(windowed, streamed, 6, frames)
    assert streamed.graph.tensors[streamed.graph.inputs[0]].shape == (1, 6, 1)


def test_hops_of_several_frames_and_a_pool_along_time():
    windowed, streamed = programs(TemporalNet(pool=True), 6, 12, hop=3)
    check_equal_on_the_stream(windowed, streamed, 6, 12, hop=3)


def test_each_window_keeps_extent_minus_one_frames_and_the_dense_head_the_rest():
    _, streamed = programs(TemporalNet(kernels=(3, 5), channels=(8, 12), head="dense", frames=12), 6, 12)
    graph = streamed.graph
    # NHWC [1, 1, frames, C]: the depthwise convolutions' 2 and 4 frames, the dense layer's 12 - 6 - 1
    histories = sorted((graph.tensors[s.tensor].shape[2], graph.tensors[s.tensor].shape[3]) for s in graph.state)
    assert histories == [(2, 6), (4, 8), (5, 12)]
    assert sum(op.kind == "concatenation" for op in graph.ops) == 3
    assert all(graph.tensors[s.next].shape == graph.tensors[s.tensor].shape for s in graph.state)


def test_a_strided_convolution_that_leaves_its_last_frame_unread_reads_the_whole_window():
    """12 frames, extent 3, stride 2: the windowed convolution reads frames 0..10, not 11. A history
    of one frame joined to the two new ones would read frames 9..11: it gets the window instead."""
    class Strided(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv, self.fc = nn.Conv1d(6, 8, 3, stride=2), nn.Linear(8 * 5, 3)

        def forward(self, x):
            return self.fc(torch.flatten(torch.relu(self.conv(x)), 1))

    windowed, streamed = programs(Strided(), 6, 12, hop=2)
    check_equal_on_the_stream(windowed, streamed, 6, 12, hop=2)
    conv = next(op for op in streamed.graph.ops if op.kind == "conv2d")
    assert streamed.graph.tensors[conv.inputs[0]].shape[2] == 12


def test_a_stream_the_model_cannot_take_is_a_stream_error():
    model = TemporalNet()
    with pytest.raises(StreamError, match="multiple of the hop"):
        programs(model, 6, 12, hop=5)
    with pytest.raises(StreamError, match="give an axis"):
        compiler.lower(model.eval(), (torch.randn(1, 6, 12),), [torch.randn(1, 6, 12)], stream=Stream(3, 1))
    skip = CortexMQuantizer(skip_modules=("blocks.3",))  # a pointwise conv left in float
    with pytest.raises(StreamError, match="quantize the ops along time"):
        programs(model, 6, 12, quantizer=skip)


def _em_run_invokes(device: str, tmp_path: Path, invokes: int) -> np.ndarray:
    """em_run's outputs [invokes, -1] of s.embr over in.bin, on the host build or in QEMU."""
    from ember_build.board import load_board
    from ember_build.qemu import emulator_command

    args = f"s.embr --input in.bin --output out.bin --invokes {invokes}"
    if device == "host":
        cmd = [str(build_em_run()), *args.split()]
    else:
        cmd = emulator_command(load_board(device), build_em_run_firmware(device), args)
    result = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return np.fromfile(tmp_path / "out.bin", np.float32).reshape(invokes, -1)


def _stream_files(streamed, x, tmp_path):
    path = streamed.save(tmp_path / "s.embr")
    frames = np.ascontiguousarray(np.moveaxis(x, 2, 0)).astype(np.float32)  # [T, 1, C]: one frame after another
    frames.tofile(tmp_path / "in.bin")
    return path


@pytest.mark.parametrize("device", ["host", "corstone300", "mps2_an386"])
def test_the_runtime_streams_as_the_reference(device, tmp_path):
    from ember_build.board import load_board

    target = "cortex-m3" if device == "host" else load_board(device).cpu
    windowed, streamed = programs(TemporalNet(), 6, 12, target=target)
    x = check_equal_on_the_stream(windowed, streamed, 6, 12)
    _stream_files(streamed, x, tmp_path)
    got = _em_run_invokes(device, tmp_path, STREAM)
    state: dict = {}
    want = np.stack([streamed.run_reference(x[:, :, t:t + 1], state=state)[0].reshape(-1) for t in range(STREAM)])
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


# ---------------------------------------------------------------------------------------------
# A front end streamed along its samples (mel_features' Window rule: a frame of frame_length
# samples every frame_step): Stream(1, hop) on a program with `front_end=` takes `hop` int16
# samples per invoke and keeps the frame's earlier samples in an int16 history.

# small, so the reference runs fast: 240-sample frames every 80, 256-point FFT, 12 mel bands;
# 10 frames of features per window of 960 samples
SMALL_LOG_MEL = FrontEnd(name="test_log_mel", samples=240 + 9 * 80, frame_length=240, frame_step=80, fft_length=256,
                         n_mels=12, fmin=0.0, fmax=8000.0, mel_scale="htk", magnitude=False, log="db", eps=1e-4)
AUDIO_HOPS = 24


class FeatureNet(nn.Module):
    """Log-mel frames [N, frames, mels] (the front end's order) through a conv1d stack over time."""

    def __init__(self, mels: int, frames: int) -> None:
        super().__init__()
        self.blocks = nn.Sequential(nn.Conv1d(mels, mels, 3, groups=mels), nn.BatchNorm1d(mels), nn.ReLU(),
                                    nn.Conv1d(mels, 8, 1), nn.ReLU())
        self.fc = nn.Linear(8 * (frames - 2), 3)

    def forward(self, x):
        return self.fc(torch.flatten(self.blocks(x.transpose(1, 2)), 1))


def audio_programs(front_end: FrontEnd, hop: int, target: str = "cortex-m55"):
    torch.manual_seed(0)
    model = FeatureNet(front_end.n_mels, front_end.frames).eval()
    rng = np.random.default_rng(3)
    calibration = [torch.from_numpy(front_end((rng.normal(size=(1, front_end.samples)) * 2000).astype(np.int16)))
                   for _ in range(6)]
    kw = dict(front_end=front_end, report_fallbacks=False)
    windowed = compiler.lower(model, (calibration[0],), calibration, target, **kw)
    streamed = compiler.lower(model, (calibration[0],), calibration, target, stream=Stream(1, hop), **kw)
    return windowed, streamed


def speech_like_audio(samples: int) -> np.ndarray:
    """Noise under a swept tone, loud and quiet stretches: features that change from frame to frame."""
    rng = np.random.default_rng(4)
    t = np.arange(samples) / 16000
    level = 3000 * (1.2 + np.sin(2 * np.pi * 1.5 * t))
    x = level * np.sin(2 * np.pi * (300 + 2000 * t) * t) + rng.normal(size=samples) * 300
    return np.clip(x, -32768, 32767).astype(np.int16)[None, :]


def check_audio_stream(windowed, streamed, front_end: FrontEnd, hop: int) -> np.ndarray:
    """The streamed reference against the windowed one on every full window; returns the audio."""
    audio = speech_like_audio(AUDIO_HOPS * hop)
    state: dict = {}
    checked = 0
    for k in range(AUDIO_HOPS):
        out = streamed.run_reference(audio[:, k * hop:(k + 1) * hop], state=state)[0]
        end = (k + 1) * hop
        if end >= front_end.samples:
            np.testing.assert_array_equal(out, windowed.run_reference(audio[:, end - front_end.samples:end])[0])
            checked += 1
    assert checked >= AUDIO_HOPS // 3
    return audio


@pytest.mark.parametrize("hop", [80, 160])
def test_a_streamed_front_end_takes_a_hop_of_samples_and_equals_the_windowed_program(hop):
    windowed, streamed = audio_programs(SMALL_LOG_MEL, hop)
    check_audio_stream(windowed, streamed, SMALL_LOG_MEL, hop)
    graph = streamed.graph
    audio = graph.tensors[graph.inputs[0]]
    assert (audio.dtype, audio.shape) == ("int16", (1, hop))
    mel = next(op for op in graph.ops if op.kind == "mel_features")
    # the frame's earlier samples: 240 - 80 of them, in an int16 history reset to 0 (silence)
    joined = graph.tensors[mel.inputs[0]]
    assert joined.shape == (1, 160 + hop)
    assert graph.tensors[mel.outputs[0]].shape == (1, hop // 80, SMALL_LOG_MEL.n_mels)
    histories = {graph.tensors[s.tensor].dtype: graph.tensors[s.tensor].shape for s in graph.state}
    assert histories["int16"] == (1, 160)


@pytest.mark.parametrize("front_end, hop", [
    (SMALL_LOG_MEL, 120),  # not a multiple of the frame step
    # 200-sample frames every 80 in 1040 samples: the window's last 40 samples follow its last frame
    (dataclasses.replace(SMALL_LOG_MEL, name="test_log_mel_tail", frame_length=200, samples=1040), 80)],
    ids=["hop_off_the_step", "samples_after_the_last_frame"])
def test_a_front_end_the_window_rule_does_not_fit_gets_the_whole_window_of_samples(front_end, hop):
    """No window rule then: the front end recomputes every frame from a history of all the
    window's earlier samples (correct, and as slow as the windowed program)."""
    windowed, streamed = audio_programs(front_end, hop)
    check_audio_stream(windowed, streamed, front_end, hop)
    mel = next(op for op in streamed.graph.ops if op.kind == "mel_features")
    assert streamed.graph.tensors[mel.inputs[0]].shape == (1, front_end.samples)


@pytest.mark.parametrize("device", ["host", "corstone300"])
def test_the_runtime_streams_a_front_end_as_the_reference(device, tmp_path):
    from ember_build.board import load_board

    hop = 80
    target = "cortex-m3" if device == "host" else load_board(device).cpu
    windowed, streamed = audio_programs(SMALL_LOG_MEL, hop, target=target)
    audio = check_audio_stream(windowed, streamed, SMALL_LOG_MEL, hop)
    streamed.save(tmp_path / "s.embr")
    audio.tofile(tmp_path / "in.bin")  # one hop of int16 samples after another
    got = _em_run_invokes(device, tmp_path, AUDIO_HOPS)
    state: dict = {}
    want = np.stack([streamed.run_reference(audio[:, k * hop:(k + 1) * hop], state=state)[0].reshape(-1)
                     for k in range(AUDIO_HOPS)])
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
