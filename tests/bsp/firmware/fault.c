/* Faults in the way named by the first command-line word: "udf" (undefined instruction),
   "bus" (read of EM_TEST_UNMAPPED_ADDRESS, where the board has nothing), "stack" (unbounded
   recursion into MSPLIM or the MPU stack guard). Must never return: the BSP's fault handler
   reports and exits non-zero. */
#include <string.h>

#include "em_bsp.h"

#ifndef EM_TEST_UNMAPPED_ADDRESS
#define EM_TEST_UNMAPPED_ADDRESS 0x1FFFFF00u /* AN547: below DTCM, above the ITCM secure alias */
#endif

static volatile uint32_t sink;

__attribute__((noinline)) static uint32_t recurse(volatile uint32_t *depth)
{
    volatile uint32_t frame[16];
    frame[0] = *depth + 1u;
    *depth = frame[0];
    return recurse(depth) + frame[0];
}

int em_app_main(void)
{
    char storage[64];
    const char *argv[2];
    int argc = em_bsp_args(storage, sizeof storage, argv, 2);
    const char *kind = argc > 0 ? argv[0] : "udf";
    if (strcmp(kind, "bus") == 0) {
        sink = *(volatile uint32_t *)EM_TEST_UNMAPPED_ADDRESS;
    } else if (strcmp(kind, "stack") == 0) {
        volatile uint32_t depth = 0;
        sink = recurse(&depth);
    } else {
        __asm volatile("udf #0");
    }
    return 0; /* not reached if the fault is reported */
}
