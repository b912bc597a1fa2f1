"""The streaming wake word app: the detection rule and its scoring, the device's rule against
the Python one, the synthetic streams, the model module's hooks, the streamed program against the
windowed one, `scons app=wakeword board=corstone300 run=1`, and the stream harness (stream=1) on
the host and in QEMU."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from apps.wakeword import data, detect, model as ww_model, stream as harness
from ember_build.paths import BUILD_ROOT

REPO = Path(__file__).resolve().parents[2]
SCONS = Path(sys.executable).with_name("scons")
HOP = data.HOP_SAMPLES


# --- the detection rule -------------------------------------------------------------------------

def test_the_rule_fires_once_where_enough_of_the_window_counts():
    rule = detect.Rule(0.8, hits=4, window=5, refractory=31)
    scores = np.zeros(100, np.float32)
    scores[10:15] = [0.9, 0.9, 0.1, 0.9, 0.9]  # a one-hop dip: 4 of 5 on hop 14
    assert detect.detections(scores, rule) == [14]
    scores[15:20] = 0.95  # the stretch goes on: still the one detection
    assert detect.detections(scores, rule) == [14]
    scores[30:34] = 0.9  # again, but within the refractory hops of hop 14
    assert detect.detections(scores, rule) == [14]
    scores[60:64] = 0.9  # after them: a second detection
    assert detect.detections(scores, rule) == [14, 63]


def test_the_rule_compares_in_float32_at_or_above_the_threshold():
    rule = detect.Rule(0.8, hits=2, window=2, refractory=0)
    at = np.float32(0.8)
    below = np.nextafter(at, np.float32(0))
    assert detect.detections(np.array([at, at, 0, below, below], np.float32), rule) == [1]
    assert detect.detections(np.zeros(0, np.float32), rule) == []


def test_hits_of_hops_in_a_row_is_the_rule_of_consecutive_hops():
    rng = np.random.default_rng(1)
    scores = (rng.random(2000) < 0.5).astype(np.float32)
    rule = detect.Rule(0.5, hits=3, window=3, refractory=5)
    runs, fired = 0, []
    for hop, on in enumerate(scores >= 0.5):
        runs = runs + 1 if on else 0
        if runs == 3 and (not fired or hop - fired[-1] > 5):
            fired.append(hop)
    assert detect.detections(scores, rule) == fired


@pytest.mark.parametrize("fields", [dict(threshold=0.0), dict(threshold=1.5), dict(hits=0), dict(hits=6, window=5),
                                    dict(window=33, hits=2), dict(refractory=-1)])
def test_a_rule_out_of_range_is_named(fields):
    with pytest.raises(ValueError, match="detection rule needs"):
        detect.Rule(**fields)


def test_scoring_hits_false_accepts_rejects_and_latency():
    events = [data.Event("marvin", 10 * HOP, 20 * HOP), data.Event("yes", 40 * HOP, 45 * HOP),
              data.Event("marvin", 100 * HOP, 110 * HOP), data.Event("marvin", 200 * HOP, 210 * HOP)]
    # hop 21 ends one hop after word 0; hop 50 is a false accept; hop 150 is more than LATE_MS after word 2
    result = detect.score([21, 50, 150], events, HOP)
    assert (result.hits, result.false_accepts, result.false_rejects) == (1, 2, 2)
    assert result.accepted_hops == [50, 150] and result.missed_words == [1, 2]
    assert result.latencies_ms == pytest.approx([2 * HOP * 1000 / data.SAMPLE_RATE])
    early = detect.score([105], events, HOP)  # before the word's end: a hit, negative latency
    assert early.hits == 1 and early.latencies_ms[0] < 0
    twice = detect.score([105, 108], events, HOP)  # one word, one hit: the second is a false accept
    assert (twice.hits, twice.false_accepts) == (1, 1)


# --- the device's rule is detect.py's --------------------------------------------------------------

def test_the_firmware_responder_fires_where_detect_does(tmp_path):
    from build_host import EM_RUN_INCLUDES
    from ember_build.app_build import arena_header_c

    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no host C compiler")
    (tmp_path / "em_app_generated.h").write_text(ww_model.firmware_header(None))
    (tmp_path / "em_model_arena.h").write_text(arena_header_c(16, "ram"))
    firmware = REPO / "apps/wakeword/firmware"
    exe = tmp_path / "harness"
    subprocess.run([compiler, "-std=c11", "-O2", "-Wall", "-Werror", f"-I{tmp_path}", f"-I{firmware}", *EM_RUN_INCLUDES,
                    str(firmware / "responder.c"), str(REPO / "tests/apps/wakeword_harness.c"), "-o", str(exe)],
                   check=True)
    rng = np.random.default_rng(3)
    marvin = rng.choice(np.array([0.0, 0.5, detect.RULE.threshold, 0.9, 0.996, 1.0], np.float32), 3000,
                        p=[0.3, 0.1, 0.1, 0.2, 0.2, 0.1])
    marvin[::7] = np.nextafter(np.float32(detect.RULE.threshold), np.float32(0))  # just below: never counts
    outputs = np.stack([marvin, 1 - marvin, np.zeros_like(marvin)], axis=1).astype(np.float32)
    text = "".join(" ".join(f"{b:08x}" for b in row) + "\n" for row in outputs.view(np.uint32))
    got = subprocess.run([str(exe)], input=text, capture_output=True, text=True, check=True).stdout.splitlines()
    fired = detect.detections(marvin)
    assert len(fired) > 20
    assert got == [detect.wake_line(hop, marvin[hop]) for hop in fired]


# --- streams and windows ---------------------------------------------------------------------------

def test_a_stream_places_its_words_apart_and_is_a_function_of_its_arguments(tmp_path):
    stream = data.stream("validation", minutes=0.5, wake_words=4, other_words_per_minute=6, seed=2, cache_dir=tmp_path)
    assert stream.audio.dtype == np.int16 and len(stream.audio) % HOP == 0
    assert len(stream.audio) == int(0.5 * 60 * data.SAMPLE_RATE) // HOP * HOP
    assert sum(e.is_wake_word for e in stream.events) == 4 and len(stream.events) == 7
    starts = [e.start for e in stream.events]
    assert starts == sorted(starts) and starts[0] >= 2 * data.SAMPLE_RATE
    assert all(b.start - a.end >= int(0.4 * data.SAMPLE_RATE) for a, b in zip(stream.events, stream.events[1:]))
    assert stream.events[-1].end <= len(stream.audio) - 2 * data.SAMPLE_RATE
    speech = np.abs(stream.audio[stream.events[0].start:stream.events[0].end].astype(np.float64)).mean()
    quiet = np.abs(stream.audio[:data.SAMPLE_RATE].astype(np.float64)).mean()
    assert speech > 1.5 * quiet  # the words stand above the noise
    again = data.stream("validation", minutes=0.5, wake_words=4, other_words_per_minute=6, seed=2, cache_dir=tmp_path)
    assert again.audio.tobytes() == stream.audio.tobytes() and again.events == stream.events
    with pytest.raises(ValueError, match="do not fit"):
        data.stream("test", minutes=0.2, wake_words=40, cache_dir=tmp_path)
    with pytest.raises(ValueError, match="split must be one of"):
        data.stream("training", minutes=1, cache_dir=tmp_path)


def test_windows_are_labelled_in_shares_and_cached(tmp_path):
    windows = data.synthetic(20, 4, "validation", cache_dir=tmp_path)
    assert windows.audio.shape == (20, data.WINDOW_SAMPLES) and windows.audio.dtype == np.int16
    assert np.bincount(windows.labels, minlength=3).tolist() == [6, 4, 10]
    features = data.split_features("validation", 20, 4, cache_dir=tmp_path)
    np.testing.assert_array_equal(features.features, data.log_mel_features(windows.audio))
    assert features.features.shape == (20, ww_model.FRAMES, ww_model.BANDS)
    assert len(list((tmp_path / "features").glob("validation-*.npz"))) == 1


# --- the model module and its program --------------------------------------------------------------

@pytest.fixture(scope="module")
def trained():
    return ww_model.load_trained()


def _lower(model, stream):
    from compiler.pipeline import lower

    return lower(model, ww_model.example_inputs(), ww_model.calibration_data(windows=12), "cortex-m55",
                 front_end=ww_model.front_end(), stream=stream, name="wakeword", report_fallbacks=False)


@pytest.fixture(scope="module")
def streamed(trained):
    return _lower(trained[0], ww_model.stream())


def test_hooks_shapes_and_checkpoint_meta(trained):
    model, meta = trained
    assert model(ww_model.example_inputs()[0]).shape == (1, ww_model.CLASSES)
    assert meta["labels"] == list(data.LABELS) and meta["test_accuracy"] > 0.9
    vectors = ww_model.test_vectors(48)
    assert vectors.shape == (48, 1, HOP) and vectors.dtype == np.int16
    with pytest.raises(ValueError, match="at most"):
        ww_model.test_vectors(400)
    header = ww_model.firmware_header(None)
    assert f"#define WAKEWORD_HITS {detect.RULE.hits}u" in header
    assert f"({float(np.float32(detect.RULE.threshold)).hex()}f)" in header


def test_the_streamed_program_is_the_windowed_one_hop_by_hop(trained, streamed):
    """Hop t's output of the program fed one hop per invoke equals the whole-window program's on
    the window of audio that ends with hop t (the front end included), byte for byte."""
    windowed = _lower(trained[0], None)
    audio_input = streamed.graph.tensors[streamed.graph.inputs[0]]
    assert audio_input.dtype == "int16" and list(audio_input.shape) == [1, HOP]
    assert streamed.graph.state, "the stream keeps its history as state"
    audio = ww_model.test_vectors(40).reshape(-1)
    outputs = ww_model.stream_outputs(streamed, audio)
    window_hops = data.WINDOW_SAMPLES // HOP
    for t in (window_hops - 1, window_hops + 4, 39):
        want = windowed.run_reference(audio[(t + 1 - window_hops) * HOP:(t + 1) * HOP].reshape(1, -1))[0]
        np.testing.assert_array_equal(outputs[t].view(np.uint32), want.reshape(-1).view(np.uint32))
    state: dict = {}  # two halves over one state are the whole
    halves = np.concatenate([ww_model.stream_outputs(streamed, audio[:20 * HOP], state),
                             ww_model.stream_outputs(streamed, audio[20 * HOP:], state)])
    np.testing.assert_array_equal(halves.view(np.uint32), outputs.view(np.uint32))


def test_expected_lines_are_the_rule_on_the_reference(streamed):
    vectors = ww_model.test_vectors(48)
    outputs = list(ww_model.stream_outputs(streamed, vectors.reshape(-1)))
    lines = ww_model.expected_lines(streamed, outputs)
    assert len(lines) == 1 and lines[0].startswith("EM wake hop=")  # the test vectors hold one "marvin"


def test_accuracy_figures(trained, streamed, monkeypatch):
    import apps.wakeword.train

    monkeypatch.setattr(apps.wakeword.train, "TEST_WINDOWS", 30)  # a smaller test split: the hook, not the figure
    figures = ww_model.accuracy_figures(trained[0], streamed, count=6)
    assert figures["metric"] == "accuracy" and figures["samples"] == 6
    assert 0.0 <= figures["float"] <= 1.0 and 0.0 <= figures["int8_reference"] <= 1.0


def test_training_smoke(tmp_path, monkeypatch):
    from apps.wakeword import train

    meta = train.train(epochs=1, out=tmp_path / "checkpoint.pt", train_windows=24, validation_windows=12,
                       test_windows=12, max_batches=1)
    assert (tmp_path / "checkpoint.pt").exists() and 0.0 <= meta["test_accuracy"] <= 1.0
    assert isinstance(ww_model.load_trained(tmp_path / "checkpoint.pt")[0], torch.nn.Module)


# --- the stream harness ----------------------------------------------------------------------------

def test_a_device_output_other_than_the_reference_is_named(monkeypatch, tmp_path):
    from ember_build.board import load_board

    stream = data.Stream(np.zeros(4 * HOP, np.int16), [])
    device = harness.Device(load_board("host"), Path("em_run"))
    outputs = np.zeros((4, 3), np.float32)
    counts = {"unit": "ns (host)", "total": 4, "max": 1, "hops": 4}
    expected = outputs.copy()
    expected[2, 1] = 0.5
    monkeypatch.setattr(harness, "run_device", lambda *args: (outputs, {**counts, "expected": expected}))
    with pytest.raises(harness.StreamError, match="1 of 4 hops differ from the reference, the first at hop 2"):
        harness.device_scores(device, tmp_path / "p.embr", stream)


def test_a_device_that_fails_is_named_without_waiting_for_the_reference(tmp_path):
    from ember_build.board import load_board

    fake = tmp_path / "em_run"
    fake.write_text("#!/bin/sh\necho 'em_run: program.embr: EM_ERR_BAD_MAGIC'\nexit 3\n")
    fake.chmod(0o755)
    device = harness.Device(load_board("host"), fake)
    def reference(failed):
        while not failed():  # the reference of a long stream: stops once the device has failed
            time.sleep(0.01)
        return None

    stream = np.zeros(8 * HOP, np.int16)
    with pytest.raises(harness.StreamError, match="em_run exited with 3 on the stream:\nem_run: program.embr: EM_ERR_BAD"):
        harness.run_device(device, tmp_path / "program.embr", stream, tmp_path, reference)


def test_em_run_counter_lines():
    text = "arena 0: bytes 11200\ninstructions: 660799888\ninvokes: 3750\nmax instructions: 185364\n"
    assert harness._counter(text, "instructions") == 660799888
    assert harness._counter(text, "max instructions") == 185364
    with pytest.raises(harness.StreamError, match="no 'ns: N' line"):
        harness._counter(text, "ns")


@pytest.mark.slow  # SCons builds on the host (tests/tiers.py)
def test_stream_on_the_host_build_is_scored_and_checked(tmp_path):
    """`scons app=wakeword board=host stream=1 minutes=1`: one minute through the host em_run,
    every hop checked against the reference, the figures written."""
    run = subprocess.run([str(SCONS), "app=wakeword", "board=host", "stream=1", "minutes=1"], cwd=REPO,
                         capture_output=True, text=True, timeout=1200)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    figures = json.loads((BUILD_ROOT / "host/wakeword/stream.json").read_text())
    assert figures["checked_against_reference"] is True and figures["hops"] == 60 * data.SAMPLE_RATE // HOP
    assert figures["wake_words"] == harness.WAKE_WORDS
    assert figures["false_accepts"] + figures["hits"] >= 1 and figures["false_rejects"] + figures["hits"] == 50
    assert figures["counter_unit"] == "ns (host)" and figures["per_hop"]["mean"] > 0
    assert "| false accepts |" in (BUILD_ROOT / "host/wakeword/stream.md").read_text()


@pytest.mark.slow
def test_stream_on_an_app_without_a_harness_is_refused():
    run = subprocess.run([str(SCONS), "app=kws", "board=host", "stream=1"], cwd=REPO, capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 2 and "kws has no stream harness (apps/kws/stream.py)" in run.stdout
    bad = subprocess.run([str(SCONS), "app=wakeword", "board=host", "stream=1", "minutes=many"], cwd=REPO,
                         capture_output=True, text=True, timeout=1200)
    assert bad.returncode != 0 and "minutes='many': give a number of minutes" in bad.stdout
    short = subprocess.run([str(SCONS), "app=wakeword", "board=host", "stream=1", "minutes=0.1"], cwd=REPO,
                           capture_output=True, text=True, timeout=1200)
    assert short.returncode != 0 and "error: 51 words do not fit in 0.1 minutes" in short.stdout
    assert "Traceback" not in short.stdout + short.stderr


@pytest.mark.qemu
def test_corstone300_runs_the_stream_and_prints_the_detection():
    """`scons app=wakeword board=corstone300 run=1`: the 48 hops from one reset, byte for byte
    the reference's, and the detection line the rule gives on them."""
    run = subprocess.run([str(SCONS), "app=wakeword", "board=corstone300", "run=1"], cwd=REPO, capture_output=True,
                         text=True, timeout=1800)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    report = json.loads((BUILD_ROOT / "corstone300/wakeword/report.json").read_text())
    assert report["match"] is True and report["vectors"] == 48 and report["missing_lines"] == []
    expected = np.load(BUILD_ROOT / "corstone300/wakeword/gen/expected.npz")
    assert len(expected["lines"]) == 1 and expected["lines"][0] in run.stdout.splitlines()
    assert report["instructions_per_inference"] < 256_000  # a quarter of the hop at 32 MHz: a figure, not a timing


@pytest.mark.qemu
def test_corstone300_plays_a_stream_through_em_run(tmp_path):
    """The harness on the board in QEMU (a short stream: the 20-minute one is the README's figure)."""
    from ember_build.board import load_board
    from build_host import scons_em_run

    build = subprocess.run([str(SCONS), "app=wakeword", "board=corstone300"], cwd=REPO, capture_output=True,
                           text=True, timeout=1800)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    device = harness.Device(load_board("corstone300"), scons_em_run("corstone300"))
    figures = harness.play(device, BUILD_ROOT / "corstone300/wakeword/gen/program.embr", tmp_path, minutes=0.75,
                           wake_words=5, seed=1, split="validation")
    assert figures["checked_against_reference"] and figures["counter_unit"] == "instructions (QEMU)"
    assert 100_000 < figures["per_hop"]["mean"] <= figures["per_hop"]["max"] < 256_000
    assert figures["duty_cycle"]["mean"] == pytest.approx(figures["per_hop"]["mean"] / 1_024_000)
    assert (tmp_path / "stream-validation-1.json").exists()
