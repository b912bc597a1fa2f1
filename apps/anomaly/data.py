"""Machine sounds for the anomaly app, and the features the device computes from them.

Synthetic clips: a rotating machine — a fundamental with decaying harmonics, slow amplitude
modulation and background noise, all varying from clip to clip as units and runs of one machine
type do. Anomalous clips add one fault at one of three severities (`machine_sound`): one harmonic
shifted by a few percent, sparse metallic ticks, or faint bearing noise (high-frequency bursts at
the shaft rate); the subtle ones hide in the normal spread, so the AUC is well below 1. Real data: the DCASE 2020 task 2 development layout of
ToyADMOS and MIMII machines (`load_machine`), as the MLPerf Tiny anomaly benchmark uses it.

The device takes raw audio: windows of 3072 int16 samples (5 frames of 1024 samples, hop 512)
at a hop of 512 samples, each turned into the MLPerf Tiny features (log-mel, 128 bins, dB,
5 frames = 640 values) by the program's own front end op. The features here are that op's
Python reference (`compiler.audio_features.log_mel`, bit-exact with the device), so training,
calibration and the device all see the same numbers.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
import wave
from pathlib import Path

import numpy as np

from apps.common.datasets import CACHE_ROOT, DatasetError, require_dir

SAMPLE_RATE = 16_000
CLIP_SECONDS = 1.0
WINDOW = 3072  # samples the front end turns into one 640-value feature vector
HOP = 512
FRAMES, N_MELS = 5, 128
FEATURE_DIM = N_MELS * FRAMES
FAULTS = ("shifted_harmonics", "clicks", "bearing_noise")
SEVERITIES = (1, 2, 3)  # subtle, moderate, clear
CACHE_DIR = CACHE_ROOT / "anomaly"
_MACHINE_LAYOUT = (
    "the DCASE 2020 task 2 development layout of one machine (ToyADMOS ToyCar / ToyConveyor or a MIMII "
    "machine): <root>/train/normal_id_XX_NNNNNNNN.wav (normal sounds only) and <root>/test/normal_id_*.wav "
    "plus <root>/test/anomaly_id_*.wav, 16 kHz mono 16-bit WAV files, e.g. dev_data/ToyCar as unpacked from "
    "DCASE's dev_data_ToyCar.zip. Download and unpack it yourself and pass that machine's folder; Ember never "
    "downloads data")


class MachineDataError(DatasetError):
    """The ToyADMOS / MIMII folder is missing or malformed."""


def machine_sound(rng: np.random.Generator, fault: str | None = None, severity: int = 2) -> np.ndarray:
    """One clip of a synthetic machine (float32, about ±0.5); `fault` is None (normal) or one of
    FAULTS, `severity` one of SEVERITIES (1 subtle … 3 clear; ignored for a normal clip).

    Normal clips vary the way one machine type does between units and runs: speed (f0 110–140 Hz,
    with a slow wobble), timbre (harmonic roll-off and per-harmonic gains), modulation depth and
    rate, background noise level and colour, and gain. The faults are small against that spread:
    one harmonic off its place by 2–6 %, sparse clicks (4–10 a second, so many windows hold
    none), or faint high-frequency bearing noise bursting at the shaft rate.
    """
    if fault is not None and fault not in FAULTS:
        raise ValueError(f"fault must be None or one of {', '.join(FAULTS)}, not {fault!r}")
    if severity not in SEVERITIES:
        raise ValueError(f"severity must be one of {SEVERITIES}, not {severity!r}")
    level = severity - 1  # index into the per-fault severity tables
    n = int(SAMPLE_RATE * CLIP_SECONDS)
    t = np.arange(n) / SAMPLE_RATE
    f0 = rng.uniform(110, 140)
    wobble = 1.0 + rng.uniform(0.001, 0.004) * np.sin(2 * np.pi * rng.uniform(0.3, 2.0) * t + rng.uniform(0, 2 * np.pi))
    phase = 2 * np.pi * f0 * np.cumsum(wobble) / SAMPLE_RATE  # the shaft's angle
    partials = np.arange(1, 11, dtype=np.float64)
    amplitudes = partials ** -rng.uniform(0.8, 1.2) * rng.uniform(0.8, 1.25, len(partials))
    ratios = partials.copy()
    if fault == "shifted_harmonics":  # one harmonic (2nd–7th) off by a few percent, up or down
        k = rng.integers(1, 7)
        ratios[k] *= 1.0 + rng.choice([-1.0, 1.0]) * (0.02, 0.035, 0.06)[level] * rng.uniform(0.8, 1.2)
    phases = rng.uniform(0, 2 * np.pi, len(partials))
    tone = (amplitudes[:, None] * np.sin(ratios[:, None] * phase[None, :] + phases[:, None])).sum(0)
    modulation = 1.0 + rng.uniform(0.05, 0.2) * np.sin(2 * np.pi * rng.uniform(3, 15) * t + rng.uniform(0, 2 * np.pi))
    noise = rng.normal(0, 1, n)
    smooth = rng.uniform(0.0, 0.5)  # background colour: white (0) to low-passed
    noise = _one_pole(noise, smooth) * np.sqrt(1 - smooth ** 2)
    audio = 0.1 * tone * modulation + rng.uniform(0.006, 0.012) * noise
    if fault == "clicks":  # sparse metallic ticks (a 2–5 kHz ring of about 1 ms) at random times
        clicks = np.zeros(n)
        where = rng.integers(0, n, rng.integers(4, 11))
        clicks[where] = rng.uniform(0.5, 1.0, len(where)) * rng.choice([-1.0, 1.0], len(where))
        tick = np.exp(-np.arange(64) / 12.0) * np.sin(2 * np.pi * rng.uniform(2000, 5000) * np.arange(64) / SAMPLE_RATE)
        audio += (0.1, 0.2, 0.4)[level] * np.convolve(clicks, tick)[:n]
    elif fault == "bearing_noise":  # faint high-frequency noise, bursting once a shaft turn
        hiss = np.diff(rng.normal(0, 1, n + 1))
        bursts = np.maximum(0.0, np.sin(phase * rng.choice([1.0, 2.0]) + rng.uniform(0, 2 * np.pi))) ** 2
        audio += (0.012, 0.018, 0.025)[level] * hiss * bursts
    return (audio * rng.uniform(0.8, 1.25)).astype(np.float32)


def _one_pole(x: np.ndarray, a: float) -> np.ndarray:
    """A one-pole low-pass, y[i] = a·y[i−1] + x[i], as its impulse response truncated where a^k
    falls below 1e-6 (a = 0 leaves x as it is)."""
    taps = 1 if a <= 0 else int(np.ceil(np.log(1e-6) / np.log(a)))
    return np.convolve(x, a ** np.arange(taps))[:len(x)]


def as_int16(audio: np.ndarray) -> np.ndarray:
    """Float audio in -1..1 as int16 PCM (what a microphone driver hands the device)."""
    return np.clip(np.rint(np.asarray(audio, np.float64) * 32768.0), -32768, 32767).astype(np.int16)


def windows(audio: np.ndarray) -> np.ndarray:
    """int16 [W, 3072]: every window of a clip at a hop of 512 samples (W = 26 for one second)."""
    count = (len(audio) - WINDOW) // HOP + 1
    if count < 1:
        return np.zeros((0, WINDOW), np.int16)
    return audio[np.arange(WINDOW)[None, :] + HOP * np.arange(count)[:, None]]


def features(audio_windows: np.ndarray) -> np.ndarray:
    """int16 [..., 3072] → float32 [..., 640]: the device's log-mel features, frame-major."""
    from compiler.audio_features import log_mel

    audio_windows = np.asarray(audio_windows)
    return log_mel(audio_windows).reshape(*audio_windows.shape[:-1], FEATURE_DIM)


def clip_kinds(clips: int, anomalous: bool) -> list[tuple[str | None, int]]:
    """(fault, severity) of each of `clips` synthetic clips: (None, 0) for normal ones; anomalous
    ones go through every fault at every severity in turn (clip i: fault i mod 3, severity
    i div 3 mod 3), so any 9 consecutive clips hold each pair once."""
    if not anomalous:
        return [(None, 0)] * clips
    return [(FAULTS[i % len(FAULTS)], SEVERITIES[(i // len(FAULTS)) % len(SEVERITIES)]) for i in range(clips)]


def clip_windows(clips: int, anomalous: bool, seed: int) -> np.ndarray:
    """int16 [clips × 26, 3072]: the audio windows of synthetic normal (or anomalous) clips,
    of the kinds `clip_kinds` names, in that order."""
    rng = np.random.default_rng(seed)
    return np.concatenate([windows(as_int16(machine_sound(rng, fault, severity or 2)))
                           for fault, severity in clip_kinds(clips, anomalous)])


def _cached(key: tuple, make) -> np.ndarray:
    """`make()`, stored under build/data/anomaly/ by `key` and the source hashes of the front end
    and of this file (the synthetic machine)."""
    import compiler.audio_features as audio_features

    source = hashlib.sha1(Path(audio_features.__file__).read_bytes() + Path(__file__).read_bytes()).hexdigest()[:16]
    name = hashlib.sha1(repr((key, source)).encode()).hexdigest()[:20]
    path = CACHE_DIR / f"{name}.npy"
    if path.exists():
        return np.load(path)
    value = make()
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".tmp", delete=False) as tmp:
        np.save(tmp, value)
    os.replace(tmp.name, path)
    return value


def dataset(clips: int, anomalous: bool, seed: int) -> np.ndarray:
    """float32 [clips × 26, 640]: features of synthetic normal (or anomalous) clips (cached)."""
    return _cached(("synthetic", clips, anomalous, seed),
                   lambda: features(clip_windows(clips, anomalous, seed)).astype(np.float32))


def read_wav(path: Path) -> np.ndarray:
    """int16 samples of a 16 kHz mono 16-bit WAV file, or MachineDataError saying what is wrong."""
    try:
        with wave.open(str(path), "rb") as w:
            shape = (w.getframerate(), w.getnchannels(), w.getsampwidth())
            frames = w.readframes(w.getnframes())
    except (wave.Error, EOFError, OSError) as error:
        raise MachineDataError(f"{path} is not a readable WAV file ({error}); expected {_MACHINE_LAYOUT}") from error
    if shape != (SAMPLE_RATE, 1, 2):
        raise MachineDataError(f"{path} is {shape[0]} Hz, {shape[1]} channel(s), {8 * shape[2]} bits; expected "
                               f"16000 Hz mono 16-bit ({_MACHINE_LAYOUT})")
    return np.frombuffer(frames, dtype="<i2").astype(np.int16)


def machine_files(root: Path | str, split: str) -> list[tuple[Path, bool]]:
    """(wav path, anomalous) of a DCASE-layout machine folder's `split` ("train" or "test"), sorted."""
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', not {split!r}")
    folder = require_dir(Path(root).expanduser() / split, MachineDataError, _MACHINE_LAYOUT)
    files = sorted(folder.glob("*.wav"))
    unknown = [p.name for p in files if not p.name.startswith(("normal_", "anomaly_"))]
    if not files or unknown:
        what = f"files not named normal_* or anomaly_*: {', '.join(unknown[:3])}" if unknown else "no .wav file"
        raise MachineDataError(f"{folder} has {what}; expected {_MACHINE_LAYOUT}")
    entries = [(p, p.name.startswith("anomaly_")) for p in files]
    if split == "train" and any(anomalous for _, anomalous in entries):
        raise MachineDataError(f"{folder} holds anomaly_* files: training is on normal sounds only; "
                               f"expected {_MACHINE_LAYOUT}")
    return entries


def load_machine(root: Path | str, split: str, anomalous: bool, limit: int | None = None) -> np.ndarray:
    """float32 [windows, 640]: features of the normal (or anomalous) clips of a DCASE-layout folder
    (every clip's windows at a hop of 512; the first `limit` clips with `limit`)."""
    paths = [p for p, bad in machine_files(root, split) if bad == anomalous][:limit]
    if not paths:
        raise MachineDataError(f"{Path(root) / split} has no {'anomaly' if anomalous else 'normal'}_*.wav clip; "
                               f"expected {_MACHINE_LAYOUT}")
    return np.concatenate([features(windows(read_wav(p))) for p in paths]).astype(np.float32)
