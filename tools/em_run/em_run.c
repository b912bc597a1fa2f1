/**
 * @file em_run.c
 * @brief em_run: loads any program file, runs it once on its inputs, writes its outputs.
 *
 *     em_run PROGRAM [--input FILE]... [--output FILE]... [--zero-inputs] [--invokes N]
 *     em_run --batch MANIFEST
 *     em_run PROGRAM --serve
 *
 * Uses only ember.h and em_bsp.h, so the same source runs on the host and on every board
 * (files through semihosting under QEMU). Inputs: the k-th --input holds the raw bytes of
 * program input k, exactly its size. A program input without a file (EM_RUN_EXIT_USAGE), a file
 * that cannot be read or one of another size (EM_RUN_EXIT_IO) is an error naming the input, the
 * file and the bytes expected and found; --zero-inputs opts in to running the inputs that have
 * no file on zeros instead (loader tests, timing runs). Outputs: the k-th --output
 * receives the raw bytes of program output k (one run can check many independent ops).
 * Prints the counter around invoke
 * ("instructions: N" under QEMU, "cycles: N" on silicon, "ns: N" on the host) and the arena
 * sizes.
 *
 * A program with state (ember.h, em_program_reset_state) starts from a reset. `--invokes N` runs
 * N invokes in a row over one state (a stream, frame by frame): each --input file then holds N
 * of its input, one after the other (exactly N times its size), each --output file receives N
 * outputs the same way, and the counter lines are the sum over the invokes, then
 * "invokes: N" and "max <unit>: M", the most one invoke took. Exit status: 0, the em_status value of a load/invoke failure, or EM_RUN_EXIT_USAGE /
 * EM_RUN_EXIT_IO for the runner's own errors.
 *
 * Batch mode runs many programs in one launch (one QEMU boot for a whole test suite). MANIFEST is
 * a text file, one case per line: `PROGRAM EXPECTED [INPUT]...` (file names separated by spaces;
 * EXPECTED holds the bytes output 0 must equal; one INPUT per program input, as for --input, no
 * zeros; a last word `f32` compares output 0 as float32:
 * bits equal, except that any NaN equals any NaN (NaN signs and payloads differ between FPUs),
 * and `f32 ulp=N [abs_log2=E]` also accepts finite values within N units in the last place or
 * 2^E absolute). Each case loads, runs and compares, then prints one verdict line:
 *
 *     case <n>: EM_OK match <unit>=<count>
 *     case <n>: EM_OK mismatch at byte <k> of <size>: got <g>, want <w>   (bytes as 0..255)
 *     case <n>: <em_status name | EM_RUN_EXIT_IO | EM_RUN_EXIT_USAGE>  (load / invoke / file failure)
 *
 * A case `PROGRAM -` only loads the program: its verdict is the verifier's, `EM_OK loaded` or the
 * status that refused it (tests compare it with tools/em_verify's, the host build of the verifier).
 *
 * then `cases: <n>`. A failing case does not stop the rest: once every case has its verdict, the
 * run exits 0 if every case matched, else EM_RUN_EXIT_CASES_FAILED (after a line counting the
 * failures); EM_RUN_EXIT_IO / EM_RUN_EXIT_USAGE when the manifest itself cannot be read or parsed.
 *
 * Serve mode (--serve) loads the program, copies its pinned constants, resets its state and
 * answers the serial link's requests on the console (apps/common/firmware/em_link.h, the
 * serving firmware's protocol; tools/ember_link.py `serve(board, elf, args=...)`) until a
 * SHUTDOWN, whose status it exits with: any program file served with no app build. It prints
 * nothing of its own; a program that does not load is answered ERROR RUNTIME naming why.
 *
 * A program whose arenas do not fit the pool is refused with EM_ERR_ARENA_TOO_SMALL and a line
 * naming the arena, the bytes it needs, those left and what all arenas need, which is the
 * EM_RUN_ARENA_CAPACITY to rebuild with.
 *
 * No heap: the program and the arenas are static. Board builds may place them in big memories
 * with -DEM_RUN_PROGRAM_SECTION=".em_arena.ddr" -DEM_RUN_ARENA_SECTION=".em_arena.sram" and
 * resize them with -DEM_RUN_PROGRAM_CAPACITY=... -DEM_RUN_ARENA_CAPACITY=... (bytes).
 */
#include <stdbool.h>
#include <string.h>

#include "em_bsp.h"
#include "em_link.h"
#include "em_print.h"
#include "ember.h"

#ifndef EM_RUN_PROGRAM_CAPACITY
#define EM_RUN_PROGRAM_CAPACITY (1024u * 1024u)
#endif
#ifndef EM_RUN_ARENA_CAPACITY
#define EM_RUN_ARENA_CAPACITY (512u * 1024u) /* shared by all arenas, carved 16-aligned */
#endif
#ifndef EM_RUN_MANIFEST_CAPACITY
#define EM_RUN_MANIFEST_CAPACITY (32u * 1024u)
#endif
#define EM_RUN_EXIT_USAGE 64
#define EM_RUN_EXIT_CASES_FAILED 65 /* --batch: a case did not match (its verdict line says how) */
#define EM_RUN_EXIT_IO 74
#define EM_RUN_MAX_ARGS 50 /* the program, 8 --input and 16 --output pairs, spare */

#define EM_RUN_STR(x) #x
#define EM_RUN_DECIMAL(x) EM_RUN_STR(x) /* a macro's value as a string */
#define EM_RUN_SECTION(name) __attribute__((section(EM_RUN_STR(name))))
#ifdef EM_RUN_PROGRAM_SECTION
#define EM_RUN_PROGRAM_PLACEMENT EM_RUN_SECTION(EM_RUN_PROGRAM_SECTION)
#else
#define EM_RUN_PROGRAM_PLACEMENT
#endif
#ifdef EM_RUN_ARENA_SECTION
#define EM_RUN_ARENA_PLACEMENT EM_RUN_SECTION(EM_RUN_ARENA_SECTION)
#else
#define EM_RUN_ARENA_PLACEMENT
#endif

static uint8_t program_bytes[EM_RUN_PROGRAM_CAPACITY] __attribute__((aligned(16)))
EM_RUN_PROGRAM_PLACEMENT;
static uint8_t arena_pool[EM_RUN_ARENA_CAPACITY] __attribute__((aligned(16))) EM_RUN_ARENA_PLACEMENT;
/* The batch manifest, NUL-terminated in place; beside the program (small boards' .bss is tight). */
static char manifest_text[EM_RUN_MANIFEST_CAPACITY + 1u] EM_RUN_PROGRAM_PLACEMENT;

#define EM_RUN_MAX_INPUT_FILES 8
#define EM_RUN_MAX_OUTPUT_FILES 16

typedef struct {
    const char *program;
    const char *inputs[EM_RUN_MAX_INPUT_FILES]; /* in program input order */
    uint32_t n_inputs;
    const char *outputs[EM_RUN_MAX_OUTPUT_FILES]; /* in program output order */
    uint32_t n_outputs;
    bool zero_inputs; /* --zero-inputs: program inputs without a file are zeros */
    uint32_t n_invokes; /* --invokes N (1 without it) */
    const char *manifest; /* non-NULL: batch mode, nothing else is given */
    bool serve; /* --serve: the serial link instead of a run (nothing else is given) */
} em_run_args;

/** A loaded program, its arenas and the bytes of its file in program_bytes. */
typedef struct {
    em_program program;
    uint8_t *arenas[EM_MAX_ARENAS];
    uint32_t sizes[EM_MAX_ARENAS];
    size_t file_size;
    uint64_t count; /* counter ticks of the invoke, less the counter's own overhead */
} em_run_state;

/* --invokes: at most this many (an hour of 32 ms hops is 112,500) */
#define EM_RUN_MAX_INVOKES 10000000u

/** @p c as a count 1..@p max: digits only. @return whether it is one. */
static bool em_run_parse_count(const char *c, uint32_t max, uint32_t *out)
{
    uint32_t value = 0u;
    for (const char *d = c; *d != '\0'; d++) {
        if (*d < '0' || *d > '9' || value > (max - (uint32_t)(*d - '0')) / 10u) {
            return false;
        }
        value = value * 10u + (uint32_t)(*d - '0');
    }
    *out = value;
    return *c != '\0' && value >= 1u;
}

/** Writes "<label><value>\n". */
static void print_line_u64(const char *label, uint64_t value)
{
    em_print(label);
    em_print_u64(value);
    em_print("\n");
}

static int em_run_fail(const char *what, const char *detail, int code)
{
    em_print("em_run: ");
    em_print(what);
    if (detail != NULL) {
        em_print(detail);
    }
    em_print("\n");
    return code;
}

static int em_run_status(em_status status)
{
    em_run_fail(em_status_name(status), NULL, (int)status);
    return (int)status;
}

static bool em_run_parse(int argc, const char **argv, em_run_args *args)
{
    memset(args, 0, sizeof *args);
    if (argc == 2 && strcmp(argv[0], "--batch") == 0) {
        args->manifest = argv[1];
        return true;
    }
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--input") == 0 && i + 1 < argc && args->n_inputs < EM_RUN_MAX_INPUT_FILES) {
            args->inputs[args->n_inputs++] = argv[++i];
        } else if (strcmp(argv[i], "--output") == 0 && i + 1 < argc && args->n_outputs < EM_RUN_MAX_OUTPUT_FILES) {
            args->outputs[args->n_outputs++] = argv[++i];
        } else if (strcmp(argv[i], "--serve") == 0) {
            args->serve = true;
        } else if (strcmp(argv[i], "--zero-inputs") == 0) {
            args->zero_inputs = true;
        } else if (strcmp(argv[i], "--invokes") == 0 && i + 1 < argc && args->n_invokes == 0u) {
            if (!em_run_parse_count(argv[++i], EM_RUN_MAX_INVOKES, &args->n_invokes)) {
                return false;
            }
        } else if (argv[i][0] != '-' && args->program == NULL) {
            args->program = argv[i];
        } else {
            return false;
        }
    }
    if (args->serve && (args->n_inputs > 0u || args->n_outputs > 0u || args->zero_inputs || args->n_invokes > 0u)) {
        return false; /* the host sends the inputs and reads the outputs */
    }
    if (args->n_invokes == 0u) {
        args->n_invokes = 1u;
    }
    return args->program != NULL;
}

/** Carves the program's arenas out of the static pool, each 16-aligned. If they do not fit, says
 * which arena does not, what it needs and what is left, and the capacity all of them need. */
static bool em_run_arenas(const em_program *program, uint8_t **arenas, uint32_t *sizes)
{
    uint64_t used = 0, needed = 0, failed_at = 0; /* 64-bit: four arena sizes may sum past 4 GiB */
    uint32_t failed = EM_MAX_ARENAS;
    for (uint32_t i = 0; i < EM_MAX_ARENAS; i++) {
        const uint32_t size = em_program_arena_size(program, i);
        if (size > 0u) {
            needed = used + size;
        }
        if (failed == EM_MAX_ARENAS && needed > EM_RUN_ARENA_CAPACITY) {
            failed = i;
            failed_at = used;
        }
        arenas[i] = failed == EM_MAX_ARENAS && size > 0u ? arena_pool + used : arena_pool;
        sizes[i] = size;
        used += ((uint64_t)size + 15u) & ~(uint64_t)15u;
    }
    if (failed == EM_MAX_ARENAS) {
        return true;
    }
    em_print("em_run: EM_ERR_ARENA_TOO_SMALL: arena ");
    em_print_u64(failed);
    em_print(" needs ");
    em_print_u64(em_program_arena_size(program, failed));
    em_print(" bytes, ");
    em_print_u64(failed_at < EM_RUN_ARENA_CAPACITY ? EM_RUN_ARENA_CAPACITY - failed_at : 0u);
    em_print(" are left of em_run's ");
    em_print_u64(EM_RUN_ARENA_CAPACITY);
    em_print("-byte arena pool: rebuild em_run with -DEM_RUN_ARENA_CAPACITY=");
    em_print_u64(needed);
    em_print(" or more (what all the program's arenas need)\n");
    return false;
}

/** Fills program input @p k (@p input, its view) for invoke @p t of @p n_invokes from @p path,
 * the k-th --input or the case's k-th INPUT (NULL: none given, @p n_given in all): the file's
 * bytes t * size .. (t + 1) * size. A missing path, a file that cannot be read or one of another
 * size than n_invokes * size is an error naming the input, the file and the bytes expected and
 * found; @p zero_inputs lets an input without a path stay zeros instead.
 * @return 0, EM_RUN_EXIT_USAGE (no path) or EM_RUN_EXIT_IO (the file). */
static int em_run_fill_input(uint32_t k, const em_tensor *input, const char *path, uint32_t n_given,
                             uint32_t n_inputs, bool zero_inputs, bool batch, uint32_t t, uint32_t n_invokes)
{
    const size_t unknown = (size_t)-1;
    size_t got = unknown;
    const uint64_t want = (uint64_t)input->size * n_invokes;
    int read = 0;
    if (path != NULL && n_invokes == 1u) {
        read = em_bsp_file_read(path, input->data, input->size, &got);
    } else if (path != NULL) {
        read = em_bsp_file_read_part(path, (size_t)t * input->size, input->data, input->size, &got);
    }
    if (read == -1 && got != unknown) {
        read = -2; /* opened: of another size */
    }
    if (path == NULL && zero_inputs) {
        memset(input->data, 0, input->size); /* the plan may have reused its bytes since */
        return 0;
    }
    if (path != NULL && read == 0 && got == want) {
        return 0;
    }
    em_print("em_run: input ");
    em_print_u64(k);
    em_print(" (");
    em_print_u64(input->size);
    if (path == NULL) {
        em_print(" bytes) has no file: the program takes ");
        em_print_u64(n_inputs);
        em_print(n_inputs == 1u ? " input, " : " inputs, ");
        em_print_u64(n_given);
        em_print(batch ? " listed: list one INPUT file per program input after EXPECTED\n"
                       : " given: give one --input FILE per program input, in order (or --zero-inputs)\n");
        return EM_RUN_EXIT_USAGE;
    }
    em_print(" bytes): ");
    em_print(path);
    if (read == -1) {
        em_print(" cannot be read: give an existing file of ");
    } else {
        em_print(" holds ");
        em_print_u64(got);
        em_print(" bytes: give a file of exactly ");
    }
    em_print_u64(want);
    em_print(n_invokes == 1u ? " bytes\n" : " bytes (its size for each of the --invokes)\n");
    return EM_RUN_EXIT_IO;
}

static int em_run_step(em_run_state *state, const char *const *inputs, uint32_t n_inputs, bool zero_inputs,
                       bool batch, uint32_t t, uint32_t n_invokes);

/** Loads @p program_path, resets its state, fills its inputs from @p inputs (for the first of
 * @p n_invokes) and invokes it once. Failures are printed ("em_run: ...").
 * @return 0, an em_status value, or EM_RUN_EXIT_IO / _USAGE. */
static int em_run_invoke(em_run_state *state, const char *program_path, const char *const *inputs,
                         uint32_t n_inputs, bool zero_inputs, bool batch, uint32_t n_invokes)
{
    em_program *program = &state->program;
    state->file_size = 0;
    const int read = em_bsp_file_read(program_path, program_bytes, sizeof program_bytes, &state->file_size);
    if (read != 0) {
        return em_run_fail(read == -2 ? "program too large: " : "cannot read program: ",
                           program_path, EM_RUN_EXIT_IO);
    }
    em_status status = em_program_load(program, program_bytes, state->file_size);
    if (status == EM_OK && inputs == NULL) {
        return 0; /* a load-only case (`PROGRAM -`) */
    }
    if (status != EM_OK) {
        if (program->error_operator != EM_NO_OPERATOR) {
            em_print("em_run: operator ");
            em_print_u64(program->error_operator);
            em_print(" (opcode ");
            em_print_u64(program->error_opcode);
            em_print(")\n");
        }
        if (status == EM_ERR_ARENA_TOO_SMALL) { /* the loader's only arena check */
            return em_run_fail("EM_ERR_ARENA_TOO_SMALL: the program plans more arenas than the runtime's "
                               "EM_MAX_ARENAS (" EM_RUN_DECIMAL(EM_MAX_ARENAS) "): compile it for at most "
                               EM_RUN_DECIMAL(EM_MAX_ARENAS) " memory regions", NULL, (int)status);
        }
        return em_run_status(status);
    }
    if (!em_run_arenas(program, state->arenas, state->sizes)) {
        return (int)EM_ERR_ARENA_TOO_SMALL; /* em_run_arenas said why */
    }
    for (uint32_t i = 0; i < program->n_arenas; i++) {
        if (!batch) {
            em_print("arena ");
            em_print_u64(i);
            print_line_u64(": bytes ", state->sizes[i]);
        }
        memset(state->arenas[i], 0, state->sizes[i]);
    }
    status = em_program_copy_constants(program, state->arenas, state->sizes, EM_MAX_ARENAS);
    if (status != EM_OK) { /* weights pinned to RAM (app.yaml memory: pin:), copied once */
        return em_run_status(status);
    }
    if (n_inputs > program->n_inputs) {
        em_print("em_run: ");
        em_print_u64(n_inputs);
        em_print(batch ? " INPUT files for a program of " : " --input files for a program of ");
        em_print_u64(program->n_inputs);
        em_print(program->n_inputs == 1u ? " input" : " inputs");
        em_print(": give one per program input, in order\n");
        return EM_RUN_EXIT_USAGE;
    }
    status = em_program_reset_state(program, state->arenas, state->sizes, EM_MAX_ARENAS);
    if (status != EM_OK) { /* a program with state starts from a reset (nothing to do without) */
        return em_run_status(status);
    }
    return em_run_step(state, inputs, n_inputs, zero_inputs, batch, 0u, n_invokes);
}

/** Invoke @p t of @p n_invokes of the loaded program: fills its inputs (em_run_fill_input) and
 * invokes it once, its count in state->count. @return as em_run_invoke(). */
static int em_run_step(em_run_state *state, const char *const *inputs, uint32_t n_inputs, bool zero_inputs,
                       bool batch, uint32_t t, uint32_t n_invokes)
{
    em_program *program = &state->program;
    em_tensor input;
    for (uint32_t k = 0; k < program->n_inputs; k++) {
        em_status status = em_program_input(program, k, state->arenas, &input);
        if (status != EM_OK) {
            return em_run_status(status);
        }
        const int code = em_run_fill_input(k, &input, k < n_inputs ? inputs[k] : NULL, n_inputs,
                                           program->n_inputs, zero_inputs, batch, t, n_invokes);
        if (code != 0) {
            return code;
        }
    }
    const uint64_t start = em_bsp_counter_read();
    const em_status status = em_program_invoke(program, state->arenas, state->sizes, EM_MAX_ARENAS);
    const uint64_t elapsed = em_bsp_counter_read() - start;
    if (status != EM_OK) {
        return em_run_status(status);
    }
    const uint64_t overhead = em_bsp_counter_overhead();
    state->count = elapsed > overhead ? elapsed - overhead : 0u;
    return 0;
}

/** Prints the counter's unit up to its first space ("instructions", "cycles", "ns"). */
static void em_run_print_unit(void)
{
    const char *unit = em_bsp_counter_unit();
    const char *space = strchr(unit, ' ');
    em_bsp_console_write(unit, space != NULL ? (size_t)(space - unit) : strlen(unit));
}

/** Writes invoke @p t's outputs: the k-th --output file gets output k (appended after the first invoke). */
static int em_run_write_outputs(const em_run_args *args, em_run_state *state, uint32_t t)
{
    for (uint32_t k = 0; k < args->n_outputs && k < state->program.n_outputs; k++) {
        em_tensor output;
        const em_status status = em_program_output(&state->program, k, state->arenas, &output);
        if (status != EM_OK) {
            return em_run_status(status);
        }
        if ((t == 0u ? em_bsp_file_write : em_bsp_file_append)(args->outputs[k], output.data, output.size) != 0) {
            return em_run_fail("cannot write output: ", args->outputs[k], EM_RUN_EXIT_IO);
        }
    }
    return 0;
}

static int em_run(const em_run_args *args)
{
    static em_run_state state;
    int code = em_run_invoke(&state, args->program, args->inputs, args->n_inputs, args->zero_inputs, false,
                             args->n_invokes);
    uint64_t total = state.count, most = state.count;
    for (uint32_t t = 0; code == 0; t++) {
        if ((code = em_run_write_outputs(args, &state, t)) != 0 || t + 1u == args->n_invokes) {
            break;
        }
        code = em_run_step(&state, args->inputs, args->n_inputs, args->zero_inputs, false, t + 1u, args->n_invokes);
        total += state.count;
        most = state.count > most ? state.count : most;
    }
    if (code != 0) {
        return code;
    }
    em_run_print_unit();
    print_line_u64(": ", total);
    if (args->n_invokes > 1u) {
        print_line_u64("invokes: ", args->n_invokes);
        em_print("max ");
        em_run_print_unit();
        print_line_u64(": ", most);
    }
    return 0;
}

static em_run_state served;

/* RESET_STATE over the link */
static em_status em_run_reset_served(void)
{
    return em_program_reset_state(&served.program, served.arenas, served.sizes, EM_MAX_ARENAS);
}

/** --serve: the program, loaded, its constants copied and its state reset, over the serial link
 * until SHUTDOWN. @return the SHUTDOWN's status, or EM_RUN_EXIT_IO if the file cannot be read. */
static int em_run_serve(const char *program_path)
{
    em_program *program = &served.program;
    const int read = em_bsp_file_read(program_path, program_bytes, sizeof program_bytes, &served.file_size);
    if (read != 0) {
        return em_run_fail(read == -2 ? "program too large: " : "cannot read program: ", program_path, EM_RUN_EXIT_IO);
    }
    em_status status = em_program_load(program, program_bytes, served.file_size);
    if (status == EM_OK && !em_run_arenas(program, served.arenas, served.sizes)) {
        status = EM_ERR_ARENA_TOO_SMALL;
    }
    for (uint32_t i = 0; status == EM_OK && i < program->n_arenas; i++) {
        memset(served.arenas[i], 0, served.sizes[i]);
    }
    if (status == EM_OK) {
        status = em_program_copy_constants(program, served.arenas, served.sizes, EM_MAX_ARENAS);
    }
    if (status == EM_OK) {
        status = em_run_reset_served();
    }
    const em_link_model model = {
        .load_status = status,
        .program = program,
        .arenas = served.arenas,
        .arena_sizes = served.sizes,
        .n_arenas = EM_MAX_ARENAS,
        .app_name = "em_run",
        .reset_state = em_run_reset_served,
    };
    return em_link_serve(&model);
}

static const char *em_run_code_name(int code)
{
    if (code == EM_RUN_EXIT_IO) {
        return "EM_RUN_EXIT_IO";
    }
    return code == EM_RUN_EXIT_USAGE ? "EM_RUN_EXIT_USAGE" : em_status_name((em_status)code);
}

/** float32 bits as integers ordered like the floats (ULP distance is then a difference). */
static int64_t em_run_ordered_f32(const uint8_t *p)
{
    uint32_t bits;
    memcpy(&bits, p, sizeof bits);
    return (bits & 0x80000000u) != 0u ? -(int64_t)(bits & 0x7fffffffu) : (int64_t)bits;
}

static uint32_t em_run_magnitude_f32(const uint8_t *p)
{
    uint32_t bits;
    memcpy(&bits, p, sizeof bits);
    return bits & 0x7fffffffu;
}

/** A case's comparison: bytes, or float32 (NaN ≡ NaN) within `ulp` units in the last place or
 * `abs` absolute (0, 0: bits equal). */
typedef struct {
    bool f32;
    uint32_t ulp;
    float abs;
} em_run_tolerance;

/** Index of the first byte from which got and want differ beyond the tolerance (both NaN agree;
 * ±inf and ±0 only equal themselves); `size` if none. */
static size_t em_run_first_difference(const uint8_t *got, const uint8_t *want, size_t size, em_run_tolerance tol)
{
    size_t k = 0;
    if (tol.f32 && size % 4u == 0u) {
        for (; k < size; k += 4u) {
            const uint32_t m_got = em_run_magnitude_f32(got + k), m_want = em_run_magnitude_f32(want + k);
            const bool nan_got = m_got > 0x7f800000u, nan_want = m_want > 0x7f800000u;
            const bool inf = m_got == 0x7f800000u || m_want == 0x7f800000u;
            const int64_t d = em_run_ordered_f32(got + k) - em_run_ordered_f32(want + k);
            float g, w;
            memcpy(&g, got + k, sizeof g);
            memcpy(&w, want + k, sizeof w);
            const bool close = nan_got || nan_want ? nan_got && nan_want
                               : memcmp(got + k, want + k, 4u) == 0 ? true
                               : inf || tol.ulp == 0u ? false
                               : (d <= (int64_t)tol.ulp && -d <= (int64_t)tol.ulp) || (g - w <= tol.abs && w - g <= tol.abs);
            if (!close) {
                break;
            }
        }
    }
    while (k < size && got[k] == want[k]) {
        k++;
    }
    return k;
}

/** A signed decimal integer (the digits after an optional '-'). */
static int32_t em_run_parse_int(const char *c)
{
    const bool negative = *c == '-';
    int32_t value = 0;
    for (c += negative ? 1 : 0; *c >= '0' && *c <= '9'; c++) {
        value = value * 10 + (int32_t)(*c - '0');
    }
    return negative ? -value : value;
}

/** One manifest case: words[0] program, words[1] expected output, words[2..] inputs, optional
 * last words `f32`, `ulp=N` and `abs_log2=E` (-126..127). The expected bytes are read into program_bytes
 * behind the program (it runs in place). @return whether output 0 matched. */
static bool em_run_case(uint32_t number, const char *const *words, uint32_t n_words)
{
    static em_run_state state;
    int code = EM_RUN_EXIT_USAGE;
    em_run_tolerance tol = {false, 0u, 0.0f};
    while (n_words > 2u) {
        const char *last = words[n_words - 1u];
        if (strcmp(last, "f32") == 0) {
            tol.f32 = true;
        } else if (strncmp(last, "ulp=", 4) == 0) {
            tol.ulp = (uint32_t)em_run_parse_int(last + 4);
        } else if (strncmp(last, "abs_log2=", 9) == 0) {
            const int32_t e = em_run_parse_int(last + 9);
            const uint32_t bits = (uint32_t)((e < -126 ? -126 : e > 127 ? 127 : e) + 127) << 23; /* 2^e */
            memcpy(&tol.abs, &bits, sizeof tol.abs);
        } else {
            break;
        }
        n_words--;
    }
    if (n_words < 2u) {
        em_run_fail("a case needs PROGRAM EXPECTED [INPUT]... (at most "
                    EM_RUN_DECIMAL(EM_RUN_MAX_INPUT_FILES) " INPUTs) [f32 [ulp=N] [abs_log2=E]]", NULL, code);
    } else if (n_words == 2u && strcmp(words[1], "-") == 0) { /* load only: the verifier's verdict */
        code = em_run_invoke(&state, words[0], NULL, 0u, false, true, 1u);
        em_print("case ");
        em_print_u64(number);
        em_print(": ");
        em_print(em_run_code_name(code));
        em_print(code == 0 ? " loaded\n" : "\n");
        return code == 0;
    } else {
        code = em_run_invoke(&state, words[0], words + 2, n_words - 2u, false, true, 1u);
    }
    em_tensor output;
    size_t want_size = 0;
    if (code == 0) {
        const size_t used = (state.file_size + 15u) & ~(size_t)15u;
        const em_status status = em_program_output(&state.program, 0, state.arenas, &output);
        if (status != EM_OK) {
            code = em_run_status(status);
        } else if (em_bsp_file_read(words[1], program_bytes + used, sizeof program_bytes - used, &want_size) != 0) {
            code = em_run_fail("cannot read expected output: ", words[1], EM_RUN_EXIT_IO);
        }
    }
    em_print("case ");
    em_print_u64(number);
    em_print(": ");
    em_print(em_run_code_name(code));
    if (code != 0) {
        em_print("\n");
        return false;
    }
    const uint8_t *got = output.data;
    const uint8_t *want = program_bytes + ((state.file_size + 15u) & ~(size_t)15u);
    const size_t k = em_run_first_difference(got, want, output.size < want_size ? output.size : want_size, tol);
    if (k == output.size && k == want_size) {
        em_print(" match ");
        em_run_print_unit();
        print_line_u64("=", state.count);
        return true;
    }
    em_print(" mismatch at byte ");
    em_print_u64(k);
    em_print(" of ");
    em_print_u64(output.size);
    if (k < output.size && k < want_size) {
        em_print(": got ");
        em_print_u64(got[k]);
        em_print(", want ");
        print_line_u64("", want[k]);
    } else {
        print_line_u64(": expected size ", want_size);
    }
    return false;
}

/** Runs every case of the manifest (see the file comment). @return 0 if every case matched,
 * EM_RUN_EXIT_CASES_FAILED once every case has its verdict, EM_RUN_EXIT_IO for the manifest. */
static int em_run_batch(const char *manifest)
{
    size_t size = 0;
    if (em_bsp_file_read(manifest, manifest_text, EM_RUN_MANIFEST_CAPACITY, &size) != 0) {
        return em_run_fail("cannot read manifest (or larger than EM_RUN_MANIFEST_CAPACITY): ", manifest,
                           EM_RUN_EXIT_IO);
    }
    manifest_text[size] = '\0';
    uint32_t cases = 0, failed = 0, first_failed = 0;
    char *cursor = manifest_text;
    while (*cursor != '\0') {
        const char *words[2u + EM_RUN_MAX_INPUT_FILES];
        uint32_t n_words = 0;
        bool too_many = false;
        while (*cursor != '\0' && *cursor != '\n') {  /* one line: words split at spaces, in place */
            while (*cursor == ' ' || *cursor == '\t' || *cursor == '\r') {
                *cursor++ = '\0';
            }
            if (*cursor == '\0' || *cursor == '\n') {
                break;
            }
            if (n_words < sizeof words / sizeof words[0]) {
                words[n_words++] = cursor;
            } else {
                too_many = true;
            }
            while (*cursor != '\0' && *cursor != '\n' && *cursor != ' ' && *cursor != '\t' && *cursor != '\r') {
                cursor++;
            }
        }
        if (*cursor == '\n') {
            *cursor++ = '\0';
        }
        if (n_words == 0u) {
            continue; /* blank line */
        }
        if (!em_run_case(cases, words, too_many ? 0u : n_words) && failed++ == 0u) {
            first_failed = cases;
        }
        cases++;
    }
    print_line_u64("cases: ", cases);
    if (failed == 0u) {
        return 0;
    }
    em_print("em_run: ");
    em_print_u64(failed);
    em_print(" of ");
    em_print_u64(cases);
    em_print(" cases failed (the first: case ");
    em_print_u64(first_failed);
    em_print("); each one's verdict line above says how\n");
    return EM_RUN_EXIT_CASES_FAILED;
}

int em_app_main(void)
{
    static char storage[512];
    static const char *argv[EM_RUN_MAX_ARGS];
    const int argc = em_bsp_args(storage, sizeof storage, argv, EM_RUN_MAX_ARGS);
    em_run_args args;
    if (argc < 0 || !em_run_parse(argc, argv, &args)) {
        return em_run_fail("usage: em_run PROGRAM [--input FILE]... [--output FILE]... [--zero-inputs] [--invokes N] "
                           "| em_run --batch MANIFEST | em_run PROGRAM --serve", NULL, EM_RUN_EXIT_USAGE);
    }
    if (args.serve) {
        return em_run_serve(args.program);
    }
    return args.manifest != NULL ? em_run_batch(args.manifest) : em_run(&args);
}
