"""The streaming wake word harness: a long synthetic stream played through the device, scored.

    ./scons app=wakeword board=corstone300 stream=1 [minutes=20]     (any QEMU board, or board=host)

The stream (apps/wakeword/data.stream: test voices, `minutes` of audio with 50 "marvin"s and
other words at known times over changing noise) goes to em_run (tools/em_run, built for the
board) as one file of 32 ms hops: `--invokes <hops>` runs the app's streamed program over it
from one reset, exactly as the firmware does hop by hop, and writes every hop's probabilities.
While the device runs, the program's reference runs the same hops: every output must be its
bytes. The detection rule (apps/wakeword/detect.py, the firmware's responder) then scores the
device's "marvin" probabilities against the words' times.

Figures (stream.json, stream.md beside the app's report.json): false accepts and rejects,
detection latency, and the duty cycle: counted instructions per hop (mean and most) against the
hop's budget at the board's clock (board.yaml clock_hz × 32 ms: instructions, so at one per
cycle); on the host the counter is wall-clock nanoseconds against the hop's 32 ms.
"""
from __future__ import annotations

import json
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from apps.wakeword import data, detect

if TYPE_CHECKING:
    from ember_build.board import Board

WAKE_WORDS = 50
MINUTES = 20.0
SEED = 0
TIMEOUT_S = 3600
STREAM_COMMAND = "./scons app=wakeword board={board} stream=1"


class StreamError(RuntimeError):
    """The device did not run the stream, or its outputs are not the reference's."""


@dataclass(frozen=True)
class Device:
    """Where em_run runs: `board` (ember_build.board.Board) and its em_run build (elf or executable)."""
    board: "Board"
    em_run: Path

    def command(self, args: str) -> list[str]:
        from ember_build.qemu import emulator_command

        return emulator_command(self.board, self.em_run.resolve(), args)  # em_run runs in a folder of its own

    @property
    def hop_budget(self) -> float:
        """The counter's units in one hop: instructions at the board's clock (one per cycle), or ns."""
        seconds = data.HOP_SAMPLES / data.SAMPLE_RATE
        return seconds * (self.board.clock_hz if self.board.emulator is not None else 1e9)


def _counter(stdout: str, label: str) -> int:
    """N of em_run's `<label>: N` line ("instructions: N", "max instructions: N", "ns: N")."""
    for line in stdout.splitlines():
        name, separator, value = line.partition(": ")
        if separator and name == label and value.strip().isdigit():
            return int(value)
    raise StreamError(f"em_run printed no '{label}: N' line:\n{stdout}")


def run_device(device: Device, program: Path, audio: np.ndarray, work: Path, reference=None) -> tuple[np.ndarray, dict]:
    """em_run over `audio` (int16, whole hops): the outputs [hops, classes] float32 and the
    counter's total and most per hop. `reference(failed)` runs meanwhile (the device is another
    process), and may stop early once `failed()` says em_run has exited with an error."""
    hops = len(audio) // data.HOP_SAMPLES
    np.asarray(audio, np.int16).tofile(work / "stream.bin")
    args = f"{program.resolve()} --input stream.bin --output scores.bin --invokes {hops}"
    process = subprocess.Popen(device.command(args), cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, text=True)
    try:
        expected = reference(lambda: process.poll() not in (None, 0)) if reference is not None else None
        stdout, stderr = process.communicate(timeout=TIMEOUT_S)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    if process.returncode != 0:
        raise StreamError(f"em_run exited with {process.returncode} on the stream:\n{stdout}{stderr}")
    unit = device.board.counter.unit.split(" ")[0]
    outputs = np.fromfile(work / "scores.bin", np.float32)
    if outputs.size % hops:
        raise StreamError(f"em_run wrote {outputs.size} floats for {hops} hops")
    counts = {"unit": device.board.counter.unit, "total": _counter(stdout, unit),
              "max": _counter(stdout, f"max {unit}"), "hops": hops}
    return outputs.reshape(hops, -1), {**counts, "expected": expected}


def reference_scores(program_path: Path, audio: np.ndarray, failed=lambda: False, chunk: int = 500) -> np.ndarray | None:
    """The streamed program's reference over `audio`, hop by hop from a reset: [hops, classes]
    (None once `failed()`, asked every `chunk` hops: the device's error is then the news)."""
    from apps.wakeword.model import stream_outputs
    from compiler.program import Program

    program, state, parts = Program.load(program_path), {}, []
    for start in range(0, len(audio), chunk * data.HOP_SAMPLES):
        if failed():
            return None
        parts.append(stream_outputs(program, audio[start:start + chunk * data.HOP_SAMPLES], state))
    return np.concatenate(parts)


def device_scores(device: Device, program: Path, stream: data.Stream, check: bool = True) -> tuple[np.ndarray, dict]:
    """The device's outputs [hops, classes] over `stream` and its counts; with `check`, every
    hop's bytes must be the reference's (StreamError naming the first that is not)."""
    with tempfile.TemporaryDirectory(prefix="wakeword-stream-") as tmp:
        outputs, counts = run_device(device, program, stream.audio, Path(tmp),
                                     (lambda failed: reference_scores(program, stream.audio, failed)) if check else None)
    expected = counts.pop("expected")
    if expected is not None:
        differ = np.flatnonzero((outputs.view(np.uint32) != expected.view(np.uint32)).any(axis=1))
        if differ.size:
            raise StreamError(f"{device.board.name}: {differ.size} of {len(outputs)} hops differ from the reference, "
                              f"the first at hop {int(differ[0])}: {outputs[differ[0]]} != {expected[differ[0]]}")
    return outputs, {**counts, "checked_against_reference": expected is not None}


def play(device: Device, program: Path, out_dir: Path, minutes: float = MINUTES, wake_words: int = WAKE_WORDS,
         seed: int = SEED, check: bool = True, split: str = "test") -> dict:
    """Plays the stream of `split` and `seed` through `device`, checks it against the reference
    (`check`), scores it with detect.RULE; writes stream.json and stream.md into `out_dir`
    (stream-<split>-<seed>.* for another stream than the test split's of SEED) and returns the
    figures."""
    from compiler.program import write_atomically

    stream = data.stream(split, minutes, wake_words, seed=seed)
    outputs, counts = device_scores(device, program, stream, check)
    fired = detect.detections(outputs[:, data.WAKE])
    result = detect.score(fired, stream.events, data.HOP_SAMPLES, data.SAMPLE_RATE)
    figures = {"split": split, **figures_of(device, result, counts, stream, seed)}
    out_dir.mkdir(parents=True, exist_ok=True)
    name = "stream" if (split, seed) == ("test", SEED) else f"stream-{split}-{seed}"
    write_atomically(out_dir / f"{name}.json", json.dumps(figures, indent=2) + "\n")
    write_atomically(out_dir / f"{name}.md", markdown(figures))
    return figures


def sweep(device: Device, program: Path, seeds: list[int], thresholds: tuple[float, ...] = (0.6, 0.7, 0.8, 0.9),
          windows: tuple[int, ...] = (1, 2, 3, 4, 5, 6), minutes: float = MINUTES, rows: int = 16) -> str:
    """How detect.RULE was chosen: false accepts, false rejects and median latency of rules
    (threshold × hits of a window of hops) summed over validation streams of `seeds` (voices
    neither the training nor the test stream has); the `rows` with the fewest errors (then
    false accepts) as a markdown table."""
    runs = []
    for seed in seeds:
        stream = data.stream("validation", minutes, WAKE_WORDS, seed=seed)
        runs.append((stream, device_scores(device, program, stream, check=False)[0][:, data.WAKE]))
    found = []
    for threshold in thresholds:
        for window in windows:
            for hits in range(1, window + 1):
                rule = detect.Rule(threshold, hits, window, detect.RULE.refractory)
                results = [detect.score(detect.detections(scores, rule), stream.events, data.HOP_SAMPLES,
                                        data.SAMPLE_RATE) for stream, scores in runs]
                latencies = [ms for r in results for ms in r.latencies_ms]
                accepts, rejects = sum(r.false_accepts for r in results), sum(r.false_rejects for r in results)
                found.append((accepts + rejects, accepts, rule, rejects,
                              float(np.median(latencies)) if latencies else float("nan")))
    found.sort(key=lambda row: row[:2])
    lines = [f"Rules on {len(seeds)} validation streams of {minutes:g} min ({len(seeds) * WAKE_WORDS} wake words, "
             f"seeds {', '.join(map(str, seeds))}) on {device.board.name}, the {rows} with the fewest errors", "",
             "| threshold | hits of hops | false accepts | false rejects | median latency (ms) |",
             "|---:|---:|---:|---:|---:|"]
    lines += [f"| {rule.threshold:g} | {rule.hits} of {rule.window} | {accepts} | {rejects} | {latency:.0f} |"
              for _, accepts, rule, rejects, latency in found[:rows]]
    return "\n".join(lines) + "\n"


def figures_of(device: Device, result: detect.Score, counts: dict, stream: data.Stream, seed: int) -> dict:
    latencies = np.array(result.latencies_ms) if result.latencies_ms else np.full(1, np.nan)
    mean = counts["total"] / counts["hops"]
    words = [e for e in stream.events if e.is_wake_word]
    return {
        "board": device.board.name, "tier": device.board.tier, "minutes": len(stream.audio) / data.SAMPLE_RATE / 60,
        "seed": seed, "wake_words": len(words), "other_words": len(stream.events) - len(words),
        "rule": detect.RULE.__dict__, "hops": counts["hops"],
        "checked_against_reference": counts["checked_against_reference"],
        "false_accepts": result.false_accepts, "false_rejects": result.false_rejects, "hits": result.hits,
        "false_accept_hops": result.accepted_hops, "missed_words": [words[k]._asdict() for k in result.missed_words],
        "latency_ms": {"median": float(np.median(latencies)), "mean": float(latencies.mean()),
                       "max": float(latencies.max())},
        "counter_unit": counts["unit"], "per_hop": {"mean": mean, "max": counts["max"]},
        "hop_budget": device.hop_budget,
        "duty_cycle": {"mean": mean / device.hop_budget, "max": counts["max"] / device.hop_budget},
    }


def markdown(figures: dict) -> str:
    command = f"`{STREAM_COMMAND.format(board=figures['board'])}`"
    unit = figures["counter_unit"]
    latency = figures["latency_ms"]
    rows = [
        ("stream", f"{figures['minutes']:.1f} min of the {figures['split']} split, {figures['wake_words']} wake words, "
                   f"{figures['other_words']} other words (seed {figures['seed']})"),
        ("false accepts", str(figures["false_accepts"])),
        ("false rejects", str(figures["false_rejects"])),
        ("detection latency after the word's end (median / mean / max)",
         f"{latency['median']:.0f} / {latency['mean']:.0f} / {latency['max']:.0f} ms"),
        (f"{unit} per 32 ms hop (mean / most; front end + DS-CNN)",
         f"{figures['per_hop']['mean']:,.0f} / {figures['per_hop']['max']:,}"),
        ("duty cycle (mean / most, of the hop's budget of "
         f"{figures['hop_budget']:,.0f} {unit.split(' ')[0]})",
         f"{figures['duty_cycle']['mean']:.1%} / {figures['duty_cycle']['max']:.1%}"),
        ("device outputs equal to the reference's", "every hop" if figures["checked_against_reference"] else
         "not checked"),
    ]
    lines = [f"Streaming wake word on {figures['board']} (tier {figures['tier']}), measured by {command}", "",
             "| figure | value |", "|---|---:|"] + [f"| {name} | {value} |" for name, value in rows]
    return "\n".join(lines) + "\n"


def main() -> None:
    import argparse

    from ember_build.board import load_board
    from ember_build.paths import BUILD_ROOT

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default="corstone300")
    parser.add_argument("--minutes", type=float, default=MINUTES)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--split", default="test", choices=data.SPLITS, help="whose voices speak the stream")
    parser.add_argument("--no-check", action="store_true", help="skip the reference (it takes ~4 ms a hop)")
    parser.add_argument("--sweep", metavar="SEEDS", help="instead: score detection rules on validation streams "
                                                         "of these seeds (comma-separated), as detect.RULE was chosen")
    args = parser.parse_args()
    board = load_board(args.board)
    folder = BUILD_ROOT / board.build_name
    em_run = folder / ("em_run.elf" if board.emulator is not None else "em_run")
    program = folder / "wakeword" / "gen" / "program.embr"
    for path, command in ((em_run, f"./scons em_run board={args.board}"),
                          (program, f"./scons app=wakeword board={args.board}")):
        if not path.exists():
            raise SystemExit(f"{path} is missing: {command} builds it (or use {STREAM_COMMAND.format(board=args.board)})")
    try:
        if args.sweep:
            print(sweep(Device(board, em_run), program, [int(s) for s in args.sweep.split(",")], minutes=args.minutes))
            return
        figures = play(Device(board, em_run), program, folder / "wakeword", args.minutes, seed=args.seed,
                       check=not args.no_check, split=args.split)
    except (StreamError, ValueError) as error:  # a device that failed or differs; a stream that cannot be made
        raise SystemExit(f"error: {error}") from None
    print(markdown(figures))


if __name__ == "__main__":
    main()
