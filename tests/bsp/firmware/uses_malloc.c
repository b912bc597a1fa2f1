/* Must fail to link: firmware has no heap. */
#include <stdlib.h>

#include "em_bsp.h"

int em_app_main(void)
{
    void *p = malloc(16);
    return p == NULL;
}
