"""SCons tool `ember`: a construction environment for one board, from its board.yaml.

Adds: compiler and flags (ember_build.toolchain, shared with the tests), include paths of the
runtime and BSP, `env.EmberObjects(sources, obj_dir)` to compile into a variant folder,
`env.EmberSchemaHeader()` for the runtime's em_schema.h (generated from the program schema into
$BUILD/schema/), `Bin` / `Hex` builders for flashable images, and a link check that no heap
allocator got linked (env["CHECK_NO_HEAP"], a post-action that removes an image it refuses).
"""
from __future__ import annotations

from pathlib import Path

from SCons.Script import Action, Builder

from ember_build import schema_header
from ember_build.elf_check import heap_symbols
from ember_build.toolchain import BSP_INCLUDE_DIR, firmware_cflags, firmware_ldflags, lto_link_flags

REPO = Path(__file__).resolve().parents[2]
# Float kernels must round exactly like the reference: no fused multiply-add contraction.
NUMERICS_CFLAGS = ["-ffp-contract=off", "-fno-fast-math"]


def _check_no_heap(target, source, env) -> int:
    """Post-action of a firmware link: an image that links the heap is refused and removed (SCons
    leaves a target whose post-action failed on disk), so no later step or user takes it."""
    elf = Path(str(target[0]))
    try:
        found = heap_symbols(elf)
    except BaseException:
        elf.unlink(missing_ok=True)
        raise
    if found:
        elf.unlink(missing_ok=True)
        print(f"error: {elf} links the heap ({', '.join(found)}); Ember firmware must not "
              "allocate, so the build removed it. Find the caller with the link map (.map) and "
              "remove it (stdio's printf is the usual one).")
        return 1
    return 0


def _objects(env, sources, obj_dir):
    """Compiles each source into obj_dir, keeping the source's path below the repository."""
    objects = []
    for source in sources:
        path = Path(str(source))
        rel = path.resolve().relative_to(REPO) if path.resolve().is_relative_to(REPO) else Path(path.name)
        objects += env.Object(str(Path(obj_dir) / rel.with_suffix(".o")), str(source))
    return objects


def _write_schema_header(target, source, env) -> int:
    schema_header.write_header(Path(str(target[0])), Path(str(source[0])))
    return 0


def _schema_header(env):
    """em_schema.h (opcodes, option tags, field slots) from compiler/schema/program.fbs into
    $BUILD/schema/, on the include path of everything built with `env` and its clones after this
    call: the runtime, and the app, em_run or bench code that includes ember.h."""
    folder = Path(env.subst("$BUILD")) / "schema"
    header = env.Command(str(folder / schema_header.HEADER_NAME),
                         [str(schema_header.SCHEMA), schema_header.__file__],
                         Action(_write_schema_header, "SCHEMA $TARGET" if not env.get("VERBOSE") else None))
    env.Append(CPPPATH=[str(folder)])
    return header


def generate(env, **kwargs) -> None:
    board = env["BOARD"]
    optimization = env.get("OPTIMIZATION", "-O2")
    env.Replace(CC=board.cc, AS=board.cc, LINK=board.cc)
    cross = board.cc.endswith("-gcc") and board.cc != "gcc"
    lto = bool(env.get("LTO", False))
    if cross:
        prefix = board.cc[: -len("gcc")]
        # LTO objects' symbols reach an archive's index only through GCC's plugin: gcc-ar loads it
        archiver = f"{prefix}gcc-" if lto else prefix
        env.Replace(AR=f"{archiver}ar", RANLIB=f"{archiver}ranlib", OBJCOPY=f"{prefix}objcopy")
    cflags = firmware_cflags(board, optimization, lto) + NUMERICS_CFLAGS + ["-Werror"]
    env.Append(
        CCFLAGS=cflags,
        # the target flags select newlib's multilib (CPU, Thumb, hard-float ABI) at link time
        LINKFLAGS=list(board.cflags) + firmware_ldflags(board) + (lto_link_flags(cflags) if lto else []),
        LIBS=["m"],  # nearbyintf for quantize; newlib and glibc both provide libm
        CPPPATH=[str(BSP_INCLUDE_DIR), str(board.directory), str(REPO / "runtime/include"),
                 str(REPO / "runtime/kernels/include")],
    )
    env.Append(BUILDERS={
        "Bin": Builder(action="$OBJCOPY -O binary $SOURCE $TARGET", suffix=".bin", src_suffix=".elf"),
        "Hex": Builder(action="$OBJCOPY -O ihex $SOURCE $TARGET", suffix=".hex", src_suffix=".elf"),
    })
    env["EMBER_CROSS"] = cross
    if cross:  # call-graph dumps (.ci beside each object) for the static stack bound
        env.Append(CCFLAGS=["-fcallgraph-info=su"])
        if lto:  # code is generated at link: one dump beside the image, <image>-ltrans0.ltrans.ci
            env.Append(LINKFLAGS=["-fcallgraph-info=su", "-dumpdir", "${TARGET.base}-"])
    if not env.get("VERBOSE"):
        env.Replace(CCCOMSTR="CC $TARGET", LINKCOMSTR="LINK $TARGET", ARCOMSTR="AR $TARGET",
                    RANLIBCOMSTR="RANLIB $TARGET")
    env.AddMethod(_objects, "EmberObjects")
    env.AddMethod(_schema_header, "EmberSchemaHeader")
    env["CHECK_NO_HEAP"] = Action(_check_no_heap, "checking $TARGET links no heap")


def exists(env) -> bool:
    return True
