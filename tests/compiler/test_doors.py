"""What a user sees at Ember's doors when something is wrong: named one-line errors saying what
and how to fix it, never a traceback from Ember's own code (CLI, compiler.lower, run_reference,
inspect / run of a bad program file)."""
from __future__ import annotations

import inspect
import subprocess
import sys

import numpy as np
import pytest
import torch
from torch import nn

import compiler
from compiler.cli import main
from compiler.errors import CalibrationError, InputShapeError, ModelError, ProgramFormatError, UnsupportedOpsError
from compiler.quantizer import CortexMQuantizer

REPO = compiler.__file__.rsplit("/compiler/", 1)[0]


class Unlowerable(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor):
        y = torch.cumsum(self.fc(x), 1)  # LINE cumsum
        return y, torch.sort(x)[0], torch.argmin(y, 1)  # LINE sort


def _line(tag: str) -> int:
    source = inspect.getsource(sys.modules[__name__]).splitlines()
    return next(n for n, text in enumerate(source, 1) if text.endswith(f"# LINE {tag}"))


def test_every_unsupported_op_is_reported_in_one_run_with_its_line_and_a_rewrite():
    with pytest.raises(UnsupportedOpsError) as error:
        compiler.lower(Unlowerable(), (torch.randn(1, 8),), [torch.randn(4, 8)])
    message = str(error.value)
    assert message.startswith("3 ops of the model cannot be lowered")
    for op in ("cumsum", "sort", "argmin"):
        assert f"aten.{op}" in message
    assert f"test_doors.py:{_line('cumsum')}" in message and f"test_doors.py:{_line('sort')}" in message
    assert "torch.triu" in message and "in the application" in message  # concrete rewrites


def _mlp() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 3)).eval()


def test_calibration_as_numpy_or_one_tensor_is_taken():
    samples = np.random.default_rng(0).normal(size=(12, 6)).astype(np.float32)
    for calibration in (samples, torch.from_numpy(samples), [samples[:6], samples[6:]]):
        program = compiler.lower(_mlp(), (torch.zeros(1, 6),), calibration)
        assert [op.kind for op in program.graph.ops].count("fully_connected") == 2


def test_calibration_of_another_per_sample_shape_is_refused_not_reshaped():
    with pytest.raises(CalibrationError, match=r"shape \[4, 3, 2\].*\[n·1, 6\]"):
        compiler.lower(_mlp(), (torch.zeros(1, 6),), [torch.randn(4, 3, 2)])
    with pytest.raises(CalibrationError, match="empty"):
        compiler.lower(_mlp(), (torch.zeros(1, 6),), [])


def test_a_model_that_is_not_a_module_and_a_misspelt_skip_module_are_named():
    with pytest.raises(ModelError, match="build function"):
        compiler.lower(None, (torch.zeros(1, 6),), [torch.randn(2, 6)])
    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.head = nn.Linear(6, 2)

        def forward(self, x):
            return self.head(x)
    with pytest.raises(ModelError, match="'haed'.*closest: head"):
        compiler.lower(Net(), (torch.zeros(1, 6),), [torch.randn(2, 6)],
                       quantizer=CortexMQuantizer(skip_modules=("haed",)))


def test_run_reference_refuses_another_shape_and_says_how_to_permute():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU()).eval()
    program = compiler.lower(model, (torch.zeros(1, 3, 8, 6),), [torch.randn(2, 3, 8, 6)])
    nchw = np.zeros((1, 3, 8, 6), np.float32)
    with pytest.raises(InputShapeError, match=r"takes shape \[1, 8, 6, 3\].*x.transpose\(0, 2, 3, 1\)"):
        program.run_reference(nchw)
    assert program.run_reference(nchw.transpose(0, 2, 3, 1))[0].shape == (1, 6, 4, 4)
    assert program.run_reference(nchw.transpose(0, 2, 3, 1)[0])[0].shape == (1, 6, 4, 4)  # without the batch
    with pytest.raises(InputShapeError, match="takes 1 input"):
        program.run_reference(nchw, nchw)




@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("doors")
    (folder / "model.py").write_text("import torch.nn as nn\n"
                                     "def build():\n    return nn.Sequential(nn.Linear(8, 4), nn.ReLU())\n"
                                     "def nothing():\n    return None\n")
    rng = np.random.default_rng(0)
    np.save(folder / "calibration.npy", rng.normal(size=(16, 8)).astype(np.float32))
    np.save(folder / "wrong.npy", rng.normal(size=(16, 9)).astype(np.float32))
    np.save(folder / "x.npy", rng.normal(size=(1, 8)).astype(np.float32))
    done = subprocess.run([sys.executable, "-m", "compiler", "lower", "--model", f"{folder}/model.py:build",
                           "--input-shape", "1,8", "--calibration", f"{folder}/calibration.npy",
                           "-o", f"{folder}/model.embr"], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    (folder / "truncated.embr").write_bytes((folder / "model.embr").read_bytes()[:100])
    return folder


@pytest.mark.parametrize("args,message", [
    (("lower", "--model", "{f}/model.py:build", "--input-shape", "1,x", "--calibration", "{f}/calibration.npy"),
     "--input-shape takes the example input's dims as positive integers"),
    (("lower", "--model", "{f}/model.py:build", "--input-shape", "1,8", "--calibration", "{f}/wrong.npy"),
     "holds an array of shape [16, 9]: give one of shape [samples, 8]"),
    (("lower", "--model", "{f}/model.py:nothing", "--input-shape", "1,8", "--calibration", "{f}/calibration.npy"),
     "the model must be a torch.nn.Module, got NoneType"),
    (("lower", "--model", "{f}/model.py:build", "--input-shape", "1,8", "--calibration", "{f}/calibration.npy",
      "--skip-modules", "hed"), "skip_modules names 'hed', which is no submodule of the model"),
    (("lower", "--model", "{f}/model.py:build", "--input-shape", "1,8", "--calibration", "{f}/missing.npy"),
     "calibration file {f}/missing.npy does not exist"),
    (("lower", "--model", "{f}/absent.py:build", "--input-shape", "1,8", "--calibration", "{f}/calibration.npy"),
     "model file {f}/absent.py does not exist"),
    (("lower", "--model", "{f}/model.py:build", "--input-shape", "1,8", "--calibration", "{f}/calibration.npy",
      "--flash-budget", "100"), "a program of 100 B is out of reach: with every int4-capable layer at a8w4"),
    (("lower", "--model", "{f}/model.py:build", "--input-shape", "1,8", "--calibration", "{f}/calibration.npy",
      "--int4-modules", "2"), "precision_modules names '2', which is no submodule of the model"),
    (("inspect", "{f}/truncated.embr"), "corrupt program (100 bytes): its trailer"),
    (("run", "{f}/truncated.embr", "--input", "{f}/x.npy"), "corrupt program (100 bytes): its trailer"),
    (("run", "{f}/model.embr", "--input", "{f}/wrong.npy"), "program input 0 takes shape [1, 8], got [16, 9]"),
    (("run", "{f}/missing.embr", "--input", "{f}/x.npy"), "program file"),
])
def test_cli_errors_are_one_named_line(files, args, message, capsys):
    """In this process, as compiler/__main__.py runs main (a launch per case would import torch
    each time; the fixture's lower is a real launch): a raw exception would fail the test."""
    argv = [a.format(f=files) for a in args] + (["-o", str(files / "out.embr")] if args[0] == "lower" else [])
    try:
        status = main(argv)
    except SystemExit as stop:  # as the interpreter reports it: a message is printed, status 1
        status = stop.code
        if isinstance(status, str):
            print(status, file=sys.stderr)
            status = 1
    stderr = capsys.readouterr().err
    assert status not in (0, None)
    assert message.format(f=files) in stderr and "Traceback" not in stderr, stderr


def test_cli_lowers_int4_weights_and_int16_activations_where_asked(files, capsys):
    from compiler.reader import read_program

    for args, weights, activations in ((["--precision", "a8w4"], "int4", "int8"), (["--int4-modules", "0"], "int4", "int8"),
                                       (["--precision", "a16w8"], "int8", "int16"),
                                       (["--int16-modules", "0"], "int8", "int16"), ([], "int8", "int8")):
        out = files / f"w{len(args)}{weights}{activations}.embr"
        assert main(["lower", "--model", f"{files}/model.py:build", "--input-shape", "1,8", "--calibration",
                     f"{files}/calibration.npy", "-o", str(out), *args]) == 0
        graph, _, _ = read_program(out.read_bytes())
        (fc,) = [op for op in graph.ops if op.kind == "fully_connected"]
        assert graph.tensors[fc.inputs[1]].dtype == weights and graph.tensors[fc.inputs[0]].dtype == activations


def test_a_file_that_is_no_program_is_a_format_error():
    with pytest.raises(ProgramFormatError):
        compiler.Program.load(__file__)  # not a program at all
