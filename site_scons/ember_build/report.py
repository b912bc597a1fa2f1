"""Reads what the firmware printed, checks it against the reference, and writes report.json.

Console lines (apps/<app>/firmware/responder.c):
    EM program bytes=<n> arena=<n> unit=<counter unit>
    EM vector <i> instructions=<n> score_bits=<8 hex digits> output=<hex bytes>
    EM stack peak=<bytes>        (0 where the board cannot measure it)
    EM done
With several programs in one firmware (app_build.compile_programs) the vectors are the
inferences in run order, of outputs of different sizes (expected.npz `output_sizes`).
An app's model may name further lines the device must print verbatim (app_build's
expected_lines hook, e.g. person_detect's boxes); each missing one fails the check.
Verdict lines (an app that decides, e.g. anomaly's normal/anomalous against its threshold),
    EM verdict vector=<i> score=<decimal> threshold=<decimal> anomalous=<0|1>
are reported as `verdicts`, beside the reference's (`reference_verdicts`, the same lines among the
expected ones); they must be equal.
"""
from __future__ import annotations

import json
import re
import struct
from pathlib import Path

import numpy as np
from compiler.files import write_atomically
from ember_build.elf_check import flash_bytes

_PROGRAM = re.compile(r"^EM program bytes=(\d+) arena=(\d+) unit=(.+)$", re.M)
_STACK = re.compile(r"^EM stack peak=(\d+)$", re.M)
_VERDICT = re.compile(r"^EM verdict vector=(\d+) score=([0-9.]+) threshold=([0-9.]+) anomalous=([01])$", re.M)
_VECTOR = re.compile(r"^EM vector (\d+) instructions=(\d+) score_bits=([0-9a-f]{8}) output=([0-9a-f]*)$", re.M)


def parse_console(text: str) -> tuple[dict, list[dict]]:
    header = _PROGRAM.search(text)
    vectors = [
        {"index": int(m[1]), "instructions": int(m[2]),
         "score": struct.unpack(">f", bytes.fromhex(m[3]))[0], "output": bytes.fromhex(m[4])}
        for m in _VECTOR.finditer(text)
    ]
    info = {"program_bytes": int(header[1]), "arena": int(header[2]), "unit": header[3].strip()} if header else {}
    stack = _STACK.search(text)
    if stack:
        info["stack_peak"] = int(stack[1])
    return info, vectors


def parse_verdicts(text: str) -> list[dict]:
    """The verdict lines of `text`, in order: index, score and threshold (as printed), anomalous."""
    return [{"index": int(m[1]), "score": float(m[2]), "threshold": float(m[3]), "anomalous": m[4] == "1"}
            for m in _VERDICT.finditer(text)]


def check_run(console: str, exit_code: int, expected_npz: Path, compile_summary: dict,
              elf: Path, out: Path) -> dict:
    """Compares device outputs with the reference's byte for byte and writes the report."""
    expected = np.load(expected_npz)
    outputs = expected["outputs"]
    if "output_sizes" in expected:  # several programs (app_build.compile_programs): flat, split by size
        outputs = np.split(outputs, np.cumsum(expected["output_sizes"])[:-1])
    info, vectors = parse_console(console)
    mismatches = []
    for i, reference in enumerate(outputs):
        got = next((v for v in vectors if v["index"] == i), None)
        if got is None or got["output"] != np.ascontiguousarray(reference).tobytes():
            mismatches.append(i)
    printed = set(console.splitlines())
    missing_lines = [line for line in expected["lines"] if line not in printed] if "lines" in expected else []
    counts = [v["instructions"] for v in vectors]
    verdicts = parse_verdicts(console)
    reference_verdicts = parse_verdicts("\n".join(str(line) for line in expected["lines"])) if "lines" in expected else []
    match = (exit_code == 0 and not mismatches and not missing_lines and len(vectors) == len(outputs)
             and "EM done" in console and verdicts == reference_verdicts)
    report = {
        "app": compile_summary["app"],
        "variant": compile_summary.get("variant", ""),
        "board": compile_summary["board"],
        "match": match,
        "vectors": len(outputs),
        "mismatched_vectors": mismatches,
        "missing_lines": [str(line) for line in missing_lines],
        "exit_code": exit_code,
        "instructions_per_inference": max(counts) if counts else None,
        "counts_per_inference": counts,
        "counter_unit": info.get("unit"),
        "arena_bytes": compile_summary["arena_bytes"],
        "program_bytes": compile_summary["program_bytes"],
        "flash_bytes": flash_bytes(elf),
        "stack_peak_bytes": info.get("stack_peak"),  # measured by stack painting; 0 on the host
        "scores": [v["score"] for v in vectors],
        "verdicts": verdicts,
        "reference_verdicts": reference_verdicts,
        "tier": compile_summary["tier"],
        "model": compile_summary.get("model"),
    }
    write_atomically(out, json.dumps(report, indent=2) + "\n")
    return report
