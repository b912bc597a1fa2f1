"""Audio for the keyword-spotting app: espeak-ng speaking the keywords, or Speech Commands v2.

Both sources give `Clips`: `audio` int16 [N, 16000] (1 s at 16 kHz, mono; `as_float` maps it to
-1..1) and `labels` int64 [N], indices into `LABELS` — the MLPerf Tiny KWS reference's order
(down, go, left, no, off, on, right, stop, up, yes, silence, unknown). The MFCC front end is not
here: it is part of the model (an op on the device), which takes raw audio.

Synthetic clips. A keyword clip is one word spoken by espeak-ng — a voice made of an English
accent (`ACCENTS`) and a voice variant (`VARIANTS`), a speed (110–230 words per minute), a pitch
(15–85) and a punctuation mark that changes the intonation — resampled to 16 kHz, trimmed of
silence, given a random loudness and placed at a random time in the second, then mixed with a
generated background (white, pink or brown noise, babble-like speech-shaped noise with a
syllable rhythm, mains hum with harmonics) at a random signal-to-noise ratio (5–30 dB),
sometimes through a short random room reverberation. "unknown" clips speak the other 25
Speech Commands words (`UNKNOWN_WORDS`); "silence" clips are background only, from
near-digital silence to loud.
Voices are split between train / validation / test (about 80 / 10 / 10 %), so the held-out
splits are spoken by voices the training set never heard, as Speech Commands holds out speakers.
Rendered words are cached under build/data/kws/espeak/ keyed by every rendering parameter and
espeak-ng's version, so a second run only mixes; every clip is a function of (seed, split).
The rendering, the voices and the noises are apps/common/speech.py's (the wake word app speaks
with them too).

Real data: the Speech Commands v2 folder (`<root>/<word>/*.wav`, `validation_list.txt`,
`testing_list.txt`, `_background_noise_/`), never downloaded here. The ten keywords keep their
labels, the other 25 words are "unknown", and "silence" clips are 1 s pieces of the background
noise files, as the MLPerf Tiny reference (TensorFlow Datasets' speech_commands) builds them.
`add_background` is the reference's training augmentation (background noise mixed into 80 % of
the clips at a volume up to 0.1).
"""
from __future__ import annotations

import hashlib
import shutil  # noqa: F401 (tests stub shutil.which through it: espeak-ng missing)
import wave
import zlib
from pathlib import Path
from typing import NamedTuple

import numpy as np

from apps.common.datasets import CACHE_ROOT, DatasetError, cached_arrays, require_dir
# espeak-ng rendering and the generated noises, shared with the wake word app
from apps.common.speech import (ACCENTS, NOISES, SAMPLE_RATE, SPLITS, VARIANTS, EspeakError, Utterance, as_float,  # noqa: F401
                                as_int16 as _as_int16, background, cached_speech as _cached_speech, espeak_version,
                                microphone, resample, reverb as _reverb, speak, voices)

CLIP_SAMPLES = SAMPLE_RATE
KEYWORDS = ("down", "go", "left", "no", "off", "on", "right", "stop", "up", "yes")
LABELS = KEYWORDS + ("silence", "unknown")
SILENCE, UNKNOWN = LABELS.index("silence"), LABELS.index("unknown")
UNKNOWN_WORDS = ("backward", "bed", "bird", "cat", "dog", "eight", "five", "follow", "forward", "four",
                 "happy", "house", "learn", "marvin", "nine", "one", "seven", "sheila", "six", "three",
                 "tree", "two", "visual", "wow", "zero")
CACHE_DIR = CACHE_ROOT / "kws"

_PUNCTUATION = ("", ".", "!", "?")
_SPEECH_COMMANDS_LAYOUT = (
    "the Speech Commands v2 folder: one folder per word (<root>/yes/*.wav, <root>/no/*.wav, … 35 words) "
    "of 16 kHz mono 16-bit WAV files, validation_list.txt and testing_list.txt (paths like "
    "'yes/0a7c2a8d_nohash_0.wav', one a line) and _background_noise_/*.wav, as unpacked from "
    "speech_commands_v0.02.tar.gz. Download and unpack it yourself and pass that folder; "
    "Ember never downloads data")


class SpeechCommandsError(DatasetError):
    """The Speech Commands folder is missing or malformed."""


class Clips(NamedTuple):
    audio: np.ndarray   # int16 [N, 16000]
    labels: np.ndarray  # int64 [N], indices into LABELS


def _mix(rng: np.random.Generator, speech: np.ndarray | None) -> np.ndarray:
    """A float clip in -1..1: speech (or nothing, for silence) at a random time and level, over noise."""
    clip = np.zeros(CLIP_SAMPLES)
    if speech is not None:
        if len(speech) > CLIP_SAMPLES:  # a very slow voice: keep the middle second
            start = (len(speech) - CLIP_SAMPLES) // 2
            speech = speech[start:start + CLIP_SAMPLES]
        offset = int(rng.integers(0, CLIP_SAMPLES - len(speech) + 1))
        clip[offset:offset + len(speech)] = speech * 10 ** rng.uniform(-1.3, -0.05)  # peak 0.05 … 0.9
        if rng.random() < 0.3:
            clip = _reverb(rng, clip)
        if rng.random() < 0.85:
            speech_rms = np.sqrt(np.mean(clip[offset:offset + len(speech)] ** 2)) + 1e-9
            snr_db = rng.uniform(5.0, 30.0)
            clip += background(rng, NOISES[rng.integers(len(NOISES))]) * speech_rms / 10 ** (snr_db / 20)
    elif rng.random() < 0.9:
        clip += background(rng, NOISES[rng.integers(len(NOISES))]) * 10 ** rng.uniform(-3.5, -0.8)
    return microphone(rng, clip)


def synthetic(count: int, seed: int, split: str = "train", cache_dir: Path | None = CACHE_DIR) -> Clips:
    """`count` clips, the 12 labels in turn (balanced) then shuffled, spoken by the voices of `split`.

    The same (count, seed, split) gives the same bytes; `cache_dir=None` renders without caching.
    """
    split_voices = voices(split)
    rng = np.random.default_rng([seed, SPLITS.index(split)])
    labels = rng.permutation(np.arange(count) % len(LABELS)).astype(np.int64)
    utterances: list[Utterance | None] = []
    for label in labels:
        if label == SILENCE:
            utterances.append(None)
            continue
        word = KEYWORDS[label] if label != UNKNOWN else UNKNOWN_WORDS[rng.integers(len(UNKNOWN_WORDS))]
        utterances.append(Utterance(word + _PUNCTUATION[rng.integers(len(_PUNCTUATION))],
                                    split_voices[rng.integers(len(split_voices))],
                                    int(rng.integers(11, 24)) * 10, int(rng.integers(3, 18)) * 5))
    speech = _cached_speech([u for u in utterances if u is not None], cache_dir)
    audio = np.stack([_as_int16(_mix(rng, None if u is None else speech[u])) for u in utterances]) \
        if count else np.zeros((0, CLIP_SAMPLES), np.int16)
    return Clips(audio, labels)


def read_wav(path: Path) -> np.ndarray:
    """int16 samples of a 16 kHz mono 16-bit WAV file, or SpeechCommandsError saying what is wrong."""
    try:
        with wave.open(str(path), "rb") as w:
            rate, channels, width = w.getframerate(), w.getnchannels(), w.getsampwidth()
            frames = w.readframes(w.getnframes())
    except (wave.Error, EOFError, OSError) as error:
        raise SpeechCommandsError(f"{path} is not a readable WAV file ({error}); expected {_SPEECH_COMMANDS_LAYOUT}") \
            from error
    if (rate, channels, width) != (SAMPLE_RATE, 1, 2):
        raise SpeechCommandsError(f"{path} is {rate} Hz, {channels} channel(s), {8 * width} bits; expected "
                                  f"16000 Hz mono 16-bit ({_SPEECH_COMMANDS_LAYOUT})")
    return np.frombuffer(frames, dtype="<i2").astype(np.int16)


def _fit(samples: np.ndarray) -> np.ndarray:
    """Exactly one second: shorter clips padded with zeros at the end (as the reference does)."""
    out = np.zeros(CLIP_SAMPLES, np.int16)
    out[: min(len(samples), CLIP_SAMPLES)] = samples[:CLIP_SAMPLES]
    return out


def _listed(root: Path, name: str) -> set[str]:
    path = root / name
    if not path.is_file():
        raise SpeechCommandsError(f"{path} is missing; expected {_SPEECH_COMMANDS_LAYOUT}")
    return {line.strip().replace("\\", "/") for line in path.read_text().splitlines() if line.strip()}


def speech_commands_index(root: Path | str, split: str) -> list[tuple[Path, int]]:
    """(wav path, label) of every word clip of `split` in a Speech Commands v2 folder, sorted by path.

    validation_list.txt and testing_list.txt name the held-out clips; every other clip is train.
    """
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, not {split!r}")
    root = require_dir(root, SpeechCommandsError, _SPEECH_COMMANDS_LAYOUT)
    validation, testing = _listed(root, "validation_list.txt"), _listed(root, "testing_list.txt")
    words = sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("_"))
    absent = [k for k in KEYWORDS if k not in words]
    if absent:
        raise SpeechCommandsError(f"{root} has no folder for {', '.join(absent)}; expected {_SPEECH_COMMANDS_LAYOUT}")
    entries = []
    for word in words:
        label = LABELS.index(word) if word in KEYWORDS else UNKNOWN
        for path in sorted((root / word).glob("*.wav")):
            name = f"{word}/{path.name}"
            in_split = "test" if name in testing else "validation" if name in validation else "train"
            if in_split == split:
                entries.append((path, label))
    return entries


def _background_files(root: Path | str) -> list[Path]:
    root = require_dir(root, SpeechCommandsError, _SPEECH_COMMANDS_LAYOUT)
    folder = require_dir(root / "_background_noise_", SpeechCommandsError, _SPEECH_COMMANDS_LAYOUT)
    files = sorted(folder.glob("*.wav"))
    if not files:
        raise SpeechCommandsError(f"{folder} holds no .wav file; expected {_SPEECH_COMMANDS_LAYOUT}")
    return files


def background_noise(root: Path | str) -> list[np.ndarray]:
    """The long recordings of `<root>/_background_noise_/*.wav` as int16 arrays, sorted by name."""
    return [read_wav(path) for path in _background_files(root)]


def _silence(root: Path, split: str) -> list[np.ndarray]:
    """1 s pieces of the background recordings; each piece goes to one split (~80/10/10) by a fixed hash."""
    pieces = []
    for path in _background_files(root):
        samples = read_wav(path)
        for index in range(len(samples) // CLIP_SAMPLES):
            bucket = zlib.crc32(f"{path.name}:{index}".encode()) % 10
            if {0: "test", 1: "validation"}.get(bucket, "train") == split:
                pieces.append(samples[index * CLIP_SAMPLES:(index + 1) * CLIP_SAMPLES])
    return pieces


def load_speech_commands(root: Path | str, split: str) -> Clips:
    """Every clip of `split`: the words (keywords, the rest as "unknown") then the silence pieces.

    Loads the whole split into memory (the v2 train split is about 2.7 GB as int16); take
    `speech_commands_index` and `read_wav` to stream it instead.
    """
    entries = speech_commands_index(root, split)
    silence = _silence(Path(root).expanduser(), split)
    audio = [_fit(read_wav(path)) for path, _ in entries] + silence
    labels = [label for _, label in entries] + [SILENCE] * len(silence)
    if not audio:
        return Clips(np.zeros((0, CLIP_SAMPLES), np.int16), np.zeros(0, np.int64))
    return Clips(np.stack(audio), np.asarray(labels, dtype=np.int64))


def add_background(clips: Clips, noise: list[np.ndarray], rng: np.random.Generator,
                   frequency: float = 0.8, volume: float = 0.1) -> Clips:
    """The MLPerf Tiny training augmentation: a random 1 s piece of a random background recording,
    scaled by uniform(0, `volume`), added to a `frequency` share of the clips, clipped to -1..1."""
    audio = as_float(clips.audio)
    for i in range(len(audio)):
        if rng.random() < frequency:
            source = noise[rng.integers(len(noise))]
            start = int(rng.integers(0, max(1, len(source) - CLIP_SAMPLES)))
            piece = as_float(_fit(source[start:start + CLIP_SAMPLES]))
            audio[i] = np.clip(audio[i] + piece * rng.uniform(0, volume), -1.0, 1.0)
    return Clips(_as_int16(audio), clips.labels)


def dataset(split: str, count: int, seed: int, root: Path | str | None = None,
            cache_dir: Path | None = CACHE_DIR) -> Clips:
    """Speech Commands `split` from `root` when given (all of it; `count` ignored), else `count` synthetic clips."""
    if root is not None:
        return load_speech_commands(root, split)
    return synthetic(count, seed, split, cache_dir)


# ---------------------------------------------------------------------------------------------
# Features: what the model sees, computed by the device's own front end (bit-exact reference)

class Features(NamedTuple):
    features: np.ndarray  # float32 [N, 49, 10]: compiler.audio_features.mfcc of the clips
    labels: np.ndarray    # int64 [N]


def mfcc_features(audio: np.ndarray, chunk: int = 256) -> np.ndarray:
    """int16 [N, 16000] → float32 [N, 49, 10], exactly the MFCCs the device's front end computes."""
    from compiler.audio_features import mfcc

    if len(audio) == 0:
        return np.zeros((0, 49, 10), np.float32)
    return np.concatenate([mfcc(audio[i:i + chunk]) for i in range(0, len(audio), chunk)])


def _front_end_version() -> str:
    """A hash of the front end's Python reference: cached features go stale when it changes."""
    import compiler.audio_features as audio_features

    return hashlib.sha1(Path(audio_features.__file__).read_bytes()).hexdigest()[:16]


def split_features(split: str, count: int, seed: int, root: Path | str | None = None,
                   cache_dir: Path | None = CACHE_DIR, augment_seed: int | None = None) -> Features:
    """MFCCs and labels of `dataset(split, count, seed, root)`, cached in `cache_dir/features/`.

    Speech Commands clips get the reference's background augmentation (`add_background`) when
    `augment_seed` is given (the training split); the synthetic clips carry their own noise.
    The cache key holds every argument, espeak-ng's version (synthetic) or the folder's path and
    clip count (real), and the front end's source hash.
    """
    if root is not None:
        source = f"speech_commands:{Path(root).expanduser().resolve()}:{len(speech_commands_index(root, split))}"
    else:
        source = f"espeak:{espeak_version()}"
    key = hashlib.sha1(repr((split, count if root is None else None, seed, source, augment_seed,
                             _front_end_version())).encode()).hexdigest()[:20]
    path = cache_dir / "features" / f"{split}-{key}.npz" if cache_dir is not None else None

    def make() -> dict[str, np.ndarray]:
        clips = dataset(split, count, seed, root, cache_dir)
        if root is not None and augment_seed is not None:
            clips = add_background(clips, background_noise(root), np.random.default_rng(augment_seed))
        return Features(mfcc_features(clips.audio), clips.labels)._asdict()

    return Features(**cached_arrays(path, make))
