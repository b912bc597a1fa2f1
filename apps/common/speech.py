"""Synthetic speech and noise the audio apps share (kws, wakeword): espeak-ng speaking words in
many voices, cached renders, generated backgrounds and a small room's reverberation.

A voice is an English accent (`ACCENTS`) and a voice variant (`VARIANTS`); `voices(split)` puts
each voice in one of train / validation / test (about 80 / 10 / 10 %) by a fixed hash, so the
held-out splits are spoken by voices the training never heard. `speak` renders one `Utterance`
(word, voice, speed, pitch) resampled to 16 kHz, trimmed of silence, peak 1; `cached_speech`
renders many in parallel, cached as int16 under the app's cache folder keyed by every rendering
parameter and espeak-ng's version. espeak-ng is a Debian package (`apt-get install espeak-ng`;
`./scons` installs it).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import zlib
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import numpy as np

SAMPLE_RATE = 16_000
SPLITS = ("train", "validation", "test")

# espeak-ng voices with English phonemes (the MBROLA ones need extra packages, so none of those)
ACCENTS = ("en-us", "en-gb", "en-gb-scotland", "en-gb-x-gbclan", "en-gb-x-rp", "en-gb-x-gbcwmd",
           "en-029", "en-us-nyc")
VARIANTS = ("m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "f1", "f2", "f3", "f4", "f5",
            "klatt", "klatt2", "klatt3", "klatt4", "Andy", "Annie", "Alicia", "Andrea", "Denis", "Gene",
            "Jacky", "Lee", "Michael", "Mike", "aunty", "belinda", "benjamin", "david", "ed", "edward",
            "grandma", "grandpa", "john", "linda", "max", "norbert", "paul", "rob", "robert", "shelby",
            "steph", "travis", "victor", "zac", "whisperf", "croak")
NOISES = ("white", "pink", "brown", "babble", "hum")


class EspeakError(RuntimeError):
    """espeak-ng is missing or failed to render a word."""


class Utterance(NamedTuple):
    """Everything espeak-ng's output depends on (with its version): the cache key."""
    word: str
    voice: str
    speed: int
    pitch: int


def as_float(audio: np.ndarray) -> np.ndarray:
    """int16 audio as float32 in -1..1."""
    return audio.astype(np.float32) / np.float32(32768.0)


def as_int16(audio: np.ndarray) -> np.ndarray:
    return np.clip(np.rint(audio * 32767.0), -32768, 32767).astype(np.int16)


def voices(split: str) -> tuple[str, ...]:
    """The espeak-ng voices (accent+variant) of a split; a fixed hash puts each voice in one split."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, not {split!r}")
    bucket = {"test": (0,), "validation": (1,), "train": tuple(range(2, 10))}[split]
    every = [f"{accent}+{variant}" for accent in ACCENTS for variant in VARIANTS]
    return tuple(v for v in every if zlib.crc32(v.encode()) % 10 in bucket)


@lru_cache(maxsize=1)
def espeak_version() -> str:
    exe = shutil.which("espeak-ng")
    if exe is None:
        raise EspeakError("espeak-ng is not installed: the audio apps' synthetic speech (kws, wakeword) is "
                          "spoken by it. Install the Debian package (sudo apt-get install espeak-ng; ./scons "
                          "does it), or pass the app a real dataset's folder instead")
    return subprocess.run([exe, "--version"], capture_output=True, text=True, check=True).stdout.strip()


def _read_wav_bytes(blob: bytes) -> tuple[np.ndarray, int]:
    """Mono 16-bit PCM samples and the rate of a RIFF/WAVE blob, whatever its size fields say
    (espeak-ng writing to a pipe cannot fill them in)."""
    if blob[:4] != b"RIFF" or blob[8:12] != b"WAVE":
        raise ValueError("not a RIFF/WAVE stream")
    pos, rate, channels, bits, data = 12, 0, 0, 0, None
    while pos + 8 <= len(blob):
        tag, size = blob[pos:pos + 4], int.from_bytes(blob[pos + 4:pos + 8], "little")
        if tag == b"fmt ":
            channels = int.from_bytes(blob[pos + 10:pos + 12], "little")
            rate = int.from_bytes(blob[pos + 12:pos + 16], "little")
            bits = int.from_bytes(blob[pos + 22:pos + 24], "little")
        elif tag == b"data":
            end = len(blob) if size >= 0x7FFF0000 or pos + 8 + size > len(blob) else pos + 8 + size
            data = blob[pos + 8:end]
            break
        pos += 8 + size + (size & 1)
    if data is None or channels != 1 or bits != 16:
        raise ValueError(f"expected mono 16-bit PCM, got {channels} channel(s) of {bits} bits")
    return np.frombuffer(data[:len(data) // 2 * 2], dtype="<i2"), rate


def resample(audio: np.ndarray, rate_in: int, rate_out: int) -> np.ndarray:
    """Band-limited resampling by the FFT (zero-padded so the clip does not wrap around)."""
    if rate_in == rate_out:
        return audio.astype(np.float64)
    pad = len(audio) + 256
    n_out = int(round(pad * rate_out / rate_in))
    spectrum = np.fft.rfft(audio.astype(np.float64), pad)[: n_out // 2 + 1]
    out = np.fft.irfft(spectrum, n_out) * (n_out / pad)
    return out[: int(round(len(audio) * rate_out / rate_in))]


def _trim(audio: np.ndarray, margin: int = 320) -> np.ndarray:
    """The clip without leading and trailing silence (below 2 % of the peak envelope), keeping 20 ms."""
    envelope = np.convolve(np.abs(audio), np.ones(160) / 160, mode="same")
    loud = np.flatnonzero(envelope > 0.02 * envelope.max()) if envelope.max() > 0 else np.array([], int)
    if loud.size == 0:
        return audio[:0]
    return audio[max(0, loud[0] - margin): loud[-1] + margin]


def _cache_path(cache_dir: Path, utterance: Utterance) -> Path:
    key = hashlib.sha1(repr((espeak_version(), tuple(utterance))).encode()).hexdigest()
    return cache_dir / "espeak" / key[:2] / f"{key}.npy"


def speak(utterance: Utterance) -> np.ndarray:
    """espeak-ng's rendering of `utterance`: float64 at 16 kHz, trimmed, peak 1."""
    espeak_version()
    command = ["espeak-ng", "-v", utterance.voice, "-s", str(utterance.speed), "-p", str(utterance.pitch),
               "-z", "--stdout", utterance.word]
    run = subprocess.run(command, capture_output=True, timeout=60)
    if run.returncode != 0:
        raise EspeakError(f"{' '.join(command)} failed ({run.returncode}): {run.stderr.decode(errors='replace')}")
    try:
        samples, rate = _read_wav_bytes(run.stdout)
    except ValueError as error:
        raise EspeakError(f"{' '.join(command)} wrote no usable WAV ({error})") from error
    audio = _trim(resample(samples, rate, SAMPLE_RATE))
    if audio.size == 0:
        raise EspeakError(f"{' '.join(command)} produced silence")
    return audio / np.abs(audio).max()


def cached_speech(utterances: list[Utterance], cache_dir: Path | None) -> dict[Utterance, np.ndarray]:
    """Every utterance rendered, from the cache where it is there, by espeak-ng in parallel otherwise."""
    found: dict[Utterance, np.ndarray] = {}
    missing = []
    for utterance in dict.fromkeys(utterances):
        path = _cache_path(cache_dir, utterance) if cache_dir is not None else None
        if path is not None and path.exists():
            found[utterance] = np.load(path).astype(np.float64) / 32767.0
        else:
            missing.append(utterance)

    def render(utterance: Utterance) -> tuple[Utterance, np.ndarray]:
        samples = as_int16(speak(utterance))  # int16 with or without a cache, so both give the same clips
        if cache_dir is not None:  # written atomically: other processes may be reading the cache
            path = _cache_path(cache_dir, utterance)
            path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".tmp", delete=False) as tmp:
                np.save(tmp, samples)
            os.replace(tmp.name, path)
        return utterance, samples.astype(np.float64) / 32767.0

    with ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:
        found.update(pool.map(render, missing))
    return found


def coloured_noise(rng: np.random.Generator, n: int, exponent: float) -> np.ndarray:
    """Noise with power ∝ 1/f^exponent (0 white, 1 pink, 2 brown), unit RMS."""
    spectrum = np.fft.rfft(rng.normal(size=n))
    f = np.fft.rfftfreq(n)
    f[0] = f[1]
    noise = np.fft.irfft(spectrum / f ** (exponent / 2), n)
    return noise / (noise.std() + 1e-12)


def background(rng: np.random.Generator, kind: str, n: int = SAMPLE_RATE) -> np.ndarray:
    """`n` samples of generated background noise of `kind` (one of NOISES), unit RMS."""
    t = np.arange(n) / SAMPLE_RATE
    if kind in ("white", "pink", "brown"):
        return coloured_noise(rng, n, {"white": 0.0, "pink": 1.0, "brown": 2.0}[kind])
    if kind == "babble":
        # speech-shaped noise (formant-like bands) switched on and off at syllable rates by several "talkers"
        spectrum = np.fft.rfft(rng.normal(size=n))
        f = np.fft.rfftfreq(n, 1 / SAMPLE_RATE)
        shape = sum(np.exp(-0.5 * ((f - centre) / width) ** 2)
                    for centre, width in ((rng.uniform(300, 800), 200), (rng.uniform(1000, 2200), 400),
                                          (rng.uniform(2400, 3400), 500)))
        voiced = np.fft.irfft(spectrum * shape, n)
        rhythm = sum(np.clip(np.sin(2 * np.pi * rng.uniform(2.5, 6.0) * t + rng.uniform(0, 2 * np.pi)), 0, None)
                     for _ in range(int(rng.integers(2, 6))))
        noise = voiced * rhythm
    elif kind == "hum":
        mains = rng.choice([50.0, 60.0]) * rng.uniform(0.99, 1.01)
        noise = sum(rng.uniform(0.1, 1.0) / k * np.sin(2 * np.pi * mains * k * t + rng.uniform(0, 2 * np.pi))
                    for k in range(1, 8))
        noise = noise + 0.05 * rng.normal(size=n)
    else:
        raise ValueError(f"noise kind must be one of {NOISES}, not {kind!r}")
    return noise / (noise.std() + 1e-12)


def reverb(rng: np.random.Generator, audio: np.ndarray) -> np.ndarray:
    """A small room: the dry sound plus an exponentially decaying noise tail (RT60 0.1–0.5 s)."""
    length = int(SAMPLE_RATE * rng.uniform(0.1, 0.5))
    decay = np.exp(-6.9 * np.arange(length) / length)
    response = rng.normal(size=length) * decay * rng.uniform(0.02, 0.1)
    response[0] = 1.0
    wet = np.fft.irfft(np.fft.rfft(audio, len(audio) + length) * np.fft.rfft(response, len(audio) + length))
    return wet[: len(audio)]


def microphone(rng: np.random.Generator, clip: np.ndarray) -> np.ndarray:
    """`clip` as a microphone records it: plus its own noise floor (-100 … -70 dB RMS), and scaled
    down to a peak of 0.99 where it would clip."""
    clip = clip + rng.normal(0, 10 ** rng.uniform(-5, -3.5), len(clip))
    peak = np.abs(clip).max()
    return clip / peak * 0.99 if peak > 0.99 else clip
