/**
 * @file em_bench.c
 * @brief em_bench: the benchmark firmware of one model (`./scons bench`, ember_build/bench.py).
 *
 * Runs the embedded program on the embedded int8 input with one plain em_program_invoke()
 * counted as a whole (the figure the benchmark reports). Built twice per model: plain
 * (EM_BENCH_PROFILED=0), the firmware whose code size the benchmark reports, since it holds what
 * an application holds (load, invoke, print); and profiled (EM_BENCH_PROFILED=1, the default),
 * which then runs one em_program_invoke_profiled() that counts every operator (em_profile.h; the
 * runtime is built with EM_PROFILE=1). Prints the outputs so the host can check them against the
 * reference byte for byte:
 *
 *     EM bench program=<bytes> arena=<bytes> operators=<n> unit=<counter unit>
 *     EM bench invoke count=<n> output=<hex>
 *     EM bench op <i> <name> count=<n>          (profiled: one line per operator, in program order)
 *     EM bench profiled output=<hex>            (profiled)
 *     EM bench stack peak=<bytes>               (stack painting; 0 where the board cannot tell)
 *     EM done
 *
 * Exit status: 0, or the em_status that stopped it. No heap: program, input and arena are static.
 * Generated per model and board: em_model_program.{c,h} (the program), em_registry.c (its ops),
 * em_test_vectors.h (EM_BENCH_INPUT_BYTES, EM_BENCH_OPERATORS, em_bench_input[]) and
 * em_model_arena.h (EM_MODEL_ARENA_BYTES, EM_MODEL_ARENA_SECTION).
 */
#include <stdint.h>
#include <string.h>

#include "em_bsp.h"
#include "em_model_arena.h"
#include "em_model_program.h"
#include "em_print.h"
#include "em_profile.h"
#include "em_test_vectors.h"
#include "ember.h"

#ifndef EM_BENCH_PROFILED
#define EM_BENCH_PROFILED 1
#endif

static uint8_t arena[EM_MODEL_ARENA_BYTES] __attribute__((aligned(16), section(EM_MODEL_ARENA_SECTION)));
#if EM_BENCH_PROFILED
static em_profile_entry entries[EM_BENCH_OPERATORS];
#endif

static int fail(const char *what, em_status status)
{
    em_print("EM error ");
    em_print(what);
    em_print(" ");
    em_print(em_status_name(status));
    em_print("\n");
    return (int)status;
}

static void print_output(const char *label, const em_tensor *output)
{
    em_print(label);
    em_print_hex(output->data, output->size);
    em_print("\n");
}

int em_app_main(void)
{
    em_program program;
#if EM_SEALED /* the default: the program the build verified on the host, bound by its CRC-32 */
    em_status status = em_program_open_sealed(&program, em_model_program, em_model_program_size, em_model_program_crc32);
#else /* verify=1 */
    em_status status = em_program_load(&program, em_model_program, em_model_program_size);
#endif
    if (status != EM_OK) {
        return fail("load", status);
    }
    uint8_t *const arenas[1] = {arena};
    const uint32_t sizes[1] = {sizeof arena};
    em_tensor input, output;
    if ((status = em_program_input(&program, 0, arenas, &input)) != EM_OK
        || (status = em_program_output(&program, 0, arenas, &output)) != EM_OK) {
        return fail("io", status);
    }
    if (input.size != EM_BENCH_INPUT_BYTES || program.n_operators > EM_BENCH_OPERATORS) {
        return fail("input", EM_ERR_BAD_ARGUMENT);
    }
    em_print("EM bench program=");
    em_print_u64(em_model_program_size);
    em_print(" arena=");
    em_print_u64(em_program_arena_size(&program, 0));
    em_print(" operators=");
    em_print_u64(program.n_operators);
    em_print(" unit=");
    em_print(em_bsp_counter_unit());
    em_print("\n");

    memcpy(input.data, em_bench_input, EM_BENCH_INPUT_BYTES);
    const uint64_t start = em_bsp_counter_read();
    status = em_program_invoke(&program, arenas, sizes, 1);
    const uint64_t count = em_bsp_counter_read() - start - em_bsp_counter_overhead();
    if (status != EM_OK) {
        return fail("invoke", status);
    }
    em_print("EM bench invoke count=");
    em_print_u64(count);
    print_output(" output=", &output);

#if EM_BENCH_PROFILED
    /* The plan may reuse the input's bytes for later tensors: give the input again. */
    memcpy(input.data, em_bench_input, EM_BENCH_INPUT_BYTES);
    em_profile profile = {em_bsp_counter_read, em_bsp_counter_overhead(), entries, EM_BENCH_OPERATORS, 0u};
    status = em_program_invoke_profiled(&program, arenas, sizes, 1, &profile);
    for (uint32_t i = 0; i < profile.count; i++) {
        em_print("EM bench op ");
        em_print_u64(i);
        em_print(" ");
        em_print(entries[i].name);
        em_print(" count=");
        em_print_u64(entries[i].count);
        em_print("\n");
    }
    if (status != EM_OK) {
        return fail("profiled invoke", status);
    }
    print_output("EM bench profiled output=", &output);
#endif
    em_print("EM bench stack peak=");
    em_print_u64(em_bsp_stack_peak());
    em_print("\nEM done\n");
    return 0;
}
