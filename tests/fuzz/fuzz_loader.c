/**
 * @file fuzz_loader.c
 * @brief libFuzzer target: em_program_load() on arbitrary bytes, then (when it succeeds)
 *        em_program_input/output and em_program_invoke() over static arenas.
 *
 * Build: clang -fsanitize=fuzzer,address,undefined (see README.md). Any crash, sanitizer report
 * or out-of-bounds access is a loader bug: load must reject everything invoke cannot run safely.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ember.h"

#define FUZZ_PROGRAM_CAPACITY (1u << 20)
#define FUZZ_ARENA_CAPACITY (1u << 20)

static uint8_t program_bytes[FUZZ_PROGRAM_CAPACITY] __attribute__((aligned(16)));
static uint8_t arena_pool[FUZZ_ARENA_CAPACITY] __attribute__((aligned(16)));

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_PROGRAM_CAPACITY) {
        return 0;
    }
    memcpy(program_bytes, data, size);
    em_program program;
    if (em_program_load(&program, program_bytes, size) != EM_OK) {
        return 0;
    }
    uint8_t *arenas[EM_MAX_ARENAS];
    uint32_t sizes[EM_MAX_ARENAS];
    uint64_t used = 0;
    for (uint32_t i = 0; i < EM_MAX_ARENAS; i++) {
        sizes[i] = em_program_arena_size(&program, i);
        const uint64_t padded = ((uint64_t)sizes[i] + 15u) & ~(uint64_t)15u;
        if (used + padded > FUZZ_ARENA_CAPACITY) {
            return 0; /* valid, but more memory than this harness has */
        }
        arenas[i] = arena_pool + used;
        used += padded;
    }
    memset(arena_pool, 0x5a, (size_t)used);
    em_tensor t;
    for (uint32_t i = 0; i < program.n_inputs; i++) {
        if (em_program_input(&program, i, arenas, &t) == EM_OK && t.data != NULL) {
            memset(t.data, (int)i, t.size);
        }
    }
    (void)em_program_invoke(&program, arenas, sizes, EM_MAX_ARENAS);
    for (uint32_t i = 0; i < program.n_outputs; i++) {
        volatile uint8_t sink = 0;
        if (em_program_output(&program, i, arenas, &t) == EM_OK && t.size > 0u) {
            sink = ((const uint8_t *)t.data)[t.size - 1u];
        }
        (void)sink;
    }
    return 0;
}
