/* One object of every kind the link map places, so a test can check where each lands:
   code, rodata, data, bss, a model program (.em_program) and an arena in each arena region. */
#include "em_bsp.h"

__attribute__((section(".em_program"), aligned(16))) const uint8_t model_program[64] = {1, 2, 3};
__attribute__((section(".em_arena.dtcm"), aligned(16))) uint8_t arena_dtcm[256];
__attribute__((section(".em_arena.isram"), aligned(16))) uint8_t arena_isram[256];
__attribute__((section(".em_arena.sram"), aligned(16))) uint8_t arena_sram[256];
__attribute__((section(".em_arena.ddr"), aligned(16))) uint8_t arena_ddr[256];

static const uint32_t rodata_table[4] = {11, 22, 33, 44};
uint32_t data_word = 7;
uint32_t bss_word;

int em_app_main(void)
{
    /* Touch everything so that --gc-sections keeps it, and check the initialisers. */
    const volatile uint8_t *program = model_program; /* volatile: no constant folding */
    uint32_t sum = program[2] + rodata_table[3] + data_word + bss_word;
    arena_dtcm[0] = arena_isram[0] = arena_sram[0] = arena_ddr[0] = (uint8_t)sum;
    sum += arena_dtcm[0] + arena_isram[0] + arena_sram[0] + arena_ddr[0];
    return sum == (3u + 44u + 7u + 0u) * 5u ? 0 : 1;
}
