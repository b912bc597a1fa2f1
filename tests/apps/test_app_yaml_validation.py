"""Issue 17, "every setting is validated": app.yaml against its schema (APP_SCHEMA,
site_scons/ember_build/app_build.py), each error one line with the file, the line and the key,
from load_app and through `scons`; and model= on an app with one model refused. No Arm build:
every SCons run here stops before anything builds."""
from __future__ import annotations

from pathlib import Path

import pytest

from ember_build.app_build import AppError, load_app
from tests.settings_support import REPO, checkout_copy, error_lines, line_of, scons

KWS = (REPO / "apps" / "kws" / "app.yaml").read_text()
PERSON = (REPO / "apps" / "person_detect" / "app.yaml").read_text()


def written(root: Path, app: str, text: str) -> Path:
    (root / app / "firmware" / "yolo").mkdir(parents=True)
    (root / app / "app.yaml").write_text(text)
    return root


def edited(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


# (app, app.yaml text, model=, the fragment of the line the error names, the key, what the message says)
CASES = {
    "unknown key": ("kws", edited(KWS, "int8_io:", "int8_i0:"), "", "int8_i0:", "int8_i0",
                    "unknown key (did you mean 'int8_io'?)"),
    "string for a boolean": ("kws", edited(KWS, "int8_io: false", 'int8_io: "false"'), "", "int8_io:", "int8_io",
                             'expected true or false, got "false"'),
    "test_vectors out of range": ("kws", edited(KWS, "test_vectors: 4", "test_vectors: 0"), "", "test_vectors:",
                                  "test_vectors", "expected an integer >= 1, got 0"),
    "string for an integer": ("kws", edited(KWS, "figures_samples: 1200", "figures_samples: lots"), "",
                              "figures_samples:", "figures_samples", 'expected an integer >= 1, got "lots"'),
    "missing key": ("kws", edited(KWS, "model: apps.kws.model", "# no model"), "", "name: kws", "model",
                    "missing (a required key)"),
    "name is not the folder's": ("kws", edited(KWS, "name: kws", "name: keywords"), "", "name: keywords", "name",
                                 "is 'keywords' but the folder is 'kws'"),
    "unknown memory key": ("kws", KWS + "memory:\n  pins: {conv1: dtcm}\n", "", "pins:", "memory.pins",
                           "unknown key (did you mean 'pin'?)"),
    "cap that is no size": ("kws", KWS + "memory:\n  cap:\n    dtcm: big\n", "", "dtcm: big", "memory.cap.dtcm",
                            "is not a size"),
    "unknown key of a variant": ("person_detect", edited(PERSON, "    figures_samples: 500\n", "    figure_samples: 500\n"),
                                 "vww", "figure_samples", "variants.vww.figure_samples",
                                 "unknown key (did you mean 'figures_samples'?)"),
    "variant missing its model": ("person_detect", edited(PERSON, "    model: apps.person_detect.model:vww\n", ""),
                                  "yolo", "  vww:", "variants.vww", "missing model"),
    "programs naming no variant": ("person_detect", edited(PERSON, "programs: [vww, yolo]", "programs: [vww, yollo]"),
                                   "cascade", "programs:", "variants.cascade.programs",
                                   "['yollo'] are not one-program variants"),
    "checkpoint of no variant": ("person_detect", edited(PERSON, "checkpoint: yolo ", "checkpoint: yollo "),
                                 "yolo_w4", "checkpoint: yollo", "variants.yolo_w4.checkpoint",
                                 "'yollo' is no variant with a checkpoint of its own"),
    "precision with two goals": ("person_detect", edited(PERSON, "      flash_budget: 250000",
                                                         "      flash_budget: 250000\n      min_output_sqnr_db: 20"),
                                 "yolo_w4", "precision:", "variants.yolo_w4.precision",
                                 "takes flash_budget or min_output_sqnr_db, not both"),
    "precision no quantizer has": ("kws", KWS + "precision:\n  default: a4w4\n", "", "default: a4w4",
                                   "precision.default", "a4w4"),
    "key given twice": ("kws", KWS + "test_vectors: 8\n", "", "test_vectors: 8", "test_vectors", "given twice"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_bad_app_yaml_is_one_line_naming_file_line_and_key(tmp_path, case):
    app, text, model, fragment, key, says = CASES[case]
    root = written(tmp_path, app, text)
    with pytest.raises(AppError) as error:
        load_app(app, model, apps_root=root)
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith(f"{root / app / 'app.yaml'}:{line_of(text, fragment)}: {key}: "), message
    assert says in message, message


def test_a_yaml_syntax_error_names_the_file_and_line(tmp_path):
    text = edited(KWS, "test_vectors: 4 ", "test_vectors: {4 ")
    root = written(tmp_path, "kws", text)
    with pytest.raises(AppError) as error:
        load_app("kws", apps_root=root)
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith(f"{root / 'kws' / 'app.yaml'}:"), message
    assert ": not valid YAML: " in message and f"at line {line_of(text, 'test_vectors: {')}" in message


def test_load_app_reads_another_apps_folder(tmp_path):
    root = written(tmp_path, "kws", KWS.replace("test_vectors: 4", "test_vectors: 2"))
    assert load_app("kws", apps_root=root).test_vectors == 2 and load_app("kws").test_vectors == 4
    with pytest.raises(AppError, match="known apps: kws$"):
        load_app("anomaly", apps_root=root)


def test_every_app_and_model_of_apps_follows_the_schema():
    from ember_build.app_build import APP_SCHEMA, app_variants, known_apps
    from ember_build.config_schema import Validator

    Validator.check_schema(APP_SCHEMA)
    assert known_apps() == ["anomaly", "image_classification", "kws", "person_detect", "wakeword"]
    assert app_variants("person_detect") == ["yolo", "yolo_w4", "vww", "cascade"] and app_variants("kws") == []
    for app in known_apps():
        for model in app_variants(app) or [""]:
            assert load_app(app, model).variant == model
    assert load_app("kws").int8_io is False and load_app("image_classification").int8_io is True
    w4 = load_app("person_detect", "yolo_w4")
    assert w4.checkpoint == "yolo" and dict(w4.precision) == {"flash_budget": 250000} and w4.firmware == ("yolo",)


# --- the build: SCons runs that stop before anything builds ---

def test_model_on_an_app_with_one_model_stops_the_build(tmp_path):
    """kws's SConscript never reads model=, so the build itself refuses it for an app with one model."""
    run = scons(["app=kws", "board=host", "model=bogus"], tmp_path)
    out = run.stdout + run.stderr
    assert run.returncode == 2, out[-3000:]
    assert error_lines(run) == ["error: apps/kws/app.yaml: no model 'bogus': kws has one model (no variants): "
                                "drop model="], out[-3000:]
    assert not (tmp_path / "host" / "kws").exists()


def test_a_broken_app_yaml_stops_the_build_with_one_line(tmp_path):
    site = checkout_copy(tmp_path / "copy")
    app_yaml = tmp_path / "copy" / "apps" / "kws" / "app.yaml"
    app_yaml.write_text(app_yaml.read_text().replace("int8_io:", "int8_i0:"))
    run = scons(["app=kws", "board=host"], tmp_path / "build", site_dir=site)
    out = run.stdout + run.stderr
    assert run.returncode == 2, out[-3000:]
    assert error_lines(run) == [f"error: apps/kws/app.yaml:{line_of(app_yaml.read_text(), 'int8_i0')}: int8_i0: "
                                "unknown key (did you mean 'int8_io'?)"], out[-3000:]
    assert "Traceback" not in out and not (tmp_path / "build" / "host" / "kws").exists()
