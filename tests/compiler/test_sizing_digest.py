"""compiler/scratch.py sources_digest(): the builds lower programs again when the kernels' scratch
sizing C changes (site_scons/ember_build/lowering.py), and only then."""
from __future__ import annotations

import shutil
from pathlib import Path

from compiler import scratch

RUNTIME = Path(__file__).resolve().parents[2] / "runtime"


def _copy(tmp_path: Path) -> Path:
    copy = tmp_path / "runtime"
    for folder in ("include", "kernels"):
        shutil.copytree(RUNTIME / folder, copy / folder)
    return copy


def test_the_digest_follows_the_sizing_code_and_the_headers_it_includes(tmp_path):
    runtime = _copy(tmp_path)
    before = scratch.sources_digest(runtime)
    assert before == scratch.sources_digest(RUNTIME)
    names = {p.name for p in scratch._sizing_files(runtime)}
    assert {"em_nn_buffer_sizes.c", "em_nn_functions.h", "em_nn_status.h"} <= names
    sizing = runtime / "kernels" / "em_nn_buffer_sizes.c"
    sizing.write_text(sizing.read_text() + "\nint em_nn_extra_sizing(void) { return 1; }\n")
    assert scratch.sources_digest(runtime) != before
    header = runtime / "kernels" / "include" / "em_nn_types.h"
    assert header.name in names
    sizing.write_text((RUNTIME / "kernels" / "em_nn_buffer_sizes.c").read_text())
    header.write_text(header.read_text().replace("#endif", "#define EM_NN_SOMETHING_NEW 1\n#endif", 1))
    assert scratch.sources_digest(runtime) != before


def test_comments_and_headers_the_sizing_does_not_include_change_nothing(tmp_path):
    runtime = _copy(tmp_path)
    before = scratch.sources_digest(runtime)
    sizing = runtime / "kernels" / "em_nn_buffer_sizes.c"
    sizing.write_text("/* a new comment\n   over two lines */\n" + sizing.read_text() + "\n// and a line comment\n\n")
    unrelated = runtime / "kernels" / "include" / "em_nn_variants.h"
    assert unrelated.name not in {p.name for p in scratch._sizing_files(runtime)}
    unrelated.write_text(unrelated.read_text() + "\n#define EM_NN_UNRELATED 1\n")
    assert scratch.sources_digest(runtime) == before
