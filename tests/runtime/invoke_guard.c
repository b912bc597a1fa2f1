/**
 * @file invoke_guard.c
 * @brief Host test driver: an em_program that em_program_load() did not accept is never run.
 *
 *     invoke_guard VALID_PROGRAM
 *
 * Checks, printing one "ok <name>" line per check and exiting non-zero at the first failure:
 * invoke / input / output on a zeroed struct, on stack garbage, after a failed load (corrupted
 * copy of the program), after a failed load over a previously loaded struct, and on a loaded
 * struct whose fields were edited, all return EM_ERR_BAD_ARGUMENT; the valid program still runs.
 */
#include <stdio.h>
#include <string.h>

#include "ember.h"

static unsigned char bytes[1 << 16] __attribute__((aligned(16)));
static unsigned char broken[1 << 16] __attribute__((aligned(16)));
static uint8_t arena[1 << 16] __attribute__((aligned(16)));

static int failures;

static void expect(const char *name, em_status got, em_status want)
{
    if (got != want) {
        printf("FAIL %s: %s, expected %s\n", name, em_status_name(got), em_status_name(want));
        failures++;
    } else {
        printf("ok %s\n", name);
    }
}

/** invoke, input and output on @p p must all be refused. */
static void expect_refused(const char *name, const em_program *p)
{
    uint8_t *arenas[EM_MAX_ARENAS] = {arena, arena, arena, arena};
    uint32_t sizes[EM_MAX_ARENAS] = {sizeof arena, sizeof arena, sizeof arena, sizeof arena};
    em_tensor t;
    char label[128];
    snprintf(label, sizeof label, "%s/invoke", name);
    expect(label, em_program_invoke(p, arenas, sizes, EM_MAX_ARENAS), EM_ERR_BAD_ARGUMENT);
    snprintf(label, sizeof label, "%s/input", name);
    expect(label, em_program_input(p, 0, arenas, &t), EM_ERR_BAD_ARGUMENT);
    snprintf(label, sizeof label, "%s/output", name);
    expect(label, em_program_output(p, 0, arenas, &t), EM_ERR_BAD_ARGUMENT);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        return 64;
    }
    FILE *f = fopen(argv[1], "rb");
    if (f == NULL) {
        return 74;
    }
    const size_t size = fread(bytes, 1, sizeof bytes, f);
    fclose(f);
    uint8_t *arenas[EM_MAX_ARENAS] = {arena, arena, arena, arena};
    uint32_t sizes[EM_MAX_ARENAS] = {sizeof arena, sizeof arena, sizeof arena, sizeof arena};

    em_program p;
    memset(&p, 0, sizeof p);
    expect_refused("zeroed", &p);
    memset(&p, 0x5a, sizeof p);
    expect_refused("garbage", &p);
    expect_refused("null", NULL);

    /* A failed load: the program with its root offset overwritten (its CRC-32 trailer refuses it). */
    memcpy(broken, bytes, size);
    memset(broken, 0xff, 4);
    expect("broken/load", em_program_load(&p, broken, size), EM_ERR_PROGRAM_CORRUPT);
    expect_refused("broken", &p);

    /* A struct that held a loaded program, then a failed load into it. */
    expect("valid/load", em_program_load(&p, bytes, size), EM_OK);
    expect("valid/invoke", em_program_invoke(&p, arenas, sizes, EM_MAX_ARENAS), EM_OK);
    expect("reload_broken/load", em_program_load(&p, broken, size), EM_ERR_PROGRAM_CORRUPT);
    expect_refused("reload_broken", &p);

    /* A loaded struct edited by hand (more operators than verified; another buffer). */
    expect("edited/load", em_program_load(&p, bytes, size), EM_OK);
    em_program edited = p;
    edited.n_operators += 1;
    expect_refused("edited_n_operators", &edited);
    edited = p;
    edited.data = broken;
    expect_refused("edited_data", &edited);

    /* A copy of a loaded struct is a loaded program. */
    em_program copy = p;
    expect("copy/invoke", em_program_invoke(&copy, arenas, sizes, EM_MAX_ARENAS), EM_OK);
    return failures == 0 ? 0 : 1;
}
