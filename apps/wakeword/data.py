"""Audio for the streaming wake word app: espeak-ng saying "marvin" (the MLPerf Tiny streaming
wake word's word), other words, and noise; training windows and long test streams.

Labels, in the MLPerf Tiny reference's order: 0 "marvin" (the wake word), 1 "silence" (noise
only), 2 "unknown" (any other speech).

Training windows (`synthetic`): int16 [N, 15872], one model window (30 frames of the
LOG_MEL_WAKEWORD front end: 64 ms every 32 ms). A "marvin" window holds the whole word at a
random time, sometimes next to another word; an "unknown" window holds one or two other words
(the Speech Commands words and a few that sound like "marvin"), or a part of "marvin" cut by the
window's edge — the model should answer "marvin" only once it has heard all of it; a "silence"
window holds noise only. Speech is at a random level over generated noise (apps/common/speech.py:
white, pink, brown, babble, mains hum) at 5–30 dB SNR, sometimes reverberated.

Test streams (`stream`): minutes of 16 kHz audio in which `wake_words` "marvin"s and many other
words are spoken at known times over changing noise, for the detection figures
(apps/wakeword/stream.py).

Voices are split between train / validation / test by apps/common/speech.voices, so the held-out
splits (and the streams, spoken by the test voices) are voices the training never heard. Every
window and stream is a function of its arguments (seed, split); renders are cached under
build/data/wakeword/.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import NamedTuple

import numpy as np

from apps.common.datasets import CACHE_ROOT, cached_arrays
from apps.common.speech import (NOISES, SAMPLE_RATE, SPLITS, Utterance, as_int16, background, cached_speech,
                                espeak_version, microphone, reverb, voices)
from compiler.audio_features import LOG_MEL_WAKEWORD

WAKE_WORD = "marvin"
LABELS = (WAKE_WORD, "silence", "unknown")
WAKE, SILENCE, UNKNOWN = 0, 1, 2
# other speech: the Speech Commands words but "marvin", and a few words that sound like it
UNKNOWN_WORDS = ("backward", "bed", "bird", "cat", "dog", "down", "eight", "five", "follow", "forward", "four", "go",
                 "happy", "house", "learn", "left", "nine", "no", "off", "on", "one", "right", "seven", "sheila",
                 "six", "stop", "three", "tree", "two", "up", "visual", "wow", "yes", "zero",
                 "martin", "marvel", "carving", "marble", "garden", "morning")
WINDOW_SAMPLES = LOG_MEL_WAKEWORD.samples  # 15,872: 30 frames of 1024 samples every 512
HOP_SAMPLES = LOG_MEL_WAKEWORD.frame_step  # 512: 32 ms, one invoke of the streamed program
LABEL_SHARES = (0.3, 0.2, 0.5)  # marvin, silence, unknown: most windows a stream sees hold no marvin
CACHE_DIR = CACHE_ROOT / "wakeword"
_PUNCTUATION = ("", ".", "!", "?")


class Windows(NamedTuple):
    audio: np.ndarray   # int16 [N, WINDOW_SAMPLES]
    labels: np.ndarray  # int64 [N], indices into LABELS


class Event(NamedTuple):
    """A word in a stream: samples [start, end) of the stream's audio."""
    word: str
    start: int
    end: int

    @property
    def is_wake_word(self) -> bool:
        return self.word == WAKE_WORD


class Stream(NamedTuple):
    audio: np.ndarray   # int16 [samples], a multiple of HOP_SAMPLES
    events: list[Event]  # every word spoken, in time order


def _utterance(rng: np.random.Generator, word: str, split_voices: tuple[str, ...]) -> Utterance:
    """`word` in a random voice of the split, speed (110–230 words per minute), pitch and intonation."""
    return Utterance(word + _PUNCTUATION[rng.integers(len(_PUNCTUATION))], split_voices[rng.integers(len(split_voices))],
                     int(rng.integers(11, 24)) * 10, int(rng.integers(3, 18)) * 5)


def _speech_level(rng: np.random.Generator) -> float:
    return float(10 ** rng.uniform(-1.3, -0.1))  # peak 0.05 … 0.8


def _noise(rng: np.random.Generator, n: int) -> np.ndarray:
    """Unit-RMS background of a random kind, plus nothing (10 % of the time: a quiet room)."""
    if rng.random() < 0.1:
        return np.zeros(n)
    return background(rng, NOISES[rng.integers(len(NOISES))], n)


def _window(rng: np.random.Generator, parts: list[tuple[np.ndarray, int]]) -> np.ndarray:
    """A float window: speech `parts` (samples, offset; cut at the window's edges) over noise."""
    clip = np.zeros(WINDOW_SAMPLES)
    speech_rms = []
    for speech, offset in parts:
        level = _speech_level(rng)
        lo, hi = max(0, offset), min(WINDOW_SAMPLES, offset + len(speech))
        if hi > lo:
            clip[lo:hi] += speech[lo - offset:hi - offset] * level
            speech_rms.append(np.sqrt(np.mean(clip[lo:hi] ** 2)) + 1e-9)
    if parts and rng.random() < 0.3:
        clip = reverb(rng, clip)
    noise = _noise(rng, WINDOW_SAMPLES)
    if speech_rms:
        clip += noise * max(speech_rms) / 10 ** (rng.uniform(5.0, 30.0) / 20)
    else:
        clip += noise * 10 ** rng.uniform(-3.5, -0.8)
    return microphone(rng, clip)


def synthetic(count: int, seed: int, split: str = "train", cache_dir: Path | None = CACHE_DIR) -> Windows:
    """`count` windows of `split`'s voices, labelled in LABEL_SHARES, in a random order.

    The same (count, seed, split) gives the same bytes; `cache_dir=None` renders without caching.
    """
    split_voices = voices(split)
    rng = np.random.default_rng([seed, SPLITS.index(split), 19])
    counts = np.floor(np.array(LABEL_SHARES) * count).astype(int)
    counts[UNKNOWN] += count - counts.sum()
    labels = rng.permutation(np.repeat(np.arange(len(LABELS)), counts)).astype(np.int64)
    # what each window says: (utterance, how: "whole" | "cut_end" | "cut_start") per spoken part
    plans: list[list[tuple[Utterance, str]]] = []
    for label in labels:
        if label == SILENCE:
            plans.append([])
        elif label == WAKE:
            plan = [(_utterance(rng, WAKE_WORD, split_voices), "whole")]
            if rng.random() < 0.3:
                plan.append((_utterance(rng, UNKNOWN_WORDS[rng.integers(len(UNKNOWN_WORDS))], split_voices),
                             "cut_start" if rng.random() < 0.5 else "cut_end"))
            plans.append(plan)
        elif rng.random() < 0.15:  # a part of "marvin" at an edge: not yet (or no longer) the whole word
            plans.append([(_utterance(rng, WAKE_WORD, split_voices), "cut_end" if rng.random() < 0.5 else "cut_start")])
        else:
            words = 1 + int(rng.random() < 0.4)
            plans.append([(_utterance(rng, UNKNOWN_WORDS[rng.integers(len(UNKNOWN_WORDS))], split_voices), "whole")
                          for _ in range(words)])
    speech = cached_speech([u for plan in plans for u, _ in plan], cache_dir)
    audio = np.zeros((count, WINDOW_SAMPLES), np.int16)
    for i, plan in enumerate(plans):
        parts = []
        for utterance, how in plan:
            samples = speech[utterance][:WINDOW_SAMPLES - 1]
            n = len(samples)
            if how == "whole":
                offset = int(rng.integers(0, WINDOW_SAMPLES - n + 1))
            elif how == "cut_end":  # its first 10–50 % in the window's last samples
                offset = WINDOW_SAMPLES - int(n * rng.uniform(0.1, 0.5))
            else:  # its last 10–50 % in the window's first samples
                offset = -n + int(n * rng.uniform(0.1, 0.5))
            parts.append((samples, offset))
        audio[i] = as_int16(_window(rng, parts))
    return Windows(audio, labels)


def stream(split: str = "test", minutes: float = 20.0, wake_words: int = 50, other_words_per_minute: float = 8.0,
           seed: int = 0, cache_dir: Path | None = CACHE_DIR) -> Stream:
    """`minutes` of audio (rounded down to whole hops) spoken by `split`'s voices: `wake_words`
    "marvin"s and about `other_words_per_minute` other words a minute, in a random order with
    random pauses (at least 0.4 s between words; the first word after 2 s), over background
    noise that changes kind and level every 4–15 s (-55 … -25 dBFS RMS), each word 5–25 dB above
    the noise where it falls, some reverberated."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, not {split!r}")
    total = int(minutes * 60 * SAMPLE_RATE) // HOP_SAMPLES * HOP_SAMPLES
    split_voices = voices(split)
    rng = np.random.default_rng([seed, SPLITS.index(split), 23])
    others = int(round(other_words_per_minute * minutes))
    words = [WAKE_WORD] * wake_words + [UNKNOWN_WORDS[rng.integers(len(UNKNOWN_WORDS))] for _ in range(others)]
    words = [words[i] for i in rng.permutation(len(words))]
    utterances = [_utterance(rng, w, split_voices) for w in words]
    speech = cached_speech(utterances, cache_dir)
    lengths = [len(speech[u]) for u in utterances]
    start, end_margin, min_gap = 2 * SAMPLE_RATE, 2 * SAMPLE_RATE, int(0.4 * SAMPLE_RATE)
    spare = total - start - end_margin - sum(lengths) - min_gap * len(words)
    if spare < 0:
        raise ValueError(f"{len(words)} words do not fit in {minutes} minutes with pauses of 0.4 s")
    gaps = rng.dirichlet(np.ones(len(words) + 1)) * spare  # the pauses' share of the spare time
    audio = _stream_noise(rng, total)
    noise_rms = _local_rms(audio)
    events = []
    at = start
    for utterance, word, n, gap in zip(utterances, words, lengths, gaps):
        at += min_gap + int(gap)
        sound = speech[utterance]
        if rng.random() < 0.3:
            sound = reverb(rng, np.concatenate([sound, np.zeros(SAMPLE_RATE // 4)]))[:n]
        rms = np.sqrt(np.mean(sound ** 2)) + 1e-12
        level = noise_rms[at + n // 2] * 10 ** (rng.uniform(5.0, 25.0) / 20) / rms
        level = min(level, 0.9 / (np.abs(sound).max() + 1e-12))  # no clipping
        audio[at:at + n] += sound * level
        events.append(Event(word, at, at + n))
        at += n
    return Stream(as_int16(np.clip(audio, -1.0, 1.0)), events)


def _stream_noise(rng: np.random.Generator, total: int) -> np.ndarray:
    """Background that changes kind and level every 4–15 s, crossfaded over 50 ms."""
    out = np.zeros(total)
    fade = SAMPLE_RATE // 20
    at = 0
    while at < total:
        n = min(int(rng.uniform(4, 15) * SAMPLE_RATE), total - at)
        piece = background(rng, NOISES[rng.integers(len(NOISES))], n + fade) * 10 ** (rng.uniform(-55, -25) / 20)
        ramp = np.linspace(0.0, 1.0, fade)
        piece[:fade] *= ramp
        piece[-fade:] *= ramp[::-1]
        end = min(total, at + n + fade)
        out[at:end] += piece[:end - at]
        at += n
    return out + rng.normal(0, 10 ** -4.5, total)  # the microphone's own noise floor


def _local_rms(audio: np.ndarray, width: int = SAMPLE_RATE // 2) -> np.ndarray:
    """RMS over half a second around each sample (of the noise, before words are added)."""
    running = np.concatenate([[0.0], np.cumsum(audio ** 2)])  # a moving sum by differences: O(n)
    lo = np.clip(np.arange(len(audio)) - width // 2, 0, len(audio))
    hi = np.clip(np.arange(len(audio)) + width // 2, 0, len(audio))
    return np.sqrt(np.maximum(running[hi] - running[lo], 0.0) / np.maximum(hi - lo, 1)) + 1e-9


# ---------------------------------------------------------------------------------------------
# Features: what the model sees, computed by the device's own front end (bit-exact reference)

class Features(NamedTuple):
    features: np.ndarray  # float32 [N, 30, 40]: LOG_MEL_WAKEWORD of the windows
    labels: np.ndarray    # int64 [N]


def log_mel_features(audio: np.ndarray, chunk: int = 128) -> np.ndarray:
    """int16 [N, 15872] → float32 [N, 30, 40], exactly the features the device's front end computes."""
    if len(audio) == 0:
        return np.zeros((0, *LOG_MEL_WAKEWORD.output_shape), np.float32)
    return np.concatenate([LOG_MEL_WAKEWORD(audio[i:i + chunk]) for i in range(0, len(audio), chunk)])


def _sources_version() -> str:
    """A hash of this module and the front end's reference: cached features go stale with either."""
    import compiler.audio_features as audio_features

    blob = Path(audio_features.__file__).read_bytes() + Path(__file__).read_bytes()
    return hashlib.sha1(blob).hexdigest()[:16]


def split_features(split: str, count: int, seed: int, cache_dir: Path | None = CACHE_DIR) -> Features:
    """Log-mel features and labels of `synthetic(count, seed, split)`, cached in `cache_dir/features/`
    (keyed by the arguments, espeak-ng's version and the sources' hash)."""
    key = hashlib.sha1(repr((split, count, seed, espeak_version(), _sources_version())).encode()).hexdigest()[:20]
    path = cache_dir / "features" / f"{split}-{key}.npz" if cache_dir is not None else None

    def make() -> dict[str, np.ndarray]:
        windows = synthetic(count, seed, split, cache_dir)
        return Features(log_mel_features(windows.audio), windows.labels)._asdict()

    return Features(**cached_arrays(path, make))
