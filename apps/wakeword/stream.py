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

import numpy as np

from apps.wakeword import data, detect

WAKE_WORDS = 50
MINUTES = 20.0
SEED = 0
TIMEOUT_S = 3600


class StreamError(RuntimeError):
    """The device did not run the stream, or its outputs are not the reference's."""


@dataclass(frozen=True)
class Device:
    """Where em_run runs: `board` (ember_build.board.Board) and its em_run build (elf or executable)."""
    board: object
    em_run: Path

    def command(self, args: str) -> list[str]:
        from ember_build.qemu import emulator_command

        return emulator_command(self.board, self.em_run, args)

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
    counter's total and most per hop. `reference()` runs meanwhile (the device is another process)."""
    hops = len(audio) // data.HOP_SAMPLES
    np.asarray(audio, np.int16).tofile(work / "stream.bin")
    args = f"{program.resolve()} --input stream.bin --output scores.bin --invokes {hops}"
    process = subprocess.Popen(device.command(args), cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, text=True)
    try:
        expected = reference() if reference is not None else None
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


def reference_scores(program_path: Path, audio: np.ndarray) -> np.ndarray:
    """The streamed program's reference over `audio`, hop by hop from a reset: [hops, classes]."""
    from apps.wakeword.model import stream_outputs
    from compiler.program import Program

    return stream_outputs(Program.load(program_path), audio)


def play(device: Device, program: Path, out_dir: Path, minutes: float = MINUTES, wake_words: int = WAKE_WORDS,
         seed: int = SEED, check: bool = True) -> dict:
    """Plays the stream through `device`, checks it against the reference (`check`), scores it;
    writes stream.json and stream.md into `out_dir` and returns the figures."""
    from compiler.program import write_atomically

    stream = data.stream("test", minutes, wake_words, seed=seed)
    with tempfile.TemporaryDirectory(prefix="wakeword-stream-") as tmp:
        outputs, counts = run_device(device, program, stream.audio, Path(tmp),
                                     (lambda: reference_scores(program, stream.audio)) if check else None)
    expected = counts.pop("expected")
    if expected is not None:
        differ = np.flatnonzero((outputs.view(np.uint32) != expected.view(np.uint32)).any(axis=1))
        if differ.size:
            raise StreamError(f"{device.board.name}: {differ.size} of {len(outputs)} hops differ from the reference, "
                              f"the first at hop {int(differ[0])}: {outputs[differ[0]]} != {expected[differ[0]]}")
    fired = detect.detections(outputs[:, data.WAKE])
    result = detect.score(fired, stream.events, data.HOP_SAMPLES, data.SAMPLE_RATE)
    figures = figures_of(device, result, counts, stream, minutes, seed, checked=expected is not None)
    out_dir.mkdir(parents=True, exist_ok=True)
    write_atomically(out_dir / "stream.json", json.dumps(figures, indent=2) + "\n")
    write_atomically(out_dir / "stream.md", markdown(figures))
    return figures


def figures_of(device: Device, result: detect.Score, counts: dict, stream: data.Stream, minutes: float, seed: int,
               checked: bool) -> dict:
    latencies = np.array(result.latencies_ms) if result.latencies_ms else np.zeros(1)
    mean = counts["total"] / counts["hops"]
    words = [e for e in stream.events if e.is_wake_word]
    return {
        "board": device.board.name, "tier": device.board.tier, "minutes": len(stream.audio) / data.SAMPLE_RATE / 60,
        "seed": seed, "wake_words": len(words), "other_words": len(stream.events) - len(words),
        "rule": detect.RULE.__dict__, "hops": counts["hops"], "checked_against_reference": checked,
        "false_accepts": result.false_accepts, "false_rejects": result.false_rejects, "hits": result.hits,
        "false_accept_hops": result.accepted_hops, "missed_words": [words[k]._asdict() for k in result.missed_words],
        "latency_ms": {"median": float(np.median(latencies)), "mean": float(latencies.mean()),
                       "max": float(latencies.max())},
        "counter_unit": counts["unit"], "per_hop": {"mean": mean, "max": counts["max"]},
        "hop_budget": device.hop_budget,
        "duty_cycle": {"mean": mean / device.hop_budget, "max": counts["max"] / device.hop_budget},
    }


def markdown(figures: dict) -> str:
    command = f"`./scons app=wakeword board={figures['board']} stream=1`"
    unit = figures["counter_unit"]
    latency = figures["latency_ms"]
    rows = [
        ("stream", f"{figures['minutes']:.1f} min, {figures['wake_words']} wake words, "
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
    parser.add_argument("--no-check", action="store_true", help="skip the reference (it takes ~4 ms a hop)")
    args = parser.parse_args()
    board = load_board(args.board)
    folder = BUILD_ROOT / board.build_name
    em_run = folder / ("em_run.elf" if board.emulator is not None else "em_run")
    program = folder / "wakeword" / "gen" / "program.embr"
    for path, command in ((em_run, f"./scons em_run board={args.board}"),
                          (program, f"./scons app=wakeword board={args.board}")):
        if not path.exists():
            raise SystemExit(f"{path} is missing: {command} builds it (or use {STREAM_COMMAND.format(board=args.board)})")
    figures = play(Device(board, em_run), program, folder / "wakeword", args.minutes, seed=args.seed,
                   check=not args.no_check)
    print(markdown(figures))


STREAM_COMMAND = "./scons app=wakeword board={board} stream=1"

if __name__ == "__main__":
    main()
