/**
 * @file em_run.c
 * @brief em_run: loads any program file, runs it once on its inputs, writes its outputs.
 *
 *     em_run PROGRAM [--input FILE]... [--output FILE]...
 *
 * Uses only ember.h and em_bsp.h, so the same source runs on the host and on every board
 * (files through semihosting under QEMU). Inputs: the k-th --input holds the raw bytes of
 * program input k (exactly its size); inputs without a file are zeros. Outputs: the k-th --output
 * receives the raw bytes of program output k (one run can check many independent ops).
 * Prints the counter around invoke
 * ("instructions: N" under QEMU, "cycles: N" on silicon, "ns: N" on the host) and the arena
 * sizes. Exit status: 0, the em_status value of a load/invoke failure, or EM_RUN_EXIT_USAGE /
 * EM_RUN_EXIT_IO for the runner's own errors.
 *
 * No heap: the program and the arenas are static. Board builds may place them in big memories
 * with -DEM_RUN_PROGRAM_SECTION=".em_arena.ddr" -DEM_RUN_ARENA_SECTION=".em_arena.sram" and
 * resize them with -DEM_RUN_PROGRAM_CAPACITY=... -DEM_RUN_ARENA_CAPACITY=... (bytes).
 */
#include <stdbool.h>
#include <string.h>

#include "em_bsp.h"
#include "em_print.h"
#include "ember.h"

#ifndef EM_RUN_PROGRAM_CAPACITY
#define EM_RUN_PROGRAM_CAPACITY (1024u * 1024u)
#endif
#ifndef EM_RUN_ARENA_CAPACITY
#define EM_RUN_ARENA_CAPACITY (512u * 1024u) /* shared by all arenas, carved 16-aligned */
#endif
#define EM_RUN_EXIT_USAGE 64
#define EM_RUN_EXIT_IO 74
#define EM_RUN_MAX_ARGS 50 /* the program, 8 --input and 16 --output pairs, spare */

#define EM_RUN_STR(x) #x
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

#define EM_RUN_MAX_INPUT_FILES 8
#define EM_RUN_MAX_OUTPUT_FILES 16

typedef struct {
    const char *program;
    const char *inputs[EM_RUN_MAX_INPUT_FILES]; /* in program input order */
    uint32_t n_inputs;
    const char *outputs[EM_RUN_MAX_OUTPUT_FILES]; /* in program output order */
    uint32_t n_outputs;
} em_run_args;

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
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--input") == 0 && i + 1 < argc && args->n_inputs < EM_RUN_MAX_INPUT_FILES) {
            args->inputs[args->n_inputs++] = argv[++i];
        } else if (strcmp(argv[i], "--output") == 0 && i + 1 < argc && args->n_outputs < EM_RUN_MAX_OUTPUT_FILES) {
            args->outputs[args->n_outputs++] = argv[++i];
        } else if (argv[i][0] != '-' && args->program == NULL) {
            args->program = argv[i];
        } else {
            return false;
        }
    }
    return args->program != NULL;
}

/** Carves the program's arenas out of the static pool. */
static bool em_run_arenas(const em_program *program, uint8_t **arenas, uint32_t *sizes)
{
    uint32_t used = 0;
    for (uint32_t i = 0; i < EM_MAX_ARENAS; i++) {
        const uint32_t size = em_program_arena_size(program, i);
        const uint32_t padded = (size + 15u) & ~15u;
        if (size > EM_RUN_ARENA_CAPACITY || padded > EM_RUN_ARENA_CAPACITY - used) {
            return false;
        }
        arenas[i] = arena_pool + used;
        sizes[i] = size;
        used += padded;
    }
    return true;
}

static int em_run(const em_run_args *args)
{
    size_t size = 0;
    const int read = em_bsp_file_read(args->program, program_bytes, sizeof program_bytes, &size);
    if (read != 0) {
        return em_run_fail(read == -2 ? "program too large: " : "cannot read program: ",
                           args->program, EM_RUN_EXIT_IO);
    }
    em_program program;
    em_status status = em_program_load(&program, program_bytes, size);
    if (status != EM_OK) {
        if (program.error_operator != EM_NO_OPERATOR) {
            em_print("em_run: operator ");
            em_print_u64(program.error_operator);
            em_print(" (opcode ");
            em_print_u64(program.error_opcode);
            em_print(")\n");
        }
        return em_run_status(status);
    }
    uint8_t *arenas[EM_MAX_ARENAS];
    uint32_t sizes[EM_MAX_ARENAS];
    if (!em_run_arenas(&program, arenas, sizes)) {
        return em_run_status(EM_ERR_ARENA_TOO_SMALL);
    }
    for (uint32_t i = 0; i < program.n_arenas; i++) {
        em_print("arena ");
        em_print_u64(i);
        print_line_u64(": bytes ", sizes[i]);
        memset(arenas[i], 0, sizes[i]);
    }
    em_tensor input, output;
    if (args->n_inputs > program.n_inputs) {
        return em_run_fail("more --input files than the program has inputs", NULL, EM_RUN_EXIT_USAGE);
    }
    for (uint32_t k = 0; k < args->n_inputs; k++) {
        status = em_program_input(&program, k, arenas, &input);
        if (status != EM_OK) {
            return em_run_status(status);
        }
        size_t got = 0;
        if (em_bsp_file_read(args->inputs[k], input.data, input.size, &got) != 0 || got != input.size) {
            return em_run_fail("an input file must be exactly the size of its input: ", args->inputs[k],
                               EM_RUN_EXIT_IO);
        }
    }
    const uint64_t start = em_bsp_counter_read();
    status = em_program_invoke(&program, arenas, sizes, EM_MAX_ARENAS);
    const uint64_t elapsed = em_bsp_counter_read() - start;
    if (status != EM_OK) {
        return em_run_status(status);
    }
    const uint64_t overhead = em_bsp_counter_overhead();
    const char *unit = em_bsp_counter_unit();
    const char *space = strchr(unit, ' ');
    em_bsp_console_write(unit, space != NULL ? (size_t)(space - unit) : strlen(unit));
    print_line_u64(": ", elapsed > overhead ? elapsed - overhead : 0u);
    for (uint32_t k = 0; k < args->n_outputs && k < program.n_outputs; k++) {
        status = em_program_output(&program, k, arenas, &output);
        if (status != EM_OK) {
            return em_run_status(status);
        }
        if (em_bsp_file_write(args->outputs[k], output.data, output.size) != 0) {
            return em_run_fail("cannot write output: ", args->outputs[k], EM_RUN_EXIT_IO);
        }
    }
    return 0;
}

int em_app_main(void)
{
    static char storage[512];
    static const char *argv[EM_RUN_MAX_ARGS];
    const int argc = em_bsp_args(storage, sizeof storage, argv, EM_RUN_MAX_ARGS);
    em_run_args args;
    if (argc < 0 || !em_run_parse(argc, argv, &args)) {
        return em_run_fail("usage: em_run PROGRAM [--input FILE]... [--output FILE]...", NULL,
                           EM_RUN_EXIT_USAGE);
    }
    return em_run(&args);
}
