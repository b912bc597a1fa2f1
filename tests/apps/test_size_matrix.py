"""`scons size-matrix=1`: one row per app (and model variant), one column per board, from each
build's size.json; a failing build is a cell with its error and a non-zero exit."""
from __future__ import annotations

import json
import sys

import pytest

from ember_build import size_matrix
from ember_build.paths import BUILD_ROOT



@pytest.mark.qemu
def test_anomaly_on_two_boards_agrees_with_their_size_reports():
    assert size_matrix.main("anomaly", "corstone300,mps2_an385") == 0
    cells = json.loads((BUILD_ROOT / "size_matrix.json").read_text())
    assert [(c["app"], c["board"]) for c in cells] == [("anomaly", "corstone300"), ("anomaly", "mps2_an385")]
    for cell in cells:
        size = json.loads((BUILD_ROOT / cell["board"] / "anomaly/size.json").read_text())
        assert cell["flash_total"] == size["flash_total"] and cell["ram_total"] == size["ram_total"]
        assert cell["code_flash"] + cell["constants_flash"] <= cell["flash_total"]
    table = (BUILD_ROOT / "size_matrix.md").read_text()
    assert "| app | corstone300 | mps2_an385 |" in table and (BUILD_ROOT / "size_matrix.png").stat().st_size > 1000


@pytest.mark.qemu
def test_another_flavour_builds_and_writes_beside_the_default():
    """opt=-Os lto=1 reaches every cell's build and reads its size.json from build/<board>-Os-lto/."""
    assert size_matrix.main("anomaly", "corstone300", optimization="-Os", lto=True) == 0
    cell = json.loads((BUILD_ROOT / "size_matrix-Os-lto.json").read_text())[0]
    size = json.loads((BUILD_ROOT / "corstone300-Os-lto/anomaly/size.json").read_text())
    assert cell["code_flash"] == size["code_flash"]
    assert "`./scons size-matrix=1 opt=-Os lto=1`" in (BUILD_ROOT / "size_matrix-Os-lto.md").read_text()


def test_a_failing_build_is_a_cell_with_its_error():
    fake_scons = [sys.executable, "-c", "import sys; print('error: UnknownBoardError: no such thing'); sys.exit(2)"]
    assert size_matrix.main("anomaly", "corstone300", scons=fake_scons) == 1
    cell = json.loads((BUILD_ROOT / "size_matrix.json").read_text())[0]
    assert "UnknownBoardError" in cell["error"]
    assert "failed: error: UnknownBoardError" in (BUILD_ROOT / "size_matrix.md").read_text()


def test_selection_is_checked():
    with pytest.raises(size_matrix.SizeMatrixError, match="unknown board"):
        size_matrix.boards("corstone300,not_a_board")
    with pytest.raises(size_matrix.SizeMatrixError, match="unknown app"):
        size_matrix.apps_and_variants("anomaly,not_an_app")
    assert "host" not in size_matrix.boards()
