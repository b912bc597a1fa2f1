"""apps/kws/data.py: espeak-ng clips (determinism, cache, shapes, labels), the generated noises,
the Speech Commands loader on a tiny fake folder, and its named errors."""
from __future__ import annotations

import wave
from pathlib import Path

import numpy as np
import pytest

from apps.common.datasets import DatasetError
from apps.common import speech
from apps.kws import data

TRAIN_VOICE = data.voices("train")[0]


def _write_wav(path: Path, samples: np.ndarray, rate: int = 16_000, channels: int = 1) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(np.asarray(samples, dtype="<i2").tobytes())


def test_voices_split_disjoint_and_complete():
    splits = [set(data.voices(split)) for split in data.SPLITS]
    assert all(splits) and not (splits[0] & splits[1]) and not (splits[0] & splits[2]) and not (splits[1] & splits[2])
    assert len(set().union(*splits)) == len(data.ACCENTS) * len(data.VARIANTS)
    with pytest.raises(ValueError, match="split"):
        data.voices("dev")


def test_speak_gives_a_trimmed_word_at_16khz():
    audio = data.speak(data.Utterance("yes", TRAIN_VOICE, 160, 50))
    assert audio.ndim == 1 and np.abs(audio).max() == pytest.approx(1.0)
    assert 0.15 * data.SAMPLE_RATE < len(audio) < 1.0 * data.SAMPLE_RATE  # one short word, silence trimmed
    slower = data.speak(data.Utterance("yes", TRAIN_VOICE, 110, 50))
    assert len(slower) > len(audio)


def test_synthetic_deterministic_cached_and_shaped(tmp_path, monkeypatch):
    first = data.synthetic(6, seed=3, cache_dir=tmp_path)
    assert first.audio.shape == (6, data.CLIP_SAMPLES) and first.audio.dtype == np.int16
    assert first.labels.dtype == np.int64 and sorted(first.labels) == list(range(6))  # balanced: 6 labels once each
    renders = list(tmp_path.rglob("*.npy"))
    assert len(renders) == 6  # six keywords, six cached renders

    def no_espeak(utterance):
        raise AssertionError(f"{utterance} should have come from the cache")

    monkeypatch.setattr(speech, "speak", no_espeak)  # where the renders are made (apps/common/speech.py)
    again = data.synthetic(6, seed=3, cache_dir=tmp_path)
    assert np.array_equal(first.audio, again.audio) and np.array_equal(first.labels, again.labels)


def test_synthetic_without_cache_matches_and_seeds_differ(tmp_path):
    cached = data.synthetic(3, seed=7, split="validation", cache_dir=tmp_path)
    uncached = data.synthetic(3, seed=7, split="validation", cache_dir=None)
    assert np.array_equal(cached.audio, uncached.audio)
    other = data.synthetic(3, seed=8, split="validation", cache_dir=tmp_path)
    assert not np.array_equal(cached.audio, other.audio)


def test_silence_and_unknown_labels_and_levels(tmp_path):
    clips = data.synthetic(12, seed=1, split="test", cache_dir=tmp_path)
    assert set(clips.labels) == set(range(len(data.LABELS)))
    audio = data.as_float(clips.audio)
    assert audio.min() >= -1.0 and audio.max() < 1.0
    for clip, label in zip(audio, clips.labels):
        frames = clip.reshape(50, -1)  # 20 ms frames
        energy = np.sqrt((frames ** 2).mean(1)) + 1e-7
        if label != data.SILENCE:  # a word stands out of its background somewhere in the second
            assert energy.max() > 1.5 * np.median(energy), data.LABELS[label]


@pytest.mark.parametrize("kind", data.NOISES)
def test_background_unit_rms_and_colour(kind):
    noise = data.background(np.random.default_rng(0), kind)
    assert noise.shape == (data.CLIP_SAMPLES,) and noise.std() == pytest.approx(1.0, rel=1e-6)
    power = np.abs(np.fft.rfft(noise)) ** 2  # 1 Hz per bin
    if kind == "babble":  # speech-shaped: most energy between 200 Hz and 4 kHz
        assert power[200:4000].sum() > 0.8 * power.sum()
    elif kind == "hum":  # the strongest line is a harmonic of 50 or 60 Hz (±1 %)
        peak = int(np.argmax(power[1:1000])) + 1
        assert any(abs(peak / mains - round(peak / mains)) * mains <= 0.011 * peak for mains in (50, 60))
    else:  # white is flat, pink falls 3 dB and brown 6 dB per octave: compare 10-500 Hz with 4-8 kHz
        ratio = power[10:500].mean() / power[4000:8000].mean()
        low, high = {"white": (0.7, 1.4), "pink": (5, 1e3), "brown": (1e3, 1e7)}[kind]
        assert low < ratio < high, ratio


def test_resample_keeps_a_tone():
    rate_in = 22_050
    tone = np.sin(2 * np.pi * 1000 * np.arange(rate_in) / rate_in)
    out = data.resample(tone, rate_in, 16_000)
    assert len(out) == 16_000
    assert np.argmax(np.abs(np.fft.rfft(out))) == 1000  # 1 Hz per bin over one second


def test_espeak_missing_is_a_named_error(monkeypatch):
    data.espeak_version.cache_clear()
    monkeypatch.setattr(data.shutil, "which", lambda name: None)
    try:
        with pytest.raises(data.EspeakError, match="apt-get install espeak-ng"):
            data.speak(data.Utterance("go", TRAIN_VOICE, 160, 50))
    finally:
        data.espeak_version.cache_clear()


# --- Speech Commands on a fake folder ---

def _fake_speech_commands(root: Path) -> dict[str, list[str]]:
    rng = np.random.default_rng(0)
    names: dict[str, list[str]] = {}
    for word in data.KEYWORDS + ("cat", "marvin"):
        names[word] = []
        for i in range(3):
            name = f"{word}/spk{i}_nohash_0.wav"
            length = 16_000 if i else 12_000  # the first clip of each word is short: padded to 1 s
            _write_wav(root / name, rng.integers(-2000, 2000, length))
            names[word].append(name)
    (root / "validation_list.txt").write_text("\n".join(n[1] for n in names.values()) + "\n")
    (root / "testing_list.txt").write_text("\n".join(n[2] for n in names.values()) + "\n")
    noise = root / "_background_noise_"
    _write_wav(noise / "white_noise.wav", rng.integers(-3000, 3000, 16_000 * 6 + 500))
    _write_wav(noise / "running_tap.wav", rng.integers(-3000, 3000, 16_000 * 4))
    (root / "LICENSE").write_text("test")
    return names


def test_speech_commands_splits_and_labels(tmp_path):
    names = _fake_speech_commands(tmp_path)
    splits = {split: data.load_speech_commands(tmp_path, split) for split in data.SPLITS}
    silences = 0
    for split, clips in splits.items():
        words = clips.labels[clips.labels != data.SILENCE]
        assert len(words) == 12  # one clip of each of the 12 words per split
        assert sorted(words) == sorted(list(range(10)) + [data.UNKNOWN] * 2)
        assert clips.audio.shape[1:] == (16_000,) and clips.audio.dtype == np.int16
        silences += int((clips.labels == data.SILENCE).sum())
    assert silences == 10  # 6 + 4 whole seconds of background, each in exactly one split
    index = data.speech_commands_index(tmp_path, "train")
    assert [p.relative_to(tmp_path).as_posix() for p, _ in index] == sorted(n[0] for n in names.values())
    first = data.read_wav(tmp_path / names["yes"][0])
    train = splits["train"]
    row = [i for i, (p, _) in enumerate(index) if p.name == Path(names["yes"][0]).name and p.parent.name == "yes"][0]
    assert np.array_equal(train.audio[row, :12_000], first) and not train.audio[row, 12_000:].any()
    assert train.labels[row] == data.LABELS.index("yes")


def test_add_background_mixes_the_reference_way(tmp_path):
    _fake_speech_commands(tmp_path)
    clips = data.load_speech_commands(tmp_path, "validation")
    noise = data.background_noise(tmp_path)
    assert len(noise) == 2
    same = data.add_background(clips, noise, np.random.default_rng(0), frequency=0.0)
    assert np.array_equal(same.audio, clips.audio)
    mixed = data.add_background(clips, noise, np.random.default_rng(0), frequency=1.0)
    assert mixed.audio.dtype == np.int16 and not np.array_equal(mixed.audio, clips.audio)
    assert np.abs(mixed.audio.astype(int) - clips.audio).max() <= 0.1 * 3000 + 2


@pytest.mark.parametrize("breakage,message", [
    ("no_root", "does not exist"),
    ("no_validation_list", "validation_list.txt is missing"),
    ("no_keyword", "no folder for stop"),
    ("no_background", "_background_noise_ does not exist"),
    ("wrong_rate", "8000 Hz"),
    ("stereo", "2 channel"),
    ("not_a_wav", "not a readable WAV"),
])
def test_speech_commands_named_errors(tmp_path, breakage, message):
    root = tmp_path / "speech_commands"
    names = _fake_speech_commands(root)
    if breakage == "no_root":
        root = tmp_path / "nowhere"
    elif breakage == "no_validation_list":
        (root / "validation_list.txt").unlink()
    elif breakage == "no_keyword":
        for path in (root / "stop").iterdir():
            path.unlink()
        (root / "stop").rmdir()
    elif breakage == "no_background":
        for path in (root / "_background_noise_").iterdir():
            path.unlink()
        (root / "_background_noise_").rmdir()
    elif breakage == "wrong_rate":
        _write_wav(root / names["go"][0], np.zeros(8000), rate=8000)
    elif breakage == "stereo":
        _write_wav(root / names["go"][0], np.zeros(32000), channels=2)
    elif breakage == "not_a_wav":
        (root / names["go"][0]).write_bytes(b"not a wave file at all")
    with pytest.raises(data.SpeechCommandsError, match=message) as caught:
        data.load_speech_commands(root, "train")
    assert isinstance(caught.value, DatasetError) and "Speech Commands v2 folder" in str(caught.value)


def test_dataset_dispatch(tmp_path):
    _fake_speech_commands(tmp_path / "sc")
    real = data.dataset("test", 0, 0, root=tmp_path / "sc")
    assert (real.labels != data.SILENCE).sum() == 12
    with pytest.raises(ValueError, match="split"):
        data.load_speech_commands(tmp_path / "sc", "dev")
