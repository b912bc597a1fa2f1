/* Never finishes: the runner's timeout must kill the emulator. */
#include "em_bsp.h"

int em_app_main(void)
{
    for (;;) {
        __asm volatile("" ::: "memory");
    }
}
