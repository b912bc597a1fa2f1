"""What every lowering inside SCons shares, importable without PyTorch (SConscripts read it at
start-up): the dependency on the C the compiler calls, and one lowering at a time."""
from __future__ import annotations

import threading

# SCons runs the Python actions of parallel jobs (-j) in threads of one process; torch.export and
# torchao's PT2E quantizer keep process-wide state and fail when two run at once. Lowerings take
# turns; the other jobs' C compiles and QEMU runs still overlap them.
LOWERING_LOCK = threading.Lock()


def lowering_c_digest() -> str:
    """A hash of the C the compiler builds for the host and calls while it lowers (the kernels'
    scratch sizes, compiler/scratch.py sources_digest: em_nn_buffer_sizes.c and the headers it
    includes, comments left out): when it changes, programs must be lowered again.
    A value, not the files: as sources, SCons would scan em_nn_variants.h into the generated
    em_nn_variants_selected.h, a lowering output (a cycle)."""
    from compiler.scratch import sources_digest

    return sources_digest()
