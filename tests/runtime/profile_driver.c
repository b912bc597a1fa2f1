/**
 * @file profile_driver.c
 * @brief Host test driver of em_program_invoke_profiled() (em_profile.h; built with EM_PROFILE=1).
 *
 *     profile_driver PROGRAM
 *
 * A fake counter advances by 7 at every read, so an operator measures 7 - overhead. Prints
 * "op <i> <opcode> <name> <count>" per operator of a profiled invoke, then "ok <check>" or
 * "FAIL <check>" lines: the profiled output equals a plain invoke's; a table smaller than the
 * program is refused before anything runs; NULL profile / read / entries are refused; an
 * overhead above the measured span clamps to 0.
 */
#include <stdio.h>
#include <string.h>

#include "em_profile.h"
#include "ember.h"

static unsigned char bytes[1 << 16] __attribute__((aligned(16)));
static uint8_t arena[1 << 16] __attribute__((aligned(16)));
static uint8_t plain_output[1 << 12];
static uint64_t ticks;
static uint32_t reads;

static uint64_t fake_counter(void)
{
    reads++;
    return ticks += 7u;
}

static int failures;

static void check(const char *name, int ok)
{
    printf("%s %s\n", ok ? "ok" : "FAIL", name);
    failures += !ok;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (f == NULL) {
        return 2;
    }
    const size_t size = fread(bytes, 1, sizeof bytes, f);
    fclose(f);
    em_program program;
    if (em_program_load(&program, bytes, size) != EM_OK) {
        return 3;
    }
    uint8_t *const arenas[1] = {arena};
    const uint32_t sizes[1] = {sizeof arena};
    em_tensor input, output;
    em_program_input(&program, 0, arenas, &input);
    em_program_output(&program, 0, arenas, &output);
    float *x = (float *)input.data;
    for (uint32_t i = 0; i < input.size / sizeof(float); i++) {
        x[i] = (float)((int32_t)(i * 37u % 19u) - 9) * 0.25f;
    }
    uint8_t saved_input[1 << 12];
    memcpy(saved_input, input.data, input.size);
    check("plain invoke", em_program_invoke(&program, arenas, sizes, 1) == EM_OK);
    memcpy(plain_output, output.data, output.size);

    em_profile_entry entries[8];
    em_profile profile = {fake_counter, 3u, entries, 8u, 0u};
    memcpy(input.data, saved_input, input.size);
    memset(output.data, 0, output.size);
    check("profiled invoke", em_program_invoke_profiled(&program, arenas, sizes, 1, &profile) == EM_OK);
    for (uint32_t i = 0; i < profile.count; i++) {
        printf("op %u %u %s %llu\n", (unsigned)i, (unsigned)entries[i].opcode, entries[i].name,
               (unsigned long long)entries[i].count);
    }
    check("one entry per operator", profile.count == program.n_operators);
    check("two reads per operator", reads == 2u * program.n_operators);
    check("same output as a plain invoke", memcmp(plain_output, output.data, output.size) == 0);

    reads = 0u;
    profile.capacity = program.n_operators - 1u;
    check("small table refused", em_program_invoke_profiled(&program, arenas, sizes, 1, &profile)
                                     == EM_ERR_BAD_ARGUMENT && reads == 0u && profile.count == 0u);
    profile.capacity = 8u;
    check("NULL profile refused",
          em_program_invoke_profiled(&program, arenas, sizes, 1, NULL) == EM_ERR_BAD_ARGUMENT);
    em_profile no_read = {NULL, 0u, entries, 8u, 0u};
    check("NULL read refused",
          em_program_invoke_profiled(&program, arenas, sizes, 1, &no_read) == EM_ERR_BAD_ARGUMENT);
    em_profile no_entries = {fake_counter, 0u, NULL, 8u, 0u};
    check("NULL entries refused",
          em_program_invoke_profiled(&program, arenas, sizes, 1, &no_entries) == EM_ERR_BAD_ARGUMENT);
    profile.overhead = 100u;
    memcpy(input.data, saved_input, input.size);
    check("overhead clamps", em_program_invoke_profiled(&program, arenas, sizes, 1, &profile) == EM_OK
                                 && entries[0].count == 0u);
    return failures == 0 ? 0 : 1;
}
