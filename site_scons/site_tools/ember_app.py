"""SCons tool `ember_app`: `env.EmberApp(app, run, train, model)` builds one app for the env's board
(`model`: one of app.yaml's variants, for apps with several; built into build/<board>/<app>-<model>/;
a variant with `programs:` links several programs, ember_build.app_build.compile_programs).

Steps, each a node SCons can skip when up to date:
1. (train=1) retrain the model: apps/<app>/train.py writes the checkpoint.
2. compile the model (ember_build.app_build.compile_app): program.embr, its C array, the
   generated registry, test vectors, the arena header and the reference outputs.
3. verify the program on the host with the tier's verifier (tools/em_verify), then compile and
   link the firmware sealed to it (BSP + app firmware + generated C + the runtime without checks;
   verify=1: the runtime that verifies the program at start-up);
   a flashable .hex beside the ELF (and a .bin for boards with one flash region); the link fails if a heap allocator got linked; size.json,
   size.md and size.png say what takes the flash and the RAM (ember_build.size_report).
4. (run=1) run it (QEMU or natively), compare with the reference, write report.json; the
   build fails unless every output matches byte for byte.
(profile=1 run=1) the serving firmware with per-operator counts, run in QEMU over the serial
   link by tools/op_profile.py: profile.json, profile.md and profile.png.
(numerics=1) the serving firmware, then tools/debug_numerics.py: per layer, float vs PT2E vs
   reference vs device: numerics.md, numerics.json.
(serve=1) instead of 3-4: the serving firmware (serve/firmware.elf): the app's firmware files but
   its main.c, with apps/common/firmware/link_main.c answering the serial link (em_link.h).
(stream=1) an app with a stream harness (apps/<app>/stream.py, `play`): its long test stream
   through em_run on the board, checked against the reference and scored: stream.json, stream.md.
5. (figures=1, implies run=1) the app's README table: accuracy of the float model and of the
   int8 reference, device agreement, parameters, MACs, bytes, instructions per inference
   (ember_build.figures): figures.json and figures.md beside report.json.

No output outlives the build that made it (ember_build.build_inputs):
- the lowering records what it was made from in gen/inputs.json, its last write; when this file
  reads a record that is missing or other than today's inputs (a build killed after a lowering
  leaves SCons's database describing the outputs before), the app's folder is removed whole and
  built again, whatever the database says;
- a lowering first removes its record and everything that described the program before it
  (PROGRAM_DESCRIBED: images, size and run reports, figures, the serving firmware), so a failed
  one leaves none of them;
- a link first removes the images and reports of the image before (IMAGE_DESCRIBED), and an
  image refused by a post-action (the heap check, the size report) is removed.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from SCons.Script import Action, AlwaysBuild, Exit, GetOption, Glob

from ember_build import build_inputs
from ember_build.host_verify import verify_action
from ember_build.lowering import LOWERING_LOCK, lowering_c_digest
from ember_build.qemu import run_firmware
from ember_build.report import check_run
from ember_build.toolchain import goal_of

REPO = Path(__file__).resolve().parents[2]
GENERATED = ["program.embr", "em_model_program.c", "em_model_program.h", "em_registry.c",
             "em_test_vectors.c", "em_test_vectors.h", "em_model_arena.h", "expected.npz",
             "compile.json", "plan.txt", "plan.json", "em_app_generated.h", "em_nn_variants_selected.h"]
RUN_TIMEOUT_S = 120.0
COMMON_FIRMWARE = REPO / "apps" / "common" / "firmware"  # em_app_model.c and the serial link, shared by every app
# What describes an app folder's image (names in the folder of the ELF; `*`: a glob), removed when
# it is linked again; with the serving firmware's (serve/), what describes its program, removed
# when it is lowered again.
IMAGE_DESCRIBED = ("firmware.hex", "firmware.bin", "firmware-ltrans*", "size.json", "size.md", "size.png",
                   "report.json", "figures.json", "figures.md")
SERVED_DESCRIBED = ("firmware.hex", "../profile.json", "../profile.md", "../profile.png", "../numerics.md",
                    "../numerics.json", "../demo")
PROGRAM_DESCRIBED = ("firmware.elf", "firmware", "firmware.map", *IMAGE_DESCRIBED, "serve/firmware.elf",
                     "serve/firmware", *(f"serve/{n}" for n in SERVED_DESCRIBED), "gen/verified.txt",
                     "stream.json", "stream.md")
# The ember_build modules the lowering runs (compile_app, the board it reads, goal_of) and this
# record's: sources of the lowering beside the compiler's and the app's.
LOWERING_MODULES = [str(REPO / "site_scons/ember_build" / n)
                    for n in ("app_build.py", "board.py", "lowering.py", "toolchain.py", "build_inputs.py")]


def _python_sources(*folders: str) -> list[str]:
    return sorted(str(p) for folder in folders for p in (REPO / folder).rglob("*.py"))


def _compile_model(target, source, env) -> int:
    from ember_build.app_build import compile_app  # imports torch: only when a model is compiled

    gen = Path(str(target[0])).parent

    def lower() -> None:
        with LOWERING_LOCK:
            compile_app(env["EMBER_APP"], env["BOARD"], gen, env["EMBER_APP_VARIANT"],
                        goal_of(env.get("OPTIMIZATION", "-O2")))

    outputs = [Path(str(t)).name for t in target if Path(str(t)).name != build_inputs.RECORD]
    build_inputs.recorded_step(env, env["EMBER_LOWERING_INPUTS"], gen, outputs,
                               build_inputs.described(gen.parent, PROGRAM_DESCRIBED), lower)
    return 0


def _forget_image(target, source, env) -> int:
    """Pre-action of a link: what described the image before goes (env's EMBER_IMAGE_DESCRIBED)."""
    build_inputs.remove(build_inputs.described(Path(str(target[0])).parent, env["EMBER_IMAGE_DESCRIBED"]), env)
    return 0


def _run_and_check(target, source, env) -> int:
    board = env["BOARD"]
    elf = Path(str(source[0]))
    gen = Path(str(source[1])).parent
    # SCons removed the report before this run; the figures of the run before go too (figures=1
    # measures them again after a run that matches)
    build_inputs.remove(build_inputs.described(Path(str(target[0])).parent, ("figures.json", "figures.md")), env)
    result = run_firmware(board, elf, timeout_s=RUN_TIMEOUT_S)
    for line in result.console_text.splitlines():  # outputs are long hex: show only their start
        print(line if len(line) <= 160 else line[:157] + "...")
    exit_code = -1 if result.timed_out else result.exit_code
    summary = json.loads((gen / "compile.json").read_text())
    report = check_run(result.console_text, exit_code, gen / "expected.npz", summary, elf,
                       Path(str(target[0])))
    print(f"report: {target[0]}: match={report['match']} "
          f"{report['instructions_per_inference']} {report['counter_unit']} per inference, "
          f"arena {report['arena_bytes']}, flash {report['flash_bytes']} B, program {report['program_bytes']} B")
    if result.timed_out:
        print(f"error: firmware did not finish within {RUN_TIMEOUT_S:.0f} s")
    return 0 if report["match"] else 1


def _size_report(target, source, env) -> int:
    """Post-action of the link (matplotlib: imported only when reporting)."""
    elf = Path(str(target[0]))
    try:
        return _write_size_report(elf, env)
    except BaseException:
        elf.unlink(missing_ok=True)  # no image beside a size report that could not be made
        raise


def _write_size_report(elf: Path, env) -> int:
    from ember_build.size_report import write_size_report

    from compiler.layers import constant_rows
    from compiler.reader import read_program

    from ember_build.elf_check import function_addresses, function_names
    from ember_build.stack_bound import static_bound

    build = Path(env["BUILD"])
    # the runtime the image linked: sealed, its own core and adapters beside the shared kernels
    runtime = ([build / "runtime-sealed", build / "runtime" / "runtime" / "kernels"] if env["EMBER_SEALED"]
               else [build / "runtime"])
    dumps = [p for folder in (elf.parent / "obj", build / "bsp", *runtime) for p in folder.rglob("*.ci")]
    dumps += sorted(elf.parent.glob(f"{elf.stem}-ltrans*.ci"))  # lto=1: the link's own dump (site_tools/ember.py)
    bound = static_bound(dumps, function_names(elf), function_addresses(elf))
    selected = elf.parent / "gen" / "em_nn_variants_selected.h"  # what the compiler chose (and why: optimize)
    variants = re.findall(r"^#define EM_NN_VARIANT_(\w+) 1$", selected.read_text(), re.M) if selected.exists() else []
    program = elf.parent / "gen" / "program.embr"
    layers = constant_rows(read_program(program.read_bytes())[0]) if program.exists() else []
    data = write_size_report(elf, elf.parent, f"{env['EMBER_APP']} on {env['BOARD'].name}",
                             {"layers": layers, "stack_bound_bytes": bound.bytes, "stack_bound_path": bound.path,
                              "stack_bound_unknown_reason": bound.reason, "stack_bound_no_call_graph": bound.no_dump,
                              "optimize": goal_of(env.get("OPTIMIZATION", "-O2")), "kernel_variants": variants})
    print(f"size: {elf.parent / 'size.md'}: code {data['code_flash']:,} B, runtime core "
          f"{data['runtime_core_flash']:,} B, constants {data['constants_flash']:,} B, arenas {data['arena_ram']}, "
          f"stack bound {bound.bytes if bound.bytes is not None else 'unknown: ' + bound.reason} B")
    return 0


def _tool(module: str, env, *args: str) -> int:
    """Runs tools/<module>.py for the env's board as its own program from the checkout's root,
    as _train runs an app's training: the build imports no tool (tools import the build)."""
    board = env["BOARD"]
    command = [sys.executable, "-m", f"tools.{module}", "--board", board.name, "--tier", board.tier, *args]
    return subprocess.call(command, cwd=str(REPO))


def _profile(target, source, env) -> int:
    return _tool("op_profile", env, "--elf", str(source[0]), "--gen", str(Path(str(source[1])).parent),
                 "--out", str(Path(str(target[0])).parent))


def _numerics(target, source, env) -> int:
    return _tool("debug_numerics", env, "--app", env["EMBER_APP"], "--model", env.get("model", ""),
                 "--build", str(Path(str(target[0])).parent))


def _demo(target, source, env) -> int:
    common = ["--elf", str(source[0]), "--program", str(source[1])]
    if env["EMBER_DEMO"] == "camera":
        return _tool("camera_demo", env, *common, "--source", env["source"], "--frames", str(env["frames"]),
                     "--out", str(Path(str(target[0])).parent), "--headless")
    return _tool("kws_demo", env, *common, "--say", env["words"], "--out", str(Path(str(target[0])).parent))


def _figures(target, source, env) -> int:
    from dataclasses import replace

    from ember_build.app_build import load_app, lower_app, model_module  # torch: only when asked
    from ember_build.figures import write_figures

    app = load_app(env["EMBER_APP"], env["EMBER_APP_VARIANT"])
    module = model_module(app)
    report = Path(str(source[0]))
    others = {name: lower_app(replace(app, precision=(("default", name),)), module, env["BOARD"])[0]
              for name in app.figures_precisions}  # app.yaml figures_precisions: scored on the host
    figures = write_figures(module, Path(str(source[1])).parent, report, app.figures_samples, others)
    print(report.with_name("figures.md").read_text())
    print(f"figures: {target[0]}: {figures['accuracy']['metric']} float {figures['accuracy']['float']:.3f}, "
          f"int8 reference {figures['accuracy']['int8_reference']:.3f}")
    return 0


def _stream(target, source, env) -> int:
    from ember_build.app_build import checkout_module  # torch: only when asked

    harness = checkout_module(f"apps.{env['EMBER_APP']}.stream")
    try:
        float(env["minutes"])
    except ValueError:
        print(f"error: minutes={env['minutes']!r}: give a number of minutes (minutes=20)")
        return 2
    try:
        harness.play(harness.Device(env["BOARD"], Path(str(source[0]))), Path(str(source[1])),
                     Path(str(target[0])).parent, float(env["minutes"]))
    except (harness.StreamError, ValueError) as error:  # the device failed or differs; too few minutes for the words
        print(f"error: {error}")
        return 1
    print(Path(str(target[1])).read_text())
    return 0


def _train(target, source, env) -> int:
    owner = env["EMBER_APP_CHECKPOINT"]  # the variant whose checkpoint it is (app.yaml checkpoint:)
    variant = ["--model", owner] if owner else []
    return subprocess.call([sys.executable, "-m", f"apps.{env['EMBER_APP']}.train", *variant], cwd=str(REPO))


def _serving_firmware(env, app: str, out: Path, app_sources: list[str], generated_sources: list[str]) -> list:
    """serve/firmware.elf: link_main.c and the link instead of the app's main.c (sealed, as the
    app's firmware is, unless verify=1)."""
    serve = out / "serve"
    env = env.Clone(EMBER_IMAGE_DESCRIBED=SERVED_DESCRIBED)
    env.Append(CPPDEFINES=[("EM_APP_NAME", f'\\"{app}\\"')])
    sources = ([str(COMMON_FIRMWARE / "link_main.c"), str(COMMON_FIRMWARE / "em_link.c")]
               + [s for s in app_sources if Path(s).name != "main.c"] + generated_sources)
    objects = env.EmberObjects(sources, serve / "obj")
    elf = env.Program(str(serve / ("firmware.elf" if env["EMBER_CROSS"] else "firmware")),
                      objects + env["BSP_OBJECTS"] + env["EMBER_APP_RUNTIME"])
    env.Depends(elf, env["EMBER_APP_VERIFIED"])
    env.AddPreAction(elf, Action(_forget_image, None))
    if env["EMBER_CROSS"]:
        env.AddPostAction(elf, env["CHECK_NO_HEAP"])
        return [elf, env.Hex(str(serve / "firmware.hex"), elf)]
    return [elf]


def build_app(env, app: str, run: bool = False, train: bool = False, model: str = ""):
    from ember_build.app_build import AppError, load_app, variant_kernel_objects

    board = env["BOARD"]
    try:
        settings = load_app(app, model)
    except AppError as error:
        print(f"error: {error}")
        Exit(2)
    variant = settings.variant
    several = ("serve", "profile", "numerics", "demo", "figures", "train")
    if settings.programs and (train or any(env.get(f"EMBER_{k.upper()}") for k in several)):
        print(f"error: {app} model={variant} runs several programs ({', '.join(settings.programs)}): "
              f"{'/'.join(several)} take one; build model={settings.programs[0]} (or another) for them")
        Exit(2)
    figures = bool(env.get("EMBER_FIGURES"))
    run = run or figures
    if run and env["EMBER_CROSS"] and board.emulator is None:
        print(f"error: board {board.name} is a real board with no emulator: build it and flash "
              "firmware.hex / firmware.bin (README.md, \"Real boards\"); run=1 cannot run it here")
        Exit(2)
    out = Path(env["BUILD"]) / (f"{app}-{variant}" if variant else app)
    gen = out / "gen"
    owner = settings.checkpoint or variant  # a variant may lower another's checkpoint (app.yaml checkpoint:)
    app_env = env.Clone(EMBER_APP=app, EMBER_APP_VARIANT=variant, EMBER_APP_CHECKPOINT=owner,
                        EMBER_IMAGE_DESCRIBED=IMAGE_DESCRIBED)
    checkpoint = REPO / "apps" / app / (f"checkpoint-{owner}.pt" if owner else "checkpoint.pt")
    if train:
        trained = app_env.Command(str(checkpoint), _python_sources(f"apps/{app}"), Action(_train, "training $TARGET"))
        AlwaysBuild(trained)
    checkpoints = ([str(REPO / "apps" / app / f"checkpoint-{p}.pt") for p in settings.programs] if settings.programs
                   else [str(checkpoint)])
    looking = bool(GetOption("no_exec") or GetOption("clean") or GetOption("help"))  # -n, -c, -h: build nothing
    missing = [(c, m) for c, m in zip(checkpoints, settings.programs or [owner]) if not train and not Path(c).exists()]
    if missing and not looking:  # SCons would say only "Source ... not found": the checkpoint's own message says how to make one
        from apps.common.checkpoint import CheckpointError, read_checkpoint  # torch: only for the message

        try:
            read_checkpoint(missing[0][0], app, missing[0][1])
        except CheckpointError as error:
            print(f"error: {error}")
        Exit(2)
    # What the lowering is made of: the sources of the compiler, of the app's model (its folder and
    # apps/common's helpers) and of the build's lowering, the checkpoints, app.yaml (its variants in
    # it), board.yaml, and the values SCons does not see as files.
    files = (_python_sources("compiler", f"apps/{app}", "apps/common") + checkpoints
             + [str(REPO / "apps" / app / "app.yaml"), str(board.directory / "board.yaml")] + LOWERING_MODULES)
    c_digest = lowering_c_digest()
    lowering = build_inputs.StepInputs(tuple(files), (
        ("lowering_c", c_digest), ("app", app), ("variant", variant), ("board", board.name), ("tier", board.tier),
        ("goal", goal_of(env.get("OPTIMIZATION", "-O2")))), str(REPO))
    names = (GENERATED if not settings.programs else  # one program file per program (compile_programs)
             [n for n in GENERATED if n != "program.embr"] + [f"program-{p}.embr" for p in settings.programs])
    # SCons's database may call gen/ up to date when it is not (a killed build never wrote its
    # own): without a record of today's inputs, everything in the app's folder goes
    stale = build_inputs.guard(gen, lowering, names, out, dry_run=looking)
    app_env["EMBER_LOWERING_INPUTS"] = lowering
    compiled = app_env.Command([str(gen / name) for name in names] + [str(gen / build_inputs.RECORD)],
                               files + [app_env.Value(repr(lowering.values))],
                               Action(_compile_model, f"compiling model of {app} for {board.name}, tier {board.tier}"))
    if stale:
        AlwaysBuild(compiled)
    # Sealed firmware (the default) links the programs the host verifier accepted, bound by their
    # CRC-32, and a runtime without any check; verify=1 firmware verifies them on the device.
    program_files = [str(gen / n) for n in names if n.endswith(".embr")]
    app_env["EMBER_SEALED"] = not env.get("EMBER_VERIFY")
    if env.get("EMBER_VERIFY"):
        app_env["EMBER_APP_RUNTIME"], app_env["EMBER_APP_VERIFIED"] = env["RUNTIME_LIB"], []
    else:
        app_env.Append(CPPDEFINES=[("EM_SEALED", "1")])
        app_env["EMBER_APP_RUNTIME"] = env["RUNTIME_LIB_SEALED"]
        app_env["EMBER_APP_VERIFIED"] = app_env.Command(
            str(gen / "verified.txt"), env["EM_VERIFY"] + program_files,
            Action(verify_action, f"verifying the program on the host as {board.tier} firmware would"))
    firmware = REPO / "apps" / app / "firmware"
    # firmware/*.c, then the variant's folder and app.yaml's `firmware:` folders; a folder's own
    # main.c replaces firmware/main.c (model=cascade of person_detect)
    folders = ([variant] if variant else []) + list(settings.firmware)
    app_env.Append(CPPPATH=[str(gen), str(firmware), str(COMMON_FIRMWARE)] + [str(firmware / f) for f in folders])
    own_main = any((firmware / f / "main.c").exists() for f in folders)
    app_sources = ([s for s in sorted(Glob(str(firmware / "*.c"), strings=True)) if not (own_main and Path(s).name == "main.c")]
                   + [s for f in folders for s in sorted(Glob(str(firmware / f / "*.c"), strings=True))]
                   + [str(COMMON_FIRMWARE / "em_app_model.c")])  # arena, load, timed invoke: every app
    generated_sources = [str(gen / n) for n in ("em_model_program.c", "em_registry.c", "em_test_vectors.c")]
    if env.get("EMBER_SERVE") or (env.get("EMBER_PROFILE") and run) or env.get("EMBER_NUMERICS") or env.get("EMBER_DEMO"):
        served = _serving_firmware(app_env, app, out, app_sources, generated_sources)
        if env.get("EMBER_DEMO"):
            demo = app_env.Command(str(out / "demo" / "demo.json"), [served[0][0], str(gen / "program.embr")],
                                   Action(_demo, f"demo {env['EMBER_DEMO']} of {app} on {board.name}"))
            AlwaysBuild(demo)
            return served + [demo]
        if env.get("EMBER_NUMERICS"):
            numerics = app_env.Command([str(out / "numerics.md"), str(out / "numerics.json")],
                                       [served[0][0], str(gen / "program.embr"), str(gen / "expected.npz")],
                                       Action(_numerics, f"debugging the numerics of {app} on {board.name}"))
            AlwaysBuild(numerics)
            return served + [numerics]
        if not run:
            return served
        profile = app_env.Command([str(out / n) for n in ("profile.json", "profile.md", "profile.png")],
                                  [served[0][0], str(gen / "program.embr"), str(gen / "expected.npz")],
                                  Action(_profile, f"profiling {app} on {board.name}"))
        AlwaysBuild(profile)
        return served + [profile]
    objects = app_env.EmberObjects(app_sources + generated_sources, out / "obj")
    objects += variant_kernel_objects(app_env, gen, out / "obj")  # only the kernel variants it runs
    if app_env["EMBER_CROSS"]:
        app_env.Append(LINKFLAGS=[f"-Wl,-Map={out / 'firmware.map'}"])
    elf = app_env.Program(str(out / ("firmware.elf" if app_env["EMBER_CROSS"] else "firmware")),
                          objects + env["BSP_OBJECTS"] + app_env["EMBER_APP_RUNTIME"])
    app_env.Depends(elf, app_env["EMBER_APP_VERIFIED"])
    app_env.AddPreAction(elf, Action(_forget_image, None))
    targets = [elf]
    if app_env["EMBER_CROSS"]:
        app_env.AddPostAction(elf, env["CHECK_NO_HEAP"])
        app_env.AddPostAction(elf, Action(_size_report, "size report of $TARGET"))
        app_env.SideEffect([str(out / n) for n in ("size.json", "size.md", "size.png")], elf)
        # The report is a post-action of the link: relink when its code changes, so size.json
        # never describes the ELF by an older rule.
        app_env.Depends(elf, [str(REPO / "site_scons/ember_build" / n)
                              for n in ("size_report.py", "stack_bound.py", "elf_check.py")])
        # Intel HEX always; a raw .bin only where every loadable section lies in one region
        # (board.yaml `bin`): an image spanning TCM and QSPI would be hundreds of MiB of padding.
        targets.append(app_env.Hex(str(out / "firmware.hex"), elf))
        if board.bin:
            targets.append(app_env.Bin(str(out / "firmware.bin"), elf))
    if run:
        report = app_env.Command(str(out / "report.json"), [elf[0], str(gen / "expected.npz"), str(gen / "compile.json")],
                                 Action(_run_and_check, f"running {app} on {board.name}, tier {board.tier}"))
        AlwaysBuild(report)
        targets.append(report)
    if env.get("EMBER_STREAM"):
        if not (REPO / "apps" / app / "stream.py").exists():
            print(f"error: {app} has no stream harness (apps/{app}/stream.py): stream=1 is for apps that run on a "
                  "stream (wakeword)")
            Exit(2)
        if env["EMBER_CROSS"] and board.emulator is None:
            print(f"error: board {board.name} has no emulator: stream=1 plays the stream in QEMU or on the host")
            Exit(2)
        played = app_env.Command([str(out / "stream.json"), str(out / "stream.md")],
                                 [env["EM_RUN"][0], str(gen / "program.embr")],
                                 Action(_stream, f"playing {app}'s test stream on {board.name}"))
        AlwaysBuild(played)
        targets.append(played)
    if figures:
        table = app_env.Command([str(out / "figures.json"), str(out / "figures.md")],
                                [report[0], str(gen / "program.embr"), str(gen / "compile.json")],
                                Action(_figures, f"measuring the figures of {app} on {board.name}"))
        AlwaysBuild(table)
        targets.append(table)
    return targets


def generate(env, **kwargs) -> None:
    env.AddMethod(build_app, "EmberApp")


def exists(env) -> bool:
    return True
