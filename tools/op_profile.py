"""Per-operator profile of a model on a device: a table and a bar chart.

    ./scons app=kws profile=1 run=1                  # QEMU: builds, serves, profiles, writes
                                                     # build/<board>-profile/kws/profile.{json,md,png}
    python -m tools.op_profile --port /dev/ttyACM0 --program build/ra8d1-profile/kws/gen/program.embr \
        [--input x.npy] [--out DIR]                  # a real board running `serve=1 profile=1` firmware
    python -m tools.op_profile --board corstone300 --elf build/corstone300-profile/kws/serve/firmware.elf \
        --gen build/corstone300-profile/kws/gen --out DIR   # what profile=1 run=1 runs (QEMU)

The serving firmware built with profile=1 counts every operator's eval() (instructions under
QEMU, DWT cycles on silicon: the unit comes from the device and is printed with the table). The
table has, per op in program order: layer, op, shape, MACs, count, MACs per count and share of
the total; the chart shows the count per op.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from compiler.layers import layer_rows
from compiler.program import Program, write_atomically
from tools.ember_link import Link, LinkError, add_device_arguments, board_of, serve


class ProfileError(LinkError):
    """The device's profile does not describe the given program."""


def measure(link: Link, program: Program, inputs: list[np.ndarray]) -> dict:
    """Runs `inputs` once on the device and returns the profile joined with the program's layers."""
    info = link.info()
    if not info.has_profile:
        raise ProfileError("the firmware has no profiling: build it with `scons app=<app> serve=1 profile=1`")
    if info.program_bytes != len(program.to_bytes()):
        raise ProfileError(f"the device runs another program ({info.program_bytes} B, not "
                           f"{len(program.to_bytes())} B): pass the program file it was built with")
    for i, x in enumerate(inputs):
        link.set_input(i, np.asarray(x, info.inputs[i].dtype))
    total = link.run()
    entries = link.profile()
    rows = layer_rows(program.graph)
    if [e.name for e in entries] != [r["op"] for r in rows]:
        raise ProfileError("the device's operators differ from the program's: wrong program file?")
    measured = sum(e.count for e in entries)
    for row, entry in zip(rows, entries):
        row.update(count=entry.count, macs_per_count=row["macs"] / entry.count if entry.count else 0.0,
                   share=entry.count / measured if measured else 0.0)
    return {"app": info.app, "tier": info.tier, "unit": info.counter_unit, "total": total,
            "operators_total": measured, "layers": rows}


def table(profile: dict) -> str:
    unit = profile["unit"]
    lines = [f"{profile['app']} ({profile['tier']}): {profile['total']:,} {unit} per inference "
             f"({profile['operators_total']:,} inside the operators)", "",
             f"| # | layer | op | shape | MACs | {unit} | MACs per count | share |", "|---:|---|---|---|---:|---:|---:|---:|"]
    for i, r in enumerate(profile["layers"]):
        lines.append(f"| {i} | {r['layer']} | {r['op']} | {r['shape']} | {r['macs']:,} | {r['count']:,} | "
                     f"{r['macs_per_count']:.2f} | {r['share']:.1%} |")
    return "\n".join(lines) + "\n"


def chart(profile: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    layers = profile["layers"]
    fig, ax = plt.subplots(figsize=(9, 0.3 * len(layers) + 1.2))
    labels = [f"{i} {r['layer']} ({r['op']})" for i, r in enumerate(layers)]
    ax.barh(range(len(layers)), [r["count"] for r in layers], color="#c0392b")
    ax.set_yticks(range(len(layers)), labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel(profile["unit"])
    ax.set_title(f"{profile['app']} ({profile['tier']}): {profile['total']:,} {profile['unit']} per inference")
    fig.tight_layout()
    tmp = path.with_name(path.name + ".tmp.png")
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    tmp.replace(path)


def write(profile: dict, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    write_atomically(out / "profile.json", json.dumps(profile, indent=2) + "\n")
    write_atomically(out / "profile.md", table(profile))
    chart(profile, out / "profile.png")


def profile_app(board, elf: Path, gen: Path, out: Path) -> dict:
    """Serves `elf` (a serve=1 profile=1 build) on `board`, profiles the first embedded test
    vector, writes profile.json / .md / .png to `out` and returns the profile."""
    program = Program.load(gen / "program.embr")
    x = np.load(gen / "expected.npz")["inputs"][0]
    with serve(board, elf) as link:
        profile = measure(link, program, [x])
        link.shutdown()
    write(profile, out)
    return profile


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_device_arguments(parser, "a QEMU board (or host) to serve --elf (a serve=1 profile=1 build) on")
    parser.add_argument("--gen", type=Path, help="with --board: its build's gen/ (program.embr, expected.npz)")
    parser.add_argument("--program", type=Path, help="with --port: the program file the firmware was built with")
    parser.add_argument("--input", type=Path, help="with --port: .npy input (default: zeros)")
    parser.add_argument("--out", type=Path, default=Path("."), help="folder for profile.json, .md, .png")
    args = parser.parse_args()
    if args.board:
        if args.elf is None or args.gen is None:
            parser.error("--board needs --elf and --gen")
        profile = profile_app(board_of(args), args.elf, args.gen, args.out)
    else:
        if args.program is None:
            parser.error("--port needs --program")
        program = Program.load(args.program)
        tensor = program.graph.tensors[program.graph.inputs[0]]
        x = np.load(args.input) if args.input else np.zeros(tensor.shape)
        with Link.open(args.port) as link:
            profile = measure(link, program, [x])
        write(profile, args.out)
    print(table(profile))
    print(f"profile: {args.out / 'profile.md'}, {args.out / 'profile.png'}")


if __name__ == "__main__":
    main()
