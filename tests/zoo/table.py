"""The zoo's table for README: each architecture lowered as written for the Cortex-M55, and
what became of it (fully int8, a stated float fallback, or refused and why), with its figures.

    .venv/bin/python -m tests.zoo.table          # writes build/zoo.md and prints it

Columns: ops of the program (int8 / float32), the largest distance of any op from PyTorch's
quantized model on PyTorch's own inputs (the numerics contract: <= 1), the share of output
values within 1 LSB of PyTorch's quantized model end to end (random weights make deep networks
amplify 1-LSB roundings; a trained model's figure is in its app's README), the program's bytes
(weights included), its arena and the time compiler.lower took on this machine (2 cores, both
busy: the zoo lowers two models at once).
"""
from __future__ import annotations

import sys
from collections import Counter

from tests.zoo.architectures import ARCHITECTURES
from tests.zoo.harness import Lowered, lower_all
from ember_build.paths import BUILD_ROOT



def _status(result: Lowered) -> str:
    if not result.lowered:
        return "refused: " + result.error.splitlines()[0][:160]
    if not result.float_ops:
        return "int8"
    kinds = Counter(line.split(":")[0] for line in result.float_ops)
    return "int8 + float32 " + ", ".join(f"{kind} ×{n}" if n > 1 else kind for kind, n in kinds.items())


def table(results: dict[str, Lowered]) -> str:
    rows = ["| architecture | family | params | lowers to | ops (int8 / float) | op vs PT2E (max LSB) "
            "| end to end ≤ 1 LSB | program bytes | arena bytes | lowering (s) |",
            "|---|---|---:|---|---:|---:|---:|---:|---:|---:|"]
    for name, architecture in ARCHITECTURES.items():
        result = results[name]
        params = sum(p.numel() for p in architecture.build().parameters())
        if result.lowered:
            rows.append(f"| {name} | {architecture.family} | {params:,} | {_status(result)} | {result.int8_ops} / "
                        f"{len(result.float_ops)} | {result.worst_op_lsb} | {100 * result.end_to_end_within_1:.1f} % "
                        f"| {len(result.program):,} | {result.arena_bytes:,} | {result.seconds:.1f} |")
        else:
            rows.append(f"| {name} | {architecture.family} | {params:,} | {_status(result)} | | | | | | |")
    lowered = [r for r in results.values() if r.lowered]
    int8 = [r for r in lowered if not r.float_ops]
    rows.append("")
    rows.append(f"{len(lowered)} of {len(results)} lower: {len(int8)} fully int8, {len(lowered) - len(int8)} with a "
                f"float32 fallback, {len(results) - len(lowered)} refused; slowest lowering "
                f"{max(r.seconds for r in lowered):.1f} s ({max(lowered, key=lambda r: r.seconds).name}).")
    return "\n".join(rows) + "\n"


def main() -> None:
    text = table(lower_all([("tests.zoo.architectures", "ARCHITECTURES")])[0])
    out = BUILD_ROOT / "zoo.md"
    out.parent.mkdir(exist_ok=True)
    out.write_text(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
