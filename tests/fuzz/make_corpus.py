"""Writes the fuzzer's seed corpus (valid programs from tests/runtime/programs.py) to a folder.

    python tests/fuzz/make_corpus.py build/fuzz/corpus
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO), str(REPO / "tests" / "runtime")]

import programs  # noqa: E402


def write_corpus(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    seeds = {
        "fc_b1": programs.fc_program(batches=1)[0],
        "fc_b3": programs.fc_program(batches=3)[0],
        "fc_big": programs.fc_program(programs.fc_case(batches=1, n_in=40, n_out=9, seed=4), 1)[0],
        "pipeline": programs.pipeline_program()[0],
    }
    paths = []
    for name, spec in seeds.items():
        path = out / f"{name}.embr"
        path.write_bytes(programs.build(spec))
        paths.append(path)
    return paths


if __name__ == "__main__":
    write_corpus(Path(sys.argv[1]))
