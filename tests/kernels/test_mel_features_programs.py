"""The audio front end in whole programs: the full MLPerf MFCC (1 s) and log-mel window on the
host and in QEMU (scalar M3, MVE M55), a lowered model that takes raw audio (host), and programs
whose tables break the kernel's ranges, which the adapter must refuse at load time. One em_run
launch per device."""
from __future__ import annotations


import numpy as np
import pytest
import torch
from torch import nn

import compiler
from compiler import audio_features as af
from compiler.ir import Graph, Tensor
from compiler.ops.mel_features import front_end_op
from compiler.planner import Region, plan_memory
from compiler.target import Target
from compiler.writer import write_program
from conformance import DEVICES, run_batch


def speech(samples: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    t = np.arange(samples) / af.SAMPLE_RATE
    s = sum(np.sin(2 * np.pi * 130 * k * t + rng.uniform(0, 6)) / k for k in range(1, 60))
    s = s * (1 + 0.8 * np.sin(2 * np.pi * 3 * t)) + rng.normal(0, 0.02, samples)
    return np.round(s / np.abs(s).max() * 20000).astype(np.int16)[None]


def single_op_graph(front_end: af.FrontEnd, change=None) -> Graph:
    """The front end as a one-op program; `change(tensors)` may corrupt its tables first."""
    tensors, op = front_end_op(front_end, "audio", "features")
    by_name = {t.name: t for t in tensors}
    if change is not None:
        change(by_name)
    graph = Graph(by_name, [op], [n for n, t in by_name.items() if not t.is_constant and n in op.inputs],
                  ["features"])
    plan_memory(graph, Region("sram", 1 << 20))
    return graph


def full_size_programs(target: Target) -> list[tuple]:
    out = []
    for k, front_end in enumerate((af.MFCC_KWS, af.LOG_MEL_ANOMALY)):
        audio = speech(front_end.samples, k)
        out.append((write_program(single_op_graph(front_end), target), [audio.tobytes()],
                    front_end(audio).tobytes(), ["f32"]))
    return out


def _table(name: str, edit):
    def change(tensors: dict) -> None:
        tensor = next(t for n, t in tensors.items() if n.endswith(name))
        data = tensor.data.copy()
        edit(data)
        tensors[tensor.name] = Tensor(tensor.name, tensor.dtype, tensor.shape, data=data)
    return change


def _as_input(name: str):
    def change(tensors: dict) -> None:
        tensor = next(t for n, t in tensors.items() if n.endswith(name))
        tensors[tensor.name] = Tensor(tensor.name, tensor.dtype, tensor.shape)
    return change


BAD_TABLES = {
    "twiddle longer than 1": _table("twiddles", lambda d: d.__setitem__((5, 0), 2**31 - 1)),
    "band past the spectrum": _table("mel_bands", lambda d: d.__setitem__((39, 1), 300)),
    "band of negative count": _table("mel_bands", lambda d: d.__setitem__((3, 1), -1)),
    "eps exponent too large": _table("mel_bands", lambda d: d.__setitem__((0, 4), 41)),
    "negative mel weight": _table("mel_weights", lambda d: d.__setitem__(7, -1)),
    "window above 2^30": _table("window", lambda d: d.__setitem__(240, 2**30 + 1)),
    "dct row too large": _table("dct", lambda d: d.__setitem__((2, slice(None)), 2**26)),
    "window not a constant": _as_input("window"),
}


def refused_programs(target: Target) -> list[tuple]:
    audio = np.zeros((1, af.MFCC_KWS.samples), np.int16).tobytes()
    out = []
    for name, change in BAD_TABLES.items():
        graph = single_op_graph(af.MFCC_KWS, change)
        inputs = [audio] + [bytes(graph.tensors[n].nbytes) for n in graph.inputs[1:]]
        out.append((write_program(graph, target), inputs, bytes(graph.tensors["features"].nbytes)))
    return out


class TinyKws(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.conv = nn.Conv2d(1, 4, (5, 3), stride=2, padding=1)
        self.fc = nn.Linear(4 * 24 * 5, 3)

    def forward(self, x):
        return self.fc(torch.flatten(torch.relu(self.conv(x)), 1))


def lowered_model_program(target: Target) -> tuple:
    audio = np.concatenate([speech(af.KWS_SAMPLES, seed) for seed in range(4)])
    features = torch.from_numpy(af.mfcc(audio)[:, None])
    program = compiler.lower(TinyKws().eval(), (features[:1],), [features], target, int8_io=True,
                             front_end=af.MFCC_KWS, report_fallbacks=False)
    want = program.run_reference(audio[:1])[0]
    return program.to_bytes(), [audio[:1].tobytes()], np.ascontiguousarray(want).tobytes()


@pytest.fixture(scope="module", params=[d for d in DEVICES if d.name in ("host", "corstone300", "mps2_an385")],
                ids=lambda d: d.name)
def batch(request, tmp_path_factory):
    device = request.param
    target = device.target
    programs = full_size_programs(target) + refused_programs(target)
    if device.board == "host":
        programs.append(lowered_model_program(target))
    run = run_batch(device, device.build_runner(), programs, tmp_path_factory.mktemp(device.name))
    return device, run


def test_full_size_front_ends_match_the_reference(batch):
    device, run = batch
    for verdict, name in zip(run.verdicts[:2], ("MFCC 1 s", "log-mel window")):
        assert verdict.matched, f"{name} on {device.name}: {verdict.status} {verdict.detail}"


def test_tables_out_of_range_are_refused_at_load(batch):
    device, run = batch
    verdicts = run.verdicts[2:2 + len(BAD_TABLES)]
    got = {name: v.status for name, v in zip(BAD_TABLES, verdicts)}
    assert got == {name: "EM_ERR_BAD_OPERATOR" for name in BAD_TABLES}, device.name


def test_lowered_model_takes_raw_audio(batch):
    device, run = batch
    if device.board != "host":
        pytest.skip("the whole model runs on the host here; the apps run it on every board")
    verdict = run.verdicts[-1]
    assert verdict.matched, f"{verdict.status} {verdict.detail} {verdict.console}"
