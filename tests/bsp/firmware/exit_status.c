/* Returns 3: QEMU's exit code must be 3 (semihosting SYS_EXIT_EXTENDED). */
#include "em_bsp.h"

int em_app_main(void)
{
    return 3;
}
