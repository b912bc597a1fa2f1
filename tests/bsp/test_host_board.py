"""The host board: same firmware sources, native executable."""

from __future__ import annotations

from ember_build.qemu import run_firmware


def test_exit_status(host_board, build):
    result = run_firmware(host_board, build(host_board, "exit_status.c"), timeout_s=10)
    assert result.exit_code == 3


def test_host_files_and_arguments(host_board, build, tmp_path):
    payload = b"ember host file test" * 10
    (tmp_path / "in.bin").write_bytes(payload)
    result = run_firmware(host_board, build(host_board, "io.c"), "in.bin out.bin", timeout_s=10, cwd=tmp_path)
    assert result.exit_code == 0, result
    assert result.console_text.splitlines() == [
        "args=2 in.bin|out.bin|", f"read=0 len={len(payload)}", "small=-2", "missing=-1", "write=0"]
    assert (tmp_path / "out.bin").read_bytes() == payload[::-1]


def test_hang_times_out(host_board, build):
    result = run_firmware(host_board, build(host_board, "hang.c"), timeout_s=1)
    assert result.timed_out
