"""em_run's own refusals (host build), each one named line saying what is wrong and how to fix
it: a program input without a file, with a file that cannot be read or of another size (never run
on zeros, unless --zero-inputs asks), in single runs and in --batch cases; --batch exiting
non-zero once any case failed, after every verdict; arenas that do not fit em_run's pool (which
arena, the bytes it needs and those left, the EM_RUN_ARENA_CAPACITY to rebuild with)."""
from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest

import programs
from build_host import build_em_run
from compiler import reference
from compiler.ir import Graph, Op, Tensor
from compiler.planner import Region, plan_memory
from compiler.target import Target
from compiler.writer import write_program

EXIT_USAGE, EXIT_CASES_FAILED, EXIT_IO = 64, 65, 74  # tools/em_run/em_run.c EM_RUN_EXIT_*
EM_ERR_ARENA_TOO_SMALL = 11
POOL = 512 * 1024  # em_run's default EM_RUN_ARENA_CAPACITY


@pytest.fixture(scope="module")
def em_run():
    return build_em_run()


def run(em_run, cwd, *args: str) -> subprocess.CompletedProcess:
    result = subprocess.run([str(em_run), *args], cwd=cwd, capture_output=True, text=True, timeout=20)
    assert result.returncode >= 0, f"em_run crashed (signal {-result.returncode})"
    return result


def errors(result: subprocess.CompletedProcess) -> list[str]:
    """em_run's error lines ("em_run: ...")."""
    return [line for line in result.stdout.splitlines() if line.startswith("em_run: ")]


@pytest.fixture
def fc(tmp_path):
    """p.embr: int8 input [2, 17] (34 bytes) -> FC -> [2, 5]; x.bin its input, want.bin its output."""
    spec, case = programs.fc_program(batches=2)
    (tmp_path / "p.embr").write_bytes(programs.build(spec))
    x = np.random.default_rng(3).integers(-128, 128, size=(2, 17), dtype=np.int8)
    (tmp_path / "x.bin").write_bytes(x.tobytes())
    want = reference.fully_connected_s8(x, case.weights, case.bias, case.multiplier, case.shift,
                                        case.output_offset, case.activation_min, case.activation_max)
    (tmp_path / "want.bin").write_bytes(want.tobytes())
    return case


def two_input_program(tmp_path) -> None:
    """two.embr: float32 a [4] + b [8] -> [8]; a.bin, b.bin its inputs (16 and 32 bytes)."""
    tensors = {"a": Tensor("a", "float32", (4,)), "b": Tensor("b", "float32", (2, 4)),
               "y": Tensor("y", "float32", (2, 4))}
    graph = Graph(tensors, [Op("float_binary", ["a", "b"], ["y"], {"function": "add"})], ["a", "b"], ["y"])
    plan_memory(graph, Region("sram", 4096))
    (tmp_path / "two.embr").write_bytes(write_program(graph, Target("host")))
    (tmp_path / "a.bin").write_bytes(np.ones(4, np.float32).tobytes())
    (tmp_path / "b.bin").write_bytes(np.ones(8, np.float32).tobytes())


# ---- inputs -----------------------------------------------------------------------------------

def test_a_program_input_without_input_is_refused(em_run, tmp_path, fc):
    result = run(em_run, tmp_path, "p.embr", "--output", "y.bin")
    assert result.returncode == EXIT_USAGE and not (tmp_path / "y.bin").exists(), result.stdout
    assert errors(result) == ["em_run: input 0 (34 bytes) has no file: the program takes 1 input, 0 given: "
                              "give one --input FILE per program input, in order (or --zero-inputs)"]


def test_the_second_input_without_a_file_is_named(em_run, tmp_path):
    two_input_program(tmp_path)
    result = run(em_run, tmp_path, "two.embr", "--input", "a.bin")
    assert result.returncode == EXIT_USAGE
    assert errors(result)[0].startswith("em_run: input 1 (32 bytes) has no file: the program takes 2 inputs, 1 given")
    assert run(em_run, tmp_path, "two.embr", "--input", "a.bin", "--input", "b.bin").returncode == 0


def test_a_missing_input_file_is_named(em_run, tmp_path, fc):
    result = run(em_run, tmp_path, "p.embr", "--input", "absent.bin")
    assert result.returncode == EXIT_IO
    assert errors(result) == ["em_run: input 0 (34 bytes): absent.bin cannot be read: give an existing file of 34 bytes"]


@pytest.mark.parametrize("size", [0, 2, 33, 35, 100])
def test_an_input_file_of_another_size_says_expected_and_found(em_run, tmp_path, fc, size):
    (tmp_path / "other.bin").write_bytes(bytes(size))
    result = run(em_run, tmp_path, "p.embr", "--input", "other.bin")
    assert result.returncode == EXIT_IO
    assert errors(result) == [f"em_run: input 0 (34 bytes): other.bin holds {size} bytes: "
                              "give a file of exactly 34 bytes"]


def test_more_input_files_than_inputs_are_refused(em_run, tmp_path, fc):
    result = run(em_run, tmp_path, "p.embr", "--input", "x.bin", "--input", "x.bin")
    assert result.returncode == EXIT_USAGE
    assert errors(result) == ["em_run: 2 --input files for a program of 1 input: give one per program input, in order"]


def test_zero_inputs_opts_in_to_zeros(em_run, tmp_path, fc):
    result = run(em_run, tmp_path, "p.embr", "--zero-inputs", "--output", "y.bin")
    assert result.returncode == 0, result.stdout
    want = reference.fully_connected_s8(np.zeros((2, 17), np.int8), fc.weights, fc.bias, fc.multiplier, fc.shift,
                                        fc.output_offset, fc.activation_min, fc.activation_max)
    np.testing.assert_array_equal(np.frombuffer((tmp_path / "y.bin").read_bytes(), np.int8).reshape(want.shape), want)


def test_zero_inputs_still_reads_the_files_given(em_run, tmp_path):
    two_input_program(tmp_path)
    assert run(em_run, tmp_path, "two.embr", "--input", "a.bin", "--zero-inputs", "--output", "y.bin").returncode == 0
    np.testing.assert_array_equal(np.frombuffer((tmp_path / "y.bin").read_bytes(), np.float32), np.ones(8))
    (tmp_path / "a.bin").write_bytes(b"\0")
    assert run(em_run, tmp_path, "two.embr", "--input", "a.bin", "--zero-inputs").returncode == EXIT_IO


# ---- --batch ----------------------------------------------------------------------------------

VERDICT = re.compile(r"^case (\d+): (\S+)(.*)$", re.M)


def batch(em_run, tmp_path, lines: list[str]) -> tuple[subprocess.CompletedProcess, dict[int, str]]:
    (tmp_path / "manifest.txt").write_text("\n".join(lines) + "\n")
    result = run(em_run, tmp_path, "--batch", "manifest.txt")
    return result, {int(m.group(1)): m.group(2) + m.group(3) for m in VERDICT.finditer(result.stdout)}


def test_batch_of_matching_cases_exits_zero(em_run, tmp_path, fc):
    result, verdicts = batch(em_run, tmp_path, ["p.embr want.bin x.bin"] * 2)
    assert result.returncode == 0, result.stdout
    assert [v.split()[:2] for v in verdicts.values()] == [["EM_OK", "match"]] * 2 and "cases: 2\n" in result.stdout


def test_batch_with_one_failing_case_exits_non_zero_after_every_verdict(em_run, tmp_path, fc):
    (tmp_path / "other.bin").write_bytes(bytes(10))
    result, verdicts = batch(em_run, tmp_path, ["p.embr want.bin x.bin", "p.embr other.bin x.bin", "p.embr want.bin x.bin"])
    assert result.returncode == EXIT_CASES_FAILED, result.stdout
    assert verdicts[0].startswith("EM_OK match") and verdicts[2].startswith("EM_OK match"), result.stdout
    assert verdicts[1].startswith("EM_OK mismatch at byte "), result.stdout
    assert result.stdout.endswith("cases: 3\nem_run: 1 of 3 cases failed (the first: case 1); "
                                  "each one's verdict line above says how\n")


def test_batch_case_without_its_input_is_an_error_not_zeros(em_run, tmp_path, fc):
    (tmp_path / "short.bin").write_bytes(b"\1\2")
    result, verdicts = batch(em_run, tmp_path, ["p.embr want.bin", "p.embr want.bin absent.bin",
                                                "p.embr want.bin short.bin", "p.embr want.bin x.bin"])
    assert result.returncode == EXIT_CASES_FAILED, result.stdout
    assert [verdicts[i] for i in range(3)] == ["EM_RUN_EXIT_USAGE", "EM_RUN_EXIT_IO", "EM_RUN_EXIT_IO"]
    assert verdicts[3].startswith("EM_OK match"), result.stdout
    assert errors(result)[:3] == [
        "em_run: input 0 (34 bytes) has no file: the program takes 1 input, 0 listed: "
        "list one INPUT file per program input after EXPECTED",
        "em_run: input 0 (34 bytes): absent.bin cannot be read: give an existing file of 34 bytes",
        "em_run: input 0 (34 bytes): short.bin holds 2 bytes: give a file of exactly 34 bytes"]
    assert "em_run: 3 of 4 cases failed (the first: case 0)" in result.stdout


# ---- arenas -----------------------------------------------------------------------------------

def test_arena_too_small_names_the_arena_and_the_bytes(em_run, tmp_path, fc):
    spec, _ = programs.fc_program(batches=2)
    first = spec.arenas[0][1]  # 64: the FC's own arena
    spec.arenas = [spec.arenas[0], ("dtcm", POOL)]
    (tmp_path / "big.embr").write_bytes(programs.build(spec))
    result = run(em_run, tmp_path, "big.embr", "--input", "x.bin")
    assert result.returncode == EM_ERR_ARENA_TOO_SMALL
    assert errors(result) == [f"em_run: EM_ERR_ARENA_TOO_SMALL: arena 1 needs {POOL} bytes, {POOL - first} are left "
                              f"of em_run's {POOL}-byte arena pool: rebuild em_run with "
                              f"-DEM_RUN_ARENA_CAPACITY={first + POOL} or more (what all the program's arenas need)"]


def test_the_capacity_the_message_names_is_enough(tmp_path, fc):
    """A runner built with a pool of 64 bytes refuses a 64 + 16 byte plan, then runs it when rebuilt
    with the capacity its message asks for."""
    spec, _ = programs.fc_program(batches=2)
    spec.arenas = [spec.arenas[0], ("dtcm", 16)]
    (tmp_path / "two.embr").write_bytes(programs.build(spec))
    small = build_em_run(main=["-DEM_RUN_ARENA_CAPACITY=64"])
    result = run(small, tmp_path, "two.embr", "--input", "x.bin")
    assert result.returncode == EM_ERR_ARENA_TOO_SMALL
    asked = re.search(r"arena 1 needs 16 bytes, 0 are left of em_run's 64-byte arena pool: "
                      r"rebuild em_run with -DEM_RUN_ARENA_CAPACITY=(\d+) or more", result.stdout)
    assert asked and int(asked.group(1)) == 80, result.stdout
    enough = build_em_run(main=[f"-DEM_RUN_ARENA_CAPACITY={asked.group(1)}"])
    assert run(enough, tmp_path, "two.embr", "--input", "x.bin").returncode == 0


def test_more_arenas_than_the_runtime_takes_is_explained(em_run, tmp_path, fc):
    spec, _ = programs.fc_program(batches=2)
    spec.arenas = spec.arenas * 5
    (tmp_path / "many.embr").write_bytes(programs.build(spec))
    result = run(em_run, tmp_path, "many.embr", "--input", "x.bin")
    assert result.returncode == EM_ERR_ARENA_TOO_SMALL
    assert errors(result) == ["em_run: EM_ERR_ARENA_TOO_SMALL: the program plans more arenas than the runtime's "
                              "EM_MAX_ARENAS (4): compile it for at most 4 memory regions"]
