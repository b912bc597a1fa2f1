"""Issue 17, "every setting is validated": board.yaml against its schema (BOARD_SCHEMA,
site_scons/ember_build/config_schema.py), each error one line with the file, the line and the
field; and the build's own settings: a misspelt build variable, a broken board.yaml wherever the
build loads boards (SConstruct, the bench, the size matrix), `scons --help`'s list of apps,
models and boards. No Arm build: every SCons run here stops before anything builds."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ember_build.board import BoardError, known_boards, load_board
from tests.settings_support import REPO, checkout_copy, error_lines, line_of, scons

BSP = REPO / "bsp"
ORIGINAL = (BSP / "corstone300" / "board.yaml").read_text()


def broken_board(root: Path, text: str) -> Path:
    """corstone300 (and the bsp/cortex_m its sources name) in `root`, its board.yaml `text`."""
    shutil.copytree(BSP / "corstone300", root / "corstone300")
    shutil.copytree(BSP / "cortex_m", root / "cortex_m")
    (root / "corstone300" / "board.yaml").write_text(text)
    return root


def edited(old: str, new: str) -> str:
    assert ORIGINAL.count(old) == 1, old
    return ORIGINAL.replace(old, new)


# (board.yaml text, the fragment of the line the error names, the field, what the message says)
CASES = {
    "unknown key": (edited("stack_bytes: 32768", "stack_byts: 32768"), "stack_byts:", "stack_byts",
                    "unknown key (did you mean 'stack_bytes'?)"),
    "string for an integer": (edited("stack_bytes: 32768", 'stack_bytes: "abc"'), "stack_bytes:", "stack_bytes",
                              'expected an integer > 0 and a multiple of 8, or null, got "abc"'),
    "negative size": (edited("stack_bytes: 32768", "stack_bytes: -8"), "stack_bytes:", "stack_bytes", "got -8"),
    "region size out of range": (edited("size: 0x00400000", "size: 0"), "name: isram", "memory.isram.size",
                                 "expected an integer > 0, got 0"),
    "unknown region key": (edited("size: 0x00400000, speed: 1", "size: 0x00400000, sped: 1"), "name: isram",
                           "memory.isram.sped", "unknown key (did you mean 'speed'?)"),
    "unknown console key": (edited("console: {kind: cmsdk_uart,", "console: {kind: cmsdk_uart, baud: 115200,"),
                            "console:", "console.baud", "unknown key"),
    "unknown counter key": (edited("  icount_shift: 7", "  icount_shift: 7\n  icount_shfit: 7"), "icount_shfit",
                            "counter.icount_shfit", "did you mean 'icount_shift'?"),
    "unknown placement kind": (edited("stack: dtcm,", "stak: dtcm,"), "placement:", "placement.stak",
                               "did you mean 'stack'?"),
    "console kind": (edited("{kind: cmsdk_uart,", "{kind: pl011,"), "console:", "console.kind",
                     'expected one of cmsdk_uart, sci_b_uart, dw_apb_uart, stdout, got "pl011"'),
    "list item type": (edited("  - -mthumb", "  - 3"), "  - 3", "cflags[0]", "expected a string, got 3"),
    "string for a boolean": (ORIGINAL + 'bin: "false"\n', 'bin: "false"', "bin", 'expected true or false, got "false"'),
    "missing key": (edited("cc: arm-none-eabi-gcc", "# no compiler"), "name: corstone300", "cc",
                    "missing (a required key)"),
    "key given twice": (ORIGINAL + "clock_hz: 31000000\n", "clock_hz: 31000000", "clock_hz",
                        "given twice (first at line"),
    "a check of Board's own": (edited("speed: 3, access: r,   arena: false", "speed: 3, access: r,   arena: true"),
                               "name: qspi", "memory.qspi.arena", "an arena region must be writable"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_bad_board_yaml_is_one_line_naming_file_line_and_field(tmp_path, case):
    text, fragment, field, says = CASES[case]
    root = broken_board(tmp_path, text)
    with pytest.raises(BoardError) as error:
        load_board("corstone300", bsp_root=root)
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith(f"{root / 'corstone300' / 'board.yaml'}:{line_of(text, fragment)}: {field}: "), message
    assert says in message, message


def test_a_yaml_syntax_error_names_the_file_and_line(tmp_path):
    text = edited("cc: arm-none-eabi-gcc", "cc: [arm-none-eabi-gcc")
    root = broken_board(tmp_path, text)
    with pytest.raises(BoardError) as error:
        load_board("corstone300", bsp_root=root)
    message = str(error.value)
    assert "\n" not in message
    # the flow list opened on the cc line is still open on the next key's line
    assert message.startswith(f"{root / 'corstone300' / 'board.yaml'}:{line_of(text, 'cc: [') + 1}: not valid YAML: "), message
    assert f"at line {line_of(text, 'cc: [')}" in message


def test_a_board_yaml_that_is_not_utf8_is_one_line(tmp_path):
    root = broken_board(tmp_path, ORIGINAL)
    path = root / "corstone300" / "board.yaml"
    path.write_bytes(ORIGINAL.encode().replace(b"description:", b"description: \xff", 1))
    with pytest.raises(BoardError) as error:
        load_board("corstone300", bsp_root=root)
    assert str(error.value).startswith(f"{path}: not UTF-8 text (byte "), error.value


def test_every_board_of_bsp_follows_the_schema():
    from ember_build.board import BOARD_SCHEMA
    from ember_build.config_schema import Validator

    assert len(known_boards()) >= 7
    for name in known_boards():
        assert load_board(name).source.data["name"] == name
    Validator.check_schema(BOARD_SCHEMA)


# --- the build: SCons runs that stop before anything builds ---

def test_a_misspelt_build_variable_is_an_error_naming_the_closest(tmp_path):
    run = scons(["bord=host", "app=anomaly"], tmp_path)
    assert run.returncode == 2, run.stdout + run.stderr
    assert error_lines(run) == [error_lines(run)[0]] and "unknown build variable bord= (did you mean board=?)" in run.stdout
    assert "Traceback" not in run.stdout + run.stderr
    assert not (tmp_path / "corstone300").exists() and not (tmp_path / "host").exists()


def test_help_lists_the_apps_their_models_and_the_boards(tmp_path):
    run = scons(["--help"], tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    listing = run.stdout[run.stdout.index("Apps (app=)"):]
    for app in ("anomaly", "image_classification", "kws", "person_detect"):
        assert f"\n  {app} " in listing or f"\n  {app}\n" in listing, listing
    for model in ("yolo", "vww", "cascade"):
        assert f"model={model} " in listing
    boards = listing[listing.index("Boards (board="):]
    assert all(f"\n  {name} " in boards for name in known_boards()), boards
    assert "corstone300           mve" in boards and "mps2_an385            scalar" in boards


# A broken board.yaml wherever the build loads boards: one line and exit 2, no traceback.
WHERE_BOARDS_LOAD = {
    "SConstruct": ["board=corstone300", "em_run"],
    "bench": ["bench", "boards=corstone300", "models=ds_cnn"],
    "size matrix": ["size-matrix=1", "apps=kws", "boards=corstone300"],  # size-matrix= stays a known variable
}


@pytest.mark.parametrize("where", sorted(WHERE_BOARDS_LOAD))
def test_a_broken_board_yaml_stops_the_build_with_one_line(tmp_path, where):
    site = checkout_copy(tmp_path / "copy")
    board_yaml = tmp_path / "copy" / "bsp" / "corstone300" / "board.yaml"
    board_yaml.write_text(board_yaml.read_text().replace("stack_bytes: 32768", "stack_byts: 32768"))
    run = scons(WHERE_BOARDS_LOAD[where], tmp_path / "build", site_dir=site)
    out = run.stdout + run.stderr
    assert run.returncode == 2, out
    line = line_of(board_yaml.read_text(), "stack_byts")
    assert error_lines(run) == [f"error: bsp/corstone300/board.yaml:{line}: stack_byts: "
                                "unknown key (did you mean 'stack_bytes'?)"], out
    assert "Traceback" not in out


def test_unknown_variables_name_the_closest_known_one():
    from ember_build.build_settings import unknown_variables_error

    assert unknown_variables_error([], ["board"]) is None
    assert unknown_variables_error(["size-matrix"], ["board"]) is None  # read from the raw arguments
    message = unknown_variables_error(["bord", "zzz"], ["board", "app"])
    assert message.startswith("unknown build variables bord= (did you mean board=?), zzz=; known: app, board, size-matrix")
