"""Synthetic machine sounds and the MLPerf Tiny anomaly-detection features.

Normal clips: a rotating machine — a fundamental with decaying harmonics, slow amplitude
modulation and background noise. Anomalous clips add one fault: shifted harmonics, clicks, or
bearing noise (high-frequency bursts). Features follow the MLPerf Tiny AD reference: log-mel
spectrogram (1024-point FFT, hop 512, 128 mel bins, power 2, dB) and 5 consecutive frames
concatenated into 640 values. The mel filter bank is written out here (Slaney-style HTK mel
scale, triangular filters) to avoid pulling librosa and numba into the device toolchain.
"""
from __future__ import annotations

import numpy as np

SAMPLE_RATE = 16_000
CLIP_SECONDS = 1.0
N_FFT = 1024
HOP = 512
N_MELS = 128
FRAMES = 5
FEATURE_DIM = N_MELS * FRAMES
FAULTS = ("shifted_harmonics", "clicks", "bearing_noise")


def _hz_to_mel(hz: np.ndarray) -> np.ndarray:
    return 2595.0 * np.log10(1.0 + np.asarray(hz) / 700.0)


def _mel_to_hz(mel: np.ndarray) -> np.ndarray:
    return 700.0 * (10.0 ** (np.asarray(mel) / 2595.0) - 1.0)


def mel_filterbank(n_mels: int = N_MELS, n_fft: int = N_FFT, sample_rate: int = SAMPLE_RATE) -> np.ndarray:
    """[n_mels, n_fft/2 + 1] triangular filters, equally spaced on the mel scale."""
    bins = np.linspace(0, sample_rate / 2, n_fft // 2 + 1)
    edges = _mel_to_hz(np.linspace(0, _hz_to_mel(sample_rate / 2), n_mels + 2))
    low, centre, high = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    rising = (bins[None, :] - low) / (centre - low)
    falling = (high - bins[None, :]) / (high - centre)
    return np.maximum(0.0, np.minimum(rising, falling)).astype(np.float32)


_FILTERS = mel_filterbank()


def log_mel(audio: np.ndarray) -> np.ndarray:
    """[frames, N_MELS] log-mel energies in dB of a mono clip."""
    n_frames = 1 + (len(audio) - N_FFT) // HOP
    index = np.arange(N_FFT)[None, :] + HOP * np.arange(n_frames)[:, None]
    window = np.hanning(N_FFT).astype(np.float32)
    power = np.abs(np.fft.rfft(audio[index] * window, axis=1)) ** 2
    return (10.0 * np.log10(power @ _FILTERS.T + 1e-10)).astype(np.float32)


def features(audio: np.ndarray) -> np.ndarray:
    """[windows, FEATURE_DIM]: every run of FRAMES consecutive log-mel frames, flattened."""
    mel = log_mel(audio)
    windows = len(mel) - FRAMES + 1
    return np.stack([mel[i:i + FRAMES].reshape(-1) for i in range(windows)])


def machine_sound(rng: np.random.Generator, fault: str | None = None) -> np.ndarray:
    """One clip of a synthetic machine; `fault` is None (normal) or one of FAULTS."""
    t = np.arange(int(SAMPLE_RATE * CLIP_SECONDS)) / SAMPLE_RATE
    f0 = rng.uniform(110, 140)
    partials = np.arange(1, 9, dtype=np.float64)
    if fault == "shifted_harmonics":
        partials = partials * rng.uniform(1.06, 1.15) + rng.uniform(0.2, 0.5)
    amplitudes = 1.0 / partials ** rng.uniform(0.8, 1.2)
    phases = rng.uniform(0, 2 * np.pi, len(partials))
    tone = (amplitudes[:, None] * np.sin(2 * np.pi * f0 * partials[:, None] * t + phases[:, None])).sum(0)
    modulation = 1.0 + 0.2 * np.sin(2 * np.pi * rng.uniform(4, 12) * t)
    audio = 0.1 * tone * modulation + rng.normal(0, 0.01, t.shape)
    if fault == "clicks":
        period = int(SAMPLE_RATE / rng.uniform(8, 20))
        clicks = np.zeros_like(t)
        clicks[rng.integers(0, period)::period] = rng.uniform(0.5, 1.0)
        audio += np.convolve(clicks, np.exp(-np.arange(64) / 8.0), mode="same")
    elif fault == "bearing_noise":
        burst = rng.normal(0, 0.08, t.shape)
        burst = np.diff(burst, prepend=0.0)  # tilt the noise towards high frequencies
        audio += burst * (np.sin(2 * np.pi * rng.uniform(20, 40) * t) > 0.3)
    return (audio * rng.uniform(0.7, 1.3)).astype(np.float32)


def dataset(clips: int, anomalous: bool, seed: int) -> np.ndarray:
    """[clips × windows, FEATURE_DIM] features of normal (or anomalous) synthetic clips."""
    rng = np.random.default_rng(seed)
    faults = [FAULTS[i % len(FAULTS)] if anomalous else None for i in range(clips)]
    return np.concatenate([features(machine_sound(rng, fault)) for fault in faults]).astype(np.float32)
