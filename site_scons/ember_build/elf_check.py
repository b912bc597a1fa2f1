"""Facts read from a linked ELF with pyelftools: bytes stored in flash, heap functions linked."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

from elftools.elf.constants import SH_FLAGS
from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

HEAP_SYMBOLS = {"malloc", "free", "calloc", "realloc", "_malloc_r", "_free_r", "_calloc_r", "_realloc_r"}


def flash_bytes(elf: Path) -> int:
    """Bytes the image stores: every allocated section with contents (code, constants, the
    program, .data's initial values). Arenas, .bss and the stack take none."""
    with open(elf, "rb") as f:
        return sum(s["sh_size"] for s in ELFFile(f).iter_sections()
                   if s["sh_flags"] & SH_FLAGS.SHF_ALLOC and s["sh_type"] != "SHT_NOBITS")


def _functions(elf: Path) -> list[tuple[str, int]]:
    """(name, address with the Thumb bit cleared) of every function symbol defined in `elf`."""
    with open(elf, "rb") as f:
        table = ELFFile(f).get_section_by_name(".symtab")
        if not isinstance(table, SymbolTableSection):
            return []
        return [(s.name, s["st_value"] & ~1) for s in table.iter_symbols()
                if s["st_info"]["type"] == "STT_FUNC" and s["st_shndx"] != "SHN_UNDEF"]


def function_names(elf: Path) -> set[str]:
    """Names of the functions defined in `elf`."""
    return {name for name, _ in _functions(elf)}


def function_addresses(elf: Path) -> dict[str, int]:
    """Name → address of the functions whose name is defined once in `elf` (two static functions
    of one name in two units would be ambiguous). Identical code folding gives several names one
    address."""
    functions = _functions(elf)
    count = Counter(name for name, _ in functions)
    return {name: address for name, address in functions if count[name] == 1}


def heap_symbols(elf: Path) -> list[str]:
    """Names of heap allocator functions defined in `elf`."""
    with open(elf, "rb") as f:
        table = ELFFile(f).get_section_by_name(".symtab")
        if not isinstance(table, SymbolTableSection):
            return []
        return sorted({s.name for s in table.iter_symbols()
                       if s.name in HEAP_SYMBOLS and s["st_shndx"] != "SHN_UNDEF"})
