"""stream_frames: a windowed model lowered with stream=Stream(axis, hop) takes hop new frames per
invoke, and each invoke returns exactly what the windowed program returns for the window ending
with its frames (the reference, the host runtime and QEMU), once the stream has filled a window.

Graph level: each window along time gets a history of extent - stride frames (a persistent tensor);
an op that needs the whole window (a dense layer over all frames, a mean over time) gets all
but the new frames; the rest of the graph, once a tensor is whole again, is the windowed graph's."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn

import compiler
from compiler.errors import StreamError
from compiler.options import Stream
from compiler.quantizer import CortexMQuantizer

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
from build_host import build_em_run, build_em_run_firmware  # noqa: E402

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


def test_a_stream_the_model_cannot_take_is_a_stream_error():
    model = TemporalNet()
    with pytest.raises(StreamError, match="multiple of the hop"):
        programs(model, 6, 12, hop=5)
    with pytest.raises(StreamError, match="give an axis"):
        compiler.lower(model.eval(), (torch.randn(1, 6, 12),), [torch.randn(1, 6, 12)], stream=Stream(3, 1))
    skip = CortexMQuantizer(skip_modules=("blocks.3",))  # a pointwise conv left in float
    with pytest.raises(StreamError, match="quantize the ops along time"):
        programs(model, 6, 12, quantizer=skip)


def _stream_files(streamed, x, tmp_path):
    path = streamed.save(tmp_path / "s.embr")
    frames = np.ascontiguousarray(np.moveaxis(x, 2, 0)).astype(np.float32)  # [T, 1, C]: one frame after another
    frames.tofile(tmp_path / "in.bin")
    return path


@pytest.mark.parametrize("device", ["host", "corstone300", "mps2_an386"])
def test_the_runtime_streams_as_the_reference(device, tmp_path):
    from ember_build.board import load_board
    from ember_build.qemu import emulator_command

    target = "cortex-m3" if device == "host" else load_board(device).cpu
    windowed, streamed = programs(TemporalNet(), 6, 12, target=target)
    x = check_equal_on_the_stream(windowed, streamed, 6, 12)
    _stream_files(streamed, x, tmp_path)
    args = f"s.embr --input in.bin --output out.bin --invokes {STREAM}"
    if device == "host":
        cmd = [str(build_em_run()), *args.split()]
    else:
        cmd = emulator_command(load_board(device), build_em_run_firmware(device), args)
    result = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    got = np.fromfile(tmp_path / "out.bin", np.float32).reshape(STREAM, -1)
    state: dict = {}
    want = np.stack([streamed.run_reference(x[:, :, t:t + 1], state=state)[0].reshape(-1) for t in range(STREAM)])
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
