"""mel_features (audio front end): the MLPerf Tiny MFCC and log-mel front ends and small random
ones (FFT lengths 8..128, odd frame lengths and steps, magnitude / power, with and without a
DCT, HTK / Slaney filters, batches) over random audio, silence, full-scale square waves
(+32767 / -32768), DC at both ends, tones and one lone full-scale click."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from conformance import ARENA_BYTES, Case, rng_for
from compiler.audio_features import LOG_MEL_ANOMALY, MFCC_KWS, FrontEnd
from compiler.ir import Graph
from compiler.ops.mel_features import front_end_op
from compiler.planner import Region, plan_memory


def signal(kind: str, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    n = shape[-1]
    t = np.arange(n)
    if kind == "random":
        return rng.integers(-32768, 32768, size=shape).astype(np.int16)
    if kind == "silence":
        return np.zeros(shape, np.int16)
    if kind == "square":
        period = int(rng.integers(2, 40))
        return np.broadcast_to(np.where((t // period) % 2 == 0, 32767, -32768), shape).astype(np.int16)
    if kind == "dc_max":
        return np.full(shape, 32767, np.int16)
    if kind == "dc_min":
        return np.full(shape, -32768, np.int16)
    if kind == "click":
        x = np.zeros(shape, np.int16)
        x[..., int(rng.integers(0, n))] = -32768
        return x
    freq = rng.uniform(0.001, 0.5, size=shape[:-1] + (1,))
    level = 10 ** rng.uniform(-4, 0, size=shape[:-1] + (1,))
    return np.round(32767 * level * np.sin(2 * np.pi * freq * t + rng.uniform(0, 6))).astype(np.int16)


def case(fe: FrontEnd, kind: str, batch: tuple[int, ...], name: str) -> Case:
    rng = rng_for("mel_features", name)
    tensors, op = front_end_op(fe, "audio", "features", batch)
    graph = Graph({t.name: t for t in tensors}, [op], ["audio"], ["features"])
    plan_memory(graph, Region("sram", ARENA_BYTES))
    x = signal(kind, rng, (*batch, fe.samples))
    params = {"front_end": fe.name, "signal": kind, "batch": batch, "fft": fe.fft_length, "frame": fe.frame_length,
              "step": fe.frame_step, "mels": fe.n_mels, "dct": fe.dct_coefficients, "magnitude": fe.magnitude}
    return Case("mel_features", name, params, graph, [x])


def random_front_end(i: int) -> FrontEnd:
    rng = rng_for("mel_features", "front_end", i)
    fft = int(2 ** rng.integers(3, 8))
    frame = int(rng.integers(max(2, fft // 2), fft + 1))
    step = int(rng.integers(1, frame + 1))
    mels = int(rng.integers(1, min(20, fft // 2 + 1) + 1))
    htk = bool(i % 2)
    return FrontEnd(name=f"random{i}", samples=frame + step * int(rng.integers(0, 4)) + int(rng.integers(0, step)),
                    frame_length=frame, frame_step=step, fft_length=fft, n_mels=mels,
                    fmin=20.0 if htk else 0.0, fmax=8000.0 if not htk else float(rng.uniform(1000, 8000)),
                    mel_scale="htk" if htk else "slaney", magnitude=bool(i % 3 != 0), log="ln" if i % 2 else "db",
                    eps=[1e-6, 2.220446049250313e-16, 1e-3, 0.0][i % 4], dct_coefficients=int(rng.integers(0, mels + 1)))


# MFCC on 4 frames (the full second costs ~49x on the M3: its instruction count is measured by
# the front end's own benchmark, not here).
MFCC_SHORT = replace(MFCC_KWS, name="mfcc_kws_4frames", samples=480 + 3 * 320)


def cases() -> list[Case]:
    out = []
    for kind in ("random", "silence", "square", "dc_max", "dc_min", "tone", "click"):
        out.append(case(MFCC_SHORT, kind, (1,), f"mfcc_{kind}"))
        out.append(case(LOG_MEL_ANOMALY, kind, (1,), f"log_mel_{kind}"))
    out.append(case(MFCC_SHORT, "tone", (3,), "mfcc_tone_batch3"))
    for i in range(12):
        fe = random_front_end(i)
        out.append(case(fe, ["random", "tone", "square", "click"][i % 4], (1, 2) if i % 5 == 0 else (2,), f"random{i}"))
    return out
