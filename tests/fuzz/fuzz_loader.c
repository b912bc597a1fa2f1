/**
 * @file fuzz_loader.c
 * @brief libFuzzer target: em_program_load() on arbitrary bytes, then (when it succeeds)
 *        em_program_input/output and em_program_invoke() over the program's arenas.
 *
 * Build: clang -fsanitize=fuzzer,address,undefined (see README.md). Any crash, sanitizer report
 * or out-of-bounds access is a loader bug: load must reject everything invoke cannot run safely.
 * The program and every arena get heap blocks of exactly their size (this is a host test
 * harness, not firmware), so AddressSanitizer sees a read one byte past the program's end or a
 * write from one arena into the next.
 *
 * Every input gets a matching CRC-32 trailer before it is loaded (its last four bytes are
 * overwritten with the CRC-32 of the rest): the trailer check would refuse nearly every mutation
 * at once, and what needs fuzzing is the structure behind it. The trailer's own check is
 * tested byte by byte in tests/runtime/test_loader.py.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ember.h"

#define FUZZ_ARENA_LIMIT (16u << 20) /* larger plans are valid but not worth the harness's time */

static void *exact_block(size_t size)
{
    void *block = NULL;
    return posix_memalign(&block, 16, size > 0u ? size : 1u) == 0 ? block : NULL;
}

static void release(uint8_t *program_bytes, uint8_t **arenas)
{
    for (uint32_t i = 0; i < EM_MAX_ARENAS; i++) {
        free(arenas[i]);
    }
    free(program_bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *program_bytes = exact_block(size);
    uint8_t *arenas[EM_MAX_ARENAS] = {NULL};
    if (program_bytes == NULL) {
        return 0;
    }
    memcpy(program_bytes, data, size);
    if (size >= 12u) {
        const uint32_t crc = em_program_crc32(program_bytes, size - 4u);
        for (uint32_t k = 0; k < 4u; k++) {
            program_bytes[size - 4u + k] = (uint8_t)(crc >> (8u * k));
        }
    }
    em_program program;
    if (em_program_load(&program, program_bytes, size) != EM_OK) {
        release(program_bytes, arenas);
        return 0;
    }
    uint32_t sizes[EM_MAX_ARENAS];
    for (uint32_t i = 0; i < EM_MAX_ARENAS; i++) {
        sizes[i] = em_program_arena_size(&program, i);
        arenas[i] = sizes[i] <= FUZZ_ARENA_LIMIT ? exact_block(sizes[i]) : NULL;
        if (arenas[i] == NULL) {
            release(program_bytes, arenas);
            return 0;
        }
        memset(arenas[i], 0x5a, sizes[i]);
    }
    (void)em_program_copy_constants(&program, arenas, sizes, EM_MAX_ARENAS); /* pinned constants, if any */
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
    release(program_bytes, arenas);
    return 0;
}
