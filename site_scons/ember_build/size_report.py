"""Size report of a firmware image: flash and RAM per component, from the ELF alone (pyelftools).

Every allocated symbol is attributed to the source file that defines it, read from the DWARF
debug information (functions by their code range, variables by their address); the file names
the component (COMPONENT_RULES), except the on-device verifier's functions, which are one
component (VERIFIER_FUNCTIONS). Symbols without project debug information come from newlib or
libgcc. Bytes of a section that no symbol covers (alignment, the vector table's padding) are
`other`. Planned arenas and the stack are RAM components of their own.
"""
from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from elftools.dwarf.compileunit import CompileUnit
from elftools.dwarf.die import DIE
from elftools.elf.constants import SH_FLAGS
from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

# (pattern on the defining source file, component name; \1 substitutes the first group).
COMPONENT_RULES: list[tuple[str, str]] = [
    (r"runtime/core/em_status\.c$", "status names"),  # error messages' text, not loader / executor / registry
    (r"runtime/core/", "runtime core"),
    (r"gen/em_registry\.c$", "runtime core"),
    (r"runtime/ops/em_op_(\w+)\.c$", r"op \1"),
    # a kernel of several files (runtime/kernels/README.md) is one component
    (r"runtime/kernels/em_conv2d_\w+\.c$", "kernel conv2d_s8"),
    (r"runtime/kernels/em_depthwise_conv2d_s8_\w+\.c$", "kernel depthwise_conv2d_s8"),
    (r"runtime/kernels/em_depthwise_m1_\w+\.c$", "kernel depthwise_conv2d_m1_s8"),
    (r"runtime/kernels/em_(\w+)\.c$", r"kernel \1"),
    (r"gen/em_model_program\.c$", "model constants"),
    (r"gen/em_test_vectors\.c$", "app test data"),
    (r"bsp/", "bsp"),
    (r"(apps|tools)/", "app"),
    (r"newlib|libgcc|libm", "libc/libgcc"),
]
# The on-device verifier (runtime/README.md, "Who verifies what"), by function name wherever it is
# defined: the loader, the checked reader, the checked tensor views and every op's check() and
# the kernels' load-time path checks. Sealed firmware links none of it; verify=1 firmware does.
VERIFIER = "verifier"
VERIFIER_FUNCTIONS = re.compile(
    r"^(em_program_load|em_load_\w+|em_operator_open|em_pinned_source|em_operands_checked"
    r"|em_program_view_\w+|em_tensor_describe|em_tensor_place_constant|em_dtype_bytes"
    r"|em_fb_(fits|table_at|root|field|follow|field_\w+|vector_at|vector_table)"
    r"|\w+_check|\w+_paths_ok)$")
NO_DEBUG_INFO = "libc/libgcc"  # Debian's newlib and libgcc carry no DWARF for most functions
ARENA_SECTION = re.compile(r"^\.em_arena\.(\w+)$")
STACK_SECTION = ".stack"
# Components that are not code: left out of code_flash.
CONSTANT_COMPONENTS = {"model constants", "app test data"}


def component_of(source: str) -> str:
    for pattern, name in COMPONENT_RULES:
        match = re.search(pattern, source)
        if match:
            return match.expand(name)
    return "other"


@dataclass
class SizeReport:
    flash: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    ram: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    arena_ram: dict[str, int] = field(default_factory=dict)
    stack_ram: int = 0

    @property
    def flash_total(self) -> int:
        return sum(self.flash.values())

    def as_json(self) -> dict:
        kernels = {k: v for k, v in self.flash.items() if k.startswith(("kernel ", "op "))}
        return {
            "flash_total": self.flash_total,
            "runtime_core_flash": self.flash.get("runtime core", 0),
            "verifier_flash": self.flash.get(VERIFIER, 0),  # 0 in sealed firmware
            "kernels_flash": sum(kernels.values()),
            "code_flash": sum(v for k, v in self.flash.items() if k not in CONSTANT_COMPONENTS),
            "constants_flash": self.flash.get("model constants", 0),
            "arena_ram": self.arena_ram,
            "stack_ram": self.stack_ram,
            "ram_total": sum(self.ram.values()),
            "components": [
                {"name": name, "flash": self.flash.get(name, 0), "ram": self.ram.get(name, 0)}
                # largest first; ties by name, so the order does not follow the set's (hash-seeded) one
                for name in sorted(set(self.flash) | set(self.ram),
                                   key=lambda n: (-(self.flash.get(n, 0) + self.ram.get(n, 0)), n))
            ],
        }


def _cu_name(cu: CompileUnit) -> str:
    top = cu.get_top_DIE()
    return top.attributes["DW_AT_name"].value.decode(errors="replace") if "DW_AT_name" in top.attributes else ""


# A link-time-optimised image (lto=1) puts all its code in one "<artificial>" unit; each function
# or variable there points, by DW_AT_abstract_origin (or DW_AT_specification), at its declaration
# in the unit of the source file that defines it.
LTO_UNIT = "<artificial>"
_ORIGINS = ("DW_AT_abstract_origin", "DW_AT_specification")


def _origin_name(die: DIE, name: str) -> str:
    """The source file of `die` in a unit named `name`: the unit itself, or in an LTO unit the
    unit of the declaration it points at."""
    for _ in range(4):  # an out-of-line copy of an inlined function points at an abstract one
        origin = next((a for a in _ORIGINS if a in die.attributes), None)
        if name != LTO_UNIT or origin is None:
            return name
        die = die.get_DIE_from_attribute(origin)
        name = _cu_name(die.cu)
    return name


def _defining_files(elf: ELFFile) -> Callable[[int], str | None]:
    """Address → source file of the function or variable defined there (from DWARF)."""
    ranges: list[tuple[int, int, str]] = []
    variables: dict[int, str] = {}
    if not elf.has_dwarf_info():
        return lambda address: None
    dwarf = elf.get_dwarf_info()
    for cu in dwarf.iter_CUs():
        name = _cu_name(cu)
        for die in cu.iter_DIEs():
            attrs = die.attributes
            if die.tag == "DW_TAG_subprogram" and "DW_AT_low_pc" in attrs and "DW_AT_high_pc" in attrs:
                low = attrs["DW_AT_low_pc"].value
                high = attrs["DW_AT_high_pc"]
                end = high.value if high.form == "DW_FORM_addr" else low + high.value
                ranges.append((low, end, _origin_name(die, name)))
            elif die.tag == "DW_TAG_variable" and "DW_AT_location" in attrs:
                location = attrs["DW_AT_location"].value
                # DW_OP_addr (0x03) followed by a 4-byte address: a static or global variable
                if isinstance(location, list) and len(location) == 5 and location[0] == 0x03:
                    variables[int.from_bytes(bytes(location[1:]), "little")] = _origin_name(die, name)

    def lookup(address: int) -> str | None:
        if address in variables:
            return variables[address]
        code = address & ~1  # Thumb functions have bit 0 set in the symbol table
        return next((name for low, high, name in ranges if low <= code < high), None)

    return lookup


def measure(elf_path: Path) -> SizeReport:
    report = SizeReport()
    with open(elf_path, "rb") as f:
        elf = ELFFile(f)
        defining_file = _defining_files(elf)
        sections = [s for s in elf.iter_sections() if s["sh_flags"] & SH_FLAGS.SHF_ALLOC]
        symtab = elf.get_section_by_name(".symtab")
        symbols = [s for s in symtab.iter_symbols()] if isinstance(symtab, SymbolTableSection) else []
        covered: dict[str, int] = defaultdict(int)
        for section in sections:
            name = section.name
            arena = ARENA_SECTION.match(name)
            if arena:
                report.arena_ram[arena.group(1)] = section["sh_size"]
                report.ram[f"arena {arena.group(1)}"] += section["sh_size"]
            elif name == STACK_SECTION:
                report.stack_ram = section["sh_size"]
                report.ram["stack"] += section["sh_size"]
        index_of = {i: s for i, s in enumerate(elf.iter_sections())}
        # Each byte counts once, for the first symbol that covers it: libgcc has aliases
        # (__aeabi_fadd = __addsf3) and entry points inside another function (__aeabi_frsub
        # falls into __aeabi_fsub). Bit 0 of a function's value is its Thumb bit.
        extents = sorted((s["st_shndx"], s["st_value"] & ~1, -s["st_size"], s["st_value"], s.name) for s in symbols
                         if s["st_size"] and isinstance(s["st_shndx"], int)
                         and s["st_info"]["type"] in ("STT_FUNC", "STT_OBJECT"))
        covered_until: dict[int, int] = {}
        for shndx, start, negative_size, value, symbol in extents:
            end = start - negative_size
            size = end - max(start, covered_until.get(shndx, start))
            if size <= 0:
                continue
            covered_until[shndx] = end
            section = index_of[shndx]
            if not section["sh_flags"] & SH_FLAGS.SHF_ALLOC or ARENA_SECTION.match(section.name) or section.name == STACK_SECTION:
                continue
            source = defining_file(value)
            component = (VERIFIER if source and VERIFIER_FUNCTIONS.match(symbol)
                         else component_of(source) if source else NO_DEBUG_INFO)
            writable = section["sh_flags"] & SH_FLAGS.SHF_WRITE
            if not writable or section["sh_type"] != "SHT_NOBITS":
                report.flash[component] += size  # code, constants, and .data's initial values
                covered[section.name] += size
            if writable:
                report.ram[component] += size
        for section in sections:
            stored = section["sh_type"] != "SHT_NOBITS"
            if stored and not ARENA_SECTION.match(section.name):
                gap = section["sh_size"] - covered[section.name]
                if gap > 0:
                    report.flash["other"] += gap
    report.flash = dict(report.flash)
    report.ram = dict(report.ram)
    return report


def markdown(report: SizeReport, title: str, chart: str | None) -> str:
    data = report.as_json()
    rows = "\n".join(f"| {c['name']} | {c['flash']:,} | {c['ram']:,} |" for c in data["components"])
    lines = [
        f"# Size of {title}",
        "",
        f"Flash {data['flash_total']:,} B (code {data['code_flash']:,} B, runtime core "
        f"{data['runtime_core_flash']:,} B, verifier {data['verifier_flash']:,} B, model constants "
        f"{data['constants_flash']:,} B); "
        f"RAM {data['ram_total']:,} B (arenas {data['arena_ram']}, stack {data['stack_ram']:,} B).",
        "",
        "| component | flash (B) | RAM (B) |",
        "|---|---:|---:|",
        rows,
    ]
    if chart:
        lines += ["", f"![flash and RAM per component]({chart})"]
    return "\n".join(lines) + "\n"


def chart(report: SizeReport, title: str, out: Path) -> None:
    """Flash and RAM per component as horizontal bars, largest first. The model's constants
    would dwarf everything else on a linear scale, so their bar is left out and its size is
    stated under the flash axis instead."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    components = [c for c in report.as_json()["components"] if c["name"] != "model constants"]
    names = [c["name"] for c in components][::-1]
    flash = [c["flash"] / 1024 for c in components][::-1]
    ram = [c["ram"] / 1024 for c in components][::-1]
    fig, axes = plt.subplots(1, 2, figsize=(11, 0.35 * len(names) + 1.5), sharey=True)
    constants = report.flash.get("model constants", 0) / 1024
    flash_label = f"flash (KiB); model constants, not drawn: {constants:.1f} KiB"
    for axis, values, label in ((axes[0], flash, flash_label), (axes[1], ram, "RAM (KiB)")):
        bars = axis.barh(names, values, color="#c0504d" if label.startswith("flash") else "#4f81bd")
        axis.set_xlabel(label)
        axis.bar_label(bars, labels=[f"{v:.1f}" if v else "" for v in values], padding=2, fontsize=8)
        axis.margins(x=0.25)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def write_size_report(elf: Path, out_dir: Path, title: str, extra: dict | None = None) -> dict:
    """Writes size.json (with `extra` fields, e.g. the static stack bound), size.md and size.png
    into out_dir; returns the JSON data."""
    report = measure(elf)
    out_dir.mkdir(parents=True, exist_ok=True)
    chart(report, title, out_dir / "size.png")
    data = report.as_json() | (extra or {})
    text = markdown(report, title, "size.png")
    if "kernel_variants" in data:
        text += (f"\nKernel variants, chosen for {data['optimize']}: {', '.join(data['kernel_variants']) or 'none'} "
                 "(the compiler's choice, recorded in the program: `python -m compiler inspect`).\n")
    if data.get("layers"):
        text += ("\nModel constants by layer, as the program stores them (int4 weights two to a byte):\n\n"
                 "| layer | op | precision | bytes |\n|---|---|---|---:|\n"
                 + "".join(f"| {r['layer']} | {r['op']} | {r['precision']} | {r['bytes']:,} |\n" for r in data["layers"]))
    if data.get("stack_bound_bytes") is not None:
        text += f"\nStatic stack bound: {data['stack_bound_bytes']:,} B (deepest path: {' → '.join(data['stack_bound_path'])}).\n"
    (out_dir / "size.md").write_text(text)
    (out_dir / "size.json").write_text(json.dumps(data, indent=2) + "\n")
    return data
