/**
 * @file input_kept_driver.c
 * @brief Host test driver: does an invoke leave each program input as em_program_input_kept() says?
 *
 *     input_kept_driver PROGRAM...
 *
 * For each program: load it, fill every input with a pattern, invoke, and print one line per
 * input, `<file> input <i>: kept=<0|1> intact=<0|1>` (intact: its bytes are still the pattern).
 * kept=1 with intact=0 is a plan that claims an input it overwrites; the test also wants
 * programs whose inputs are consumed (kept=0, intact=0), so the flag is not vacuous.
 */
#include <stdio.h>
#include <string.h>

#include "ember.h"

static unsigned char bytes[1 << 20] __attribute__((aligned(16)));
static uint8_t pool[EM_MAX_ARENAS][1 << 20] __attribute__((aligned(16)));

static uint8_t pattern(uint32_t input, uint32_t k)
{
    return (uint8_t)(k * 7u + input * 31u + 3u);
}

int main(int argc, char **argv)
{
    for (int a = 1; a < argc; a++) {
        FILE *f = fopen(argv[a], "rb");
        if (f == NULL) {
            return 74;
        }
        const size_t size = fread(bytes, 1, sizeof bytes, f);
        fclose(f);
        em_program p;
        em_status s = em_program_load(&p, bytes, size);
        uint8_t *arenas[EM_MAX_ARENAS];
        uint32_t sizes[EM_MAX_ARENAS];
        for (uint32_t i = 0; i < EM_MAX_ARENAS; i++) {
            arenas[i] = pool[i];
            sizes[i] = sizeof pool[i];
            memset(pool[i], 0, sizeof pool[i]);
        }
        if (s == EM_OK) s = em_program_copy_constants(&p, arenas, sizes, EM_MAX_ARENAS);
        em_tensor t;
        for (uint32_t i = 0; s == EM_OK && i < p.n_inputs; i++) {
            s = em_program_input(&p, i, arenas, &t);
            for (uint32_t k = 0; s == EM_OK && k < t.size; k++) {
                ((uint8_t *)t.data)[k] = pattern(i, k);
            }
        }
        if (s == EM_OK) s = em_program_invoke(&p, arenas, sizes, EM_MAX_ARENAS);
        if (s != EM_OK) {
            printf("%s: %s\n", argv[a], em_status_name(s));
            continue;
        }
        for (uint32_t i = 0; i < p.n_inputs; i++) {
            int intact = em_program_input(&p, i, arenas, &t) == EM_OK;
            for (uint32_t k = 0; intact && k < t.size; k++) {
                intact = ((const uint8_t *)t.data)[k] == pattern(i, k);
            }
            printf("%s input %u: kept=%d intact=%d\n", argv[a], (unsigned)i, (int)em_program_input_kept(&p, i), intact);
        }
    }
    return 0;
}
