"""em_run (host build) on valid programs and on malformed ones: each problem is rejected with its
own status, printed as `em_run: <STATUS>`, with that status as exit code; never a crash.
(em_run's own errors, its inputs' and arenas': test_em_run_errors.py.)"""
from __future__ import annotations

import re
import struct
import subprocess

import numpy as np
import pytest

import programs
from build_host import build_em_run
from compiler import reference
from compiler.schema import program_generated as fb

STATUS = {
    "EM_OK": 0, "EM_ERR_TRUNCATED": 1, "EM_ERR_BAD_MAGIC": 2, "EM_ERR_BAD_VERSION": 3,
    "EM_ERR_WRONG_TIER": 4, "EM_ERR_MALFORMED": 5, "EM_ERR_BAD_TENSOR_INDEX": 6,
    "EM_ERR_BAD_OFFSET": 7, "EM_ERR_BAD_SIZE": 8, "EM_ERR_UNKNOWN_OP": 9,
    "EM_ERR_BAD_OPERATOR": 10, "EM_ERR_ARENA_TOO_SMALL": 11, "EM_ERR_BAD_ARGUMENT": 12,
    "EM_ERR_UNALIGNED": 13, "EM_ERR_CONSTANTS_NOT_COPIED": 14, "EM_ERR_VARIANT_NOT_LINKED": 15,
    "EM_ERR_PROGRAM_CORRUPT": 16,
}


@pytest.fixture(scope="module")
def em_run():
    return build_em_run()


def run(em_run, tmp_path, data: bytes, input_bytes: bytes | None = None):
    """Without input bytes, the program runs on zeros (--zero-inputs): these tests are the loader's."""
    prog = tmp_path / "p.embr"
    prog.write_bytes(data)
    args = [str(em_run), str(prog), "--output", str(tmp_path / "out.bin")]
    if input_bytes is not None:
        (tmp_path / "in.bin").write_bytes(input_bytes)
        args += ["--input", str(tmp_path / "in.bin")]
    else:
        args += ["--zero-inputs"]
    result = subprocess.run(args, capture_output=True, text=True, timeout=20)
    assert result.returncode >= 0, f"em_run crashed (signal {-result.returncode})"
    return result


def expect_status(em_run, tmp_path, data: bytes, name: str):
    result = run(em_run, tmp_path, data)
    assert re.search(rf"^em_run: {name}(\n|: )", result.stdout, re.M), result.stdout + result.stderr
    assert result.returncode == STATUS[name]


def test_valid_fc_program_matches_reference(em_run, tmp_path):
    spec, case = programs.fc_program(batches=3)
    x = np.random.default_rng(5).integers(-128, 128, size=(3, 17), dtype=np.int8)
    result = run(em_run, tmp_path, programs.build(spec), x.tobytes())
    assert result.returncode == 0, result.stdout
    assert "ns: " in result.stdout and "arena 0: bytes " in result.stdout
    want = reference.fully_connected_s8(x, case.weights, case.bias, case.multiplier, case.shift,
                                        case.output_offset, case.activation_min, case.activation_max)
    got = np.frombuffer((tmp_path / "out.bin").read_bytes(), dtype=np.int8).reshape(want.shape)
    np.testing.assert_array_equal(got, want)


def test_valid_pipeline_program_matches_reference(em_run, tmp_path):
    spec, case = programs.pipeline_program(batches=2, inv_scale=20.0, in_zp=4)
    x = (np.random.default_rng(6).standard_normal((2, 17)) * 3).astype(np.float32)
    x[0, :4] = [np.nan, np.inf, -np.inf, 0.525]
    result = run(em_run, tmp_path, programs.build(spec), x.tobytes())
    assert result.returncode == 0, result.stdout
    q = reference.quantize_f32_s8(x, np.float32(20.0), 4)
    y = reference.fully_connected_s8(q, case.weights, case.bias, case.multiplier, case.shift,
                                     case.output_offset, case.activation_min, case.activation_max)
    want = reference.dequantize_s8_f32(y, np.float32(0.1), -3)
    got = np.frombuffer((tmp_path / "out.bin").read_bytes(), dtype=np.float32).reshape(want.shape)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def valid_bytes() -> bytes:
    return programs.build(programs.fc_program()[0])


@pytest.mark.parametrize("keep", [0, 3, 7, 8, 11])
def test_shorter_than_a_header(em_run, tmp_path, keep):
    expect_status(em_run, tmp_path, valid_bytes()[:keep], "EM_ERR_TRUNCATED")


@pytest.mark.parametrize("keep", [12, 100, 400, -1, -16, -40, -100])
def test_a_truncated_file_fails_its_checksum(em_run, tmp_path, keep):
    data = valid_bytes()
    expect_status(em_run, tmp_path, data[:keep], "EM_ERR_PROGRAM_CORRUPT")


@pytest.mark.parametrize("keep", [12, 100, 400, -16, -40, -100])
def test_truncated_flatbuffers_part(em_run, tmp_path, keep):
    """A cut FlatBuffers part with a matching trailer: the structural checks find the cut."""
    body = valid_bytes()[:-programs.CHECKSUM_BYTES]
    expect_status(em_run, tmp_path, programs.with_checksum(body[:keep - 4 if keep > 0 else keep]), "EM_ERR_TRUNCATED")


def test_every_flipped_byte_is_a_named_status(em_run, tmp_path):
    """A byte changed anywhere (the root offset, a weight, a zero point, the trailer itself) is
    refused by the checksum before any field is read, never a run with another answer; in the
    file identifier (bytes 4..7), which is checked first, it is not a program at all."""
    base = valid_bytes()
    for position in range(len(base)):
        data = bytearray(base)
        data[position] ^= 0x10
        expect_status(em_run, tmp_path, bytes(data), "EM_ERR_BAD_MAGIC" if 4 <= position < 8 else "EM_ERR_PROGRAM_CORRUPT")


def test_bad_magic(em_run, tmp_path):
    data = bytearray(valid_bytes())
    data[4:8] = b"TFL3"
    expect_status(em_run, tmp_path, programs.resealed(data), "EM_ERR_BAD_MAGIC")


def test_malformed_vtable_offset(em_run, tmp_path):
    data = bytearray(valid_bytes())
    root = struct.unpack_from("<I", data, 0)[0]
    struct.pack_into("<i", data, root, 1)  # vtable at an odd address
    expect_status(em_run, tmp_path, programs.resealed(data), "EM_ERR_MALFORMED")


def test_malformed_unaligned_root(em_run, tmp_path):
    data = bytearray(valid_bytes())
    struct.pack_into("<I", data, 0, struct.unpack_from("<I", data, 0)[0] + 2)
    expect_status(em_run, tmp_path, programs.resealed(data), "EM_ERR_MALFORMED")


def mutated(mutate) -> bytes:
    spec, _ = programs.fc_program()
    spec = spec.copy()
    mutate(spec)
    return programs.build(spec)


def set_attr(obj, **kw):
    for k, v in kw.items():
        setattr(obj, k, v)


MUTATIONS = {
    "version_2": (lambda s: set_attr(s, schema_version=2), "EM_ERR_MALFORMED"),  # 2 says state: there is none
    "version_3": (lambda s: set_attr(s, schema_version=3), "EM_ERR_BAD_VERSION"),
    "version_0": (lambda s: set_attr(s, schema_version=0), "EM_ERR_BAD_VERSION"),
    "tier_mve": (lambda s: set_attr(s, tier=fb.Tier.MVE), "EM_ERR_WRONG_TIER"),
    "tier_dsp": (lambda s: set_attr(s, tier=fb.Tier.DSP), "EM_ERR_WRONG_TIER"),
    "op_input_index": (lambda s: s.operators[0].inputs.__setitem__(1, 7), "EM_ERR_BAD_TENSOR_INDEX"),
    "op_output_negative": (lambda s: s.operators[0].outputs.__setitem__(0, -1),
                           "EM_ERR_BAD_TENSOR_INDEX"),
    "program_input_index": (lambda s: s.inputs.__setitem__(0, 4), "EM_ERR_BAD_TENSOR_INDEX"),
    "program_output_constant": (lambda s: s.outputs.__setitem__(0, 1), "EM_ERR_BAD_TENSOR_INDEX"),
    "arena_offset": (lambda s: set_attr(s.tensors[3], offset=60), "EM_ERR_BAD_OFFSET"),
    "arena_offset_huge": (lambda s: set_attr(s.tensors[3], offset=0xFFFFFFF0), "EM_ERR_BAD_OFFSET"),
    "arena_index": (lambda s: set_attr(s.tensors[0], arena=1), "EM_ERR_BAD_OFFSET"),
    "constant_offset": (lambda s: set_attr(s.tensors[1], offset=1), "EM_ERR_BAD_OFFSET"),
    "buffer_index": (lambda s: set_attr(s.tensors[1], buffer=9), "EM_ERR_BAD_OFFSET"),
    "buffer_negative": (lambda s: set_attr(s.tensors[1], buffer=-2), "EM_ERR_BAD_OFFSET"),
    "size": (lambda s: set_attr(s.tensors[0], size=33), "EM_ERR_BAD_SIZE"),
    "negative_dim": (lambda s: set_attr(s.tensors[0], shape=[-2, 17], size=34), "EM_ERR_BAD_SIZE"),
    "overflowing_shape": (lambda s: set_attr(s.tensors[0], shape=[65536, 65536, 2], size=0),
                          "EM_ERR_BAD_SIZE"),
    "unknown_op": (lambda s: set_attr(s.operators[0], opcode=999), "EM_ERR_UNKNOWN_OP"),
    "fc_arity": (lambda s: set_attr(s.operators[0], inputs=[0, 1]), "EM_ERR_BAD_OPERATOR"),
    "fc_options_type": (lambda s: set_attr(s.operators[0], options_type=fb.OpOptions.QuantizeOptions),
                        "EM_ERR_BAD_OPERATOR"),
    "fc_no_options": (lambda s: set_attr(s.operators[0], options_type=fb.OpOptions.NONE),
                      "EM_ERR_BAD_OPERATOR"),
    "fc_multiplier_length": (lambda s: s.operators[0].options["output_multiplier"].pop(),
                             "EM_ERR_BAD_OPERATOR"),
    "fc_shift_range": (lambda s: s.operators[0].options["output_shift"].__setitem__(0, 31),
                       "EM_ERR_BAD_OPERATOR"),
    "fc_multiplier_negative": (lambda s: s.operators[0].options["output_multiplier"].__setitem__(0, -1),
                               "EM_ERR_BAD_OPERATOR"),
    "fc_clamp_order": (lambda s: s.operators[0].options.update(activation_min=10, activation_max=5),
                       "EM_ERR_BAD_OPERATOR"),
    "fc_output_offset": (lambda s: s.operators[0].options.update(output_offset=300),
                         "EM_ERR_BAD_OPERATOR"),
    "fc_weights_shape": (lambda s: set_attr(s.tensors[1], shape=[17, 5]), "EM_ERR_BAD_OPERATOR"),
    "fc_output_constant": (lambda s: s.operators[0].outputs.__setitem__(0, 1), "EM_ERR_BAD_OPERATOR"),
    "too_many_arenas": (lambda s: set_attr(s, arenas=s.arenas * 5), "EM_ERR_ARENA_TOO_SMALL"),
    "unaligned_int32_constant": (lambda s: set_attr(s.tensors[2], offset=2) or
                                 s.buffers.__setitem__(1, s.buffers[1] + b"\0\0"),
                                 "EM_ERR_UNALIGNED"),
    "unaligned_arena_float": (lambda s: set_attr(s.tensors[2], buffer=-1, offset=2),
                              "EM_ERR_UNALIGNED"),
    # weights pinned to RAM (Tensor.initial_buffer): a missing source buffer, one too short for
    # the tensor, a tensor that is still a program constant
    "pinned_buffer_index": (lambda s: pin_weights(s, 9), "EM_ERR_MALFORMED"),
    "pinned_buffer_short": (lambda s: pin_weights(s, 1), "EM_ERR_BAD_SIZE"),
    "pinned_still_constant": (lambda s: set_attr(s.tensors[1], initial_buffer=0), "EM_ERR_MALFORMED"),
    # the program's pinned_constants count must agree with its tensors
    "pinned_count_wrong": (lambda s: pin_weights(s, 0) or set_attr(s, pinned_constants=2), "EM_ERR_MALFORMED"),
    # inputs_kept: one 0/1 per input, or absent
    "inputs_kept_too_many": (lambda s: set_attr(s, inputs_kept=[1, 0]), "EM_ERR_MALFORMED"),
    "inputs_kept_not_bool": (lambda s: set_attr(s, inputs_kept=[2]), "EM_ERR_MALFORMED"),
}


def pin_weights(spec, source: int) -> None:
    """The FC's weights (tensor 1) as a constant pinned to RAM after the arena's end, copied from `source`."""
    name, size = spec.arenas[0]
    set_attr(spec.tensors[1], buffer=-1, offset=size, initial_buffer=source)
    spec.arenas[0] = (name, size + (spec.tensors[1].byte_size() + 15) // 16 * 16)


def run_fc(em_run, tmp_path, spec, case, seed: int, batches: int = 2) -> None:
    """`spec` (an FC program of `case`'s numbers) runs on a random input and matches the reference."""
    x = np.random.default_rng(seed).integers(-128, 128, size=(batches, 17), dtype=np.int8)
    result = run(em_run, tmp_path, programs.build(spec), x.tobytes())
    assert result.returncode == 0, result.stdout
    want = reference.fully_connected_s8(x, case.weights, case.bias, case.multiplier, case.shift,
                                        case.output_offset, case.activation_min, case.activation_max)
    got = np.frombuffer((tmp_path / "out.bin").read_bytes(), dtype=np.int8).reshape(want.shape)
    np.testing.assert_array_equal(got, want)


def test_pinned_weights_are_copied_to_the_arena_and_used(em_run, tmp_path):
    spec, case = programs.fc_program(batches=3)
    pin_weights(spec, 0)
    run_fc(em_run, tmp_path, spec, case, 8, batches=3)


def test_int4_weights_are_unpacked_and_used(em_run, tmp_path):
    """A8W4: weights [5, 17] int4 take 5 rows of 9 bytes; the adapter unpacks them into its scratch."""
    spec, case = programs.fc_int4_program()
    assert spec.tensors[1].byte_size() == 45 and len(spec.buffers[0]) == 45
    run_fc(em_run, tmp_path, spec, case, 9)


@pytest.mark.parametrize("rows", [1, 2, 4])
def test_int4_weights_unpack_in_blocks_of_the_rows_the_scratch_holds(em_run, tmp_path, rows):
    """A scratch of 1, 2 or 4 rows of 17: blocks of that many rows (the last one shorter), each
    unpacked and run as a layer of its own; the same bytes as all five at once."""
    spec, case = programs.fc_int4_program()
    spec.tensors[4].shape = [rows * 17]
    run_fc(em_run, tmp_path, spec, case, 11 + rows)


def test_pinned_int4_weights_are_copied_to_the_arena_and_used(em_run, tmp_path):
    """An int4 constant pinned to RAM is an arena tensor the loader accepts (an activation is not)."""
    spec, case = programs.fc_int4_program()
    pin_weights(spec, 0)
    run_fc(em_run, tmp_path, spec, case, 10)


INT4_MUTATIONS = {
    # [5, 17] int4: 5 rows of ceil(17 / 2) = 9 bytes; not 43 (the 85 elements packed as one row),
    # not 85 (one byte each), not 46
    "int4_size_one_row": (lambda s: set_attr(s.tensors[1], size=43), "EM_ERR_BAD_SIZE"),
    "int4_size_as_int8": (lambda s: set_attr(s.tensors[1], size=85), "EM_ERR_BAD_SIZE"),
    "int4_size_plus_one": (lambda s: set_attr(s.tensors[1], size=46), "EM_ERR_BAD_SIZE"),
    "int4_overflowing_shape": (lambda s: set_attr(s.tensors[1], shape=[65536, 65536], size=2**31),
                               "EM_ERR_BAD_SIZE"),
    # int4 is weights only: an activation (the FC's input, its size right for int4) is refused
    "int4_activation": (lambda s: set_attr(s.tensors[0], dtype=programs.INT4, size=18), "EM_ERR_MALFORMED"),
    # the scratch must hold at least one row of the weights unpacked (17 bytes)
    "int4_scratch_short": (lambda s: set_attr(s.tensors[4], shape=[16]), "EM_ERR_BAD_OPERATOR"),
    "int4_no_scratch": (lambda s: s.operators[0].outputs.pop(), "EM_ERR_BAD_OPERATOR"),
    "int4_scratch_not_int8": (lambda s: set_attr(s.tensors[4], dtype=programs.INT32, shape=[24]),
                              "EM_ERR_BAD_OPERATOR"),
    "fc_three_outputs": (lambda s: s.operators[0].outputs.append(4), "EM_ERR_BAD_OPERATOR"),
}


@pytest.mark.parametrize("name", sorted(INT4_MUTATIONS))
def test_int4_mutation_rejected_with_its_status(em_run, tmp_path, name):
    mutate, status = INT4_MUTATIONS[name]
    spec, _ = programs.fc_int4_program()
    mutate(spec)
    expect_status(em_run, tmp_path, programs.build(spec), status)


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_mutation_rejected_with_its_status(em_run, tmp_path, name):
    mutate, status = MUTATIONS[name]
    expect_status(em_run, tmp_path, mutated(mutate), status)


def test_unknown_op_names_operator_and_opcode(em_run, tmp_path):
    result = run(em_run, tmp_path, mutated(lambda s: set_attr(s.operators[0], opcode=999)))
    assert "em_run: operator 0 (opcode 999)" in result.stdout


def test_random_corruptions_never_crash(em_run, tmp_path):
    rng = np.random.default_rng(11)
    base = valid_bytes()
    seen = set()
    for _ in range(150):
        data = bytearray(base)
        for _ in range(int(rng.integers(1, 6))):
            data[int(rng.integers(8, len(data) - programs.CHECKSUM_BYTES))] = int(rng.integers(0, 256))
        result = run(em_run, tmp_path, programs.resealed(data))  # past the checksum: the structure's checks
        assert result.returncode in STATUS.values(), result.stdout + result.stderr
        seen.add(result.returncode)
    assert len(seen) > 2
