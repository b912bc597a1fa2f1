/**
 * @file fuzz_link.c
 * @brief libFuzzer target: the serving firmware's serial link (apps/common/firmware/em_link.c)
 *        reading arbitrary bytes, over a real program (its path in EM_FUZZ_PROGRAM).
 *
 * The bytes are the console's input; when they run out the console is quiet for a few seconds
 * of board time (so a frame cut short meets its byte deadline) and then closed, which ends
 * em_link_serve(). Built with FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, which takes any CRC, so
 * mutated requests reach the handlers. Any crash, hang or sanitizer report is a link bug: a
 * request must never write outside its tensor or read past the program. The arenas are heap
 * blocks of exactly the planned size (a host harness, not firmware) so AddressSanitizer sees it.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "em_bsp.h"
#include "em_link.h"
#include "ember.h"

#define QUIET_POLLS 8            /* polls that find no byte once the input ran out, then closed */
#define BOARD_HZ 1000000u        /* the counter's rate: 1 tick per microsecond of board time */
#define TICKS_PER_READ 250000u   /* each counter read moves board time on by 250 ms */

static const uint8_t *input;
static size_t input_size, input_at;
static int quiet_polls;
static uint64_t ticks;

/* ---- the BSP the link runs on: the fuzz input as its console ---- */

void em_bsp_console_write(const char *text, size_t len)
{
    uint8_t sum = 0; /* every byte the link sends is read: AddressSanitizer checks each one */
    for (size_t i = 0; i < len; i++) {
        sum = (uint8_t)(sum + (uint8_t)text[i]);
    }
    volatile uint8_t sink = sum;
    (void)sink;
}

int em_bsp_console_poll(void)
{
    if (input_at < input_size) {
        return input[input_at++];
    }
    return quiet_polls++ < QUIET_POLLS ? -1 : -2;
}

uint64_t em_bsp_counter_read(void) { return ticks += TICKS_PER_READ; }
uint64_t em_bsp_counter_hz(void) { return BOARD_HZ; }
uint64_t em_bsp_counter_overhead(void) { return 0u; }
const char *em_bsp_counter_unit(void) { return "ticks (fuzz)"; }

/* ---- the program, loaded once ---- */

static em_program program;
static uint8_t *arenas[EM_MAX_ARENAS];
static uint32_t arena_sizes[EM_MAX_ARENAS];
static em_link_model model;

static em_status reset_state(void) /* RESET_STATE */
{
    return em_program_reset_state(&program, arenas, arena_sizes, EM_MAX_ARENAS);
}

static uint8_t *read_program(const char *path, size_t *size)
{
    FILE *f = path != NULL ? fopen(path, "rb") : NULL;
    if (f == NULL) {
        fprintf(stderr, "fuzz_link: set EM_FUZZ_PROGRAM to a program file\n");
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *bytes = NULL;
    if (posix_memalign((void **)&bytes, 16, *size) != 0 || fread(bytes, 1, *size, f) != *size) {
        exit(2);
    }
    fclose(f);
    return bytes;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    size_t size = 0;
    const uint8_t *bytes = read_program(getenv("EM_FUZZ_PROGRAM"), &size);
    em_status status = em_program_load(&program, bytes, size);
    for (uint32_t i = 0; status == EM_OK && i < EM_MAX_ARENAS; i++) {
        arena_sizes[i] = em_program_arena_size(&program, i);
        if (posix_memalign((void **)&arenas[i], 16, arena_sizes[i] > 0u ? arena_sizes[i] : 1u) != 0) {
            exit(2);
        }
        memset(arenas[i], 0x5a, arena_sizes[i]);
    }
    if (status == EM_OK) {
        status = em_program_copy_constants(&program, arenas, arena_sizes, EM_MAX_ARENAS);
    }
    if (status == EM_OK) { /* a program with state starts from its reset, as link_main.c's */
        status = reset_state();
    }
    if (status != EM_OK) {
        fprintf(stderr, "fuzz_link: the program does not load: %s\n", em_status_name(status));
        exit(2);
    }
    model = (em_link_model){.load_status = status, .program = &program, .arenas = arenas,
                            .arena_sizes = arena_sizes, .n_arenas = EM_MAX_ARENAS, .app_name = "fuzz",
                            .reset_state = reset_state};
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    input = data, input_size = size, input_at = 0u, quiet_polls = 0;
    (void)em_link_serve(&model); /* returns when the console closes, or at SHUTDOWN */
    return 0;
}
