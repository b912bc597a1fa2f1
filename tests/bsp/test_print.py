"""The BSP's decimal printing (bsp/common/em_print.c), which every firmware uses for its result
lines: exact for all of uint64 and int32, and free of libgcc's 64-bit division."""
from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SOURCE = REPO / "bsp" / "common" / "em_print.c"
INCLUDES = ["-I", str(REPO / "bsp" / "include")]

EDGES = [0, 1, 9, 10, 11, 99, 100, 65535, 65536, 655359, 655360, 2**32 - 1, 2**32, 2**32 + 9,
         10**10 - 1, 10**10, 10**19 - 1, 10**19, 2**63, 2**64 - 10, 2**64 - 1]


def test_decimal_printing_is_exact_for_all_of_uint64_and_int32(tmp_path):
    exe = tmp_path / "print_driver"
    subprocess.run([os.environ.get("CC", "cc"), "-std=c11", "-Wall", "-Werror", *INCLUDES, str(SOURCE),
                    str(REPO / "tests" / "bsp" / "print_driver.c"), "-o", str(exe)], check=True)
    rng = random.Random(7)
    unsigned = EDGES + [rng.getrandbits(rng.randint(1, 64)) for _ in range(400)]
    signed = [0, 1, -1, 2**31 - 1, -2**31, -10, 10] + [rng.randint(-2**31, 2**31 - 1) for _ in range(100)]
    args = [str(v) for v in unsigned] + [f"i{v}" for v in signed]
    out = subprocess.run([str(exe), *args], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == [str(v) for v in unsigned + signed]


@pytest.mark.qemu
def test_printing_does_not_link_64_bit_division_on_cortex_m(tmp_path):
    obj = tmp_path / "em_print.o"
    subprocess.run(["arm-none-eabi-gcc", "-mcpu=cortex-m3", "-mthumb", "-Os", "-c", *INCLUDES, str(SOURCE),
                    "-o", str(obj)], check=True)
    undefined = subprocess.run(["arm-none-eabi-nm", "-u", str(obj)], capture_output=True, text=True,
                               check=True).stdout
    assert "__aeabi_uldivmod" not in undefined and "__udivmoddi4" not in undefined, undefined
