/* One object of every kind the link map places, so a test can check where each lands:
   code, rodata, data, bss, a model program (.em_program) and an arena in each arena region.
   The regions come from board.yaml as -DEM_TEST_ARENA_LIST=ARENA(name)ARENA(name)... */
#include "em_bsp.h"

#ifndef EM_TEST_ARENA_LIST
#define EM_TEST_ARENA_LIST ARENA(dtcm) ARENA(isram) ARENA(sram) ARENA(ddr) /* corstone300 */
#endif

__attribute__((section(".em_program"), aligned(16))) const uint8_t model_program[64] = {1, 2, 3};

#define ARENA(region) __attribute__((section(".em_arena." #region), aligned(16))) uint8_t arena_##region[256];
EM_TEST_ARENA_LIST
#undef ARENA

#define ARENA(region) +1
enum { ARENA_COUNT = 0 EM_TEST_ARENA_LIST };
#undef ARENA

static const uint32_t rodata_table[4] = {11, 22, 33, 44};
uint32_t data_word = 7;
uint32_t bss_word;

int em_app_main(void)
{
    /* Touch everything so that --gc-sections keeps it, and check the initialisers. */
    const volatile uint8_t *program = model_program; /* volatile: no constant folding */
    uint32_t sum = program[2] + rodata_table[3] + data_word + bss_word;
    uint32_t total = sum;
#define ARENA(region) arena_##region[0] = (uint8_t)sum;
    EM_TEST_ARENA_LIST
#undef ARENA
#define ARENA(region) total += *(volatile uint8_t *)&arena_##region[0];
    EM_TEST_ARENA_LIST
#undef ARENA
    return total == (3u + 44u + 7u + 0u) * (1u + ARENA_COUNT) ? 0 : 1;
}
