"""The build's verification of a program it seals into firmware (runtime/README.md, "Who verifies
what"): the tier's own verifier built for the host (tools/em_verify) must accept it."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path


def verify_on_host(verifier: Path, programs: list[Path], verdicts: Path) -> int:
    """Runs the tier's host verifier (tools/em_verify) over `programs`, which firmware sealed to them
    links only if it accepts each, as a verify=1 firmware would at start-up; writes its verdicts
    to `verdicts`. Returns 0, or 1 after printing which program it refused and why."""
    run = subprocess.run([str(verifier), *map(str, programs)], capture_output=True, text=True)
    if run.returncode != 0:
        refused = [line for line in run.stdout.splitlines() if not line.endswith(" EM_OK")]
        print(f"error: the firmware's verifier refuses the program the compiler wrote: {'; '.join(refused) or run.stderr}\n"
              "This is a bug in Ember (every program the compiler writes must load): please report it with the "
              "program file. `verify=1` builds firmware that checks it on the device instead.")
        return 1
    partial = verdicts.with_name(verdicts.name + ".partial")
    partial.write_text(run.stdout)
    os.replace(partial, verdicts)  # never a half-written verdict
    return 0


def verify_action(target, source, env) -> int:
    """verify_on_host as an SCons action: source[0] the verifier, source[1:] the programs,
    target[0] the verdicts (the app build and the bench both run it)."""
    return verify_on_host(Path(str(source[0])), [Path(str(s)) for s in source[1:]], Path(str(target[0])))
