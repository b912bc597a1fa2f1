/* Prints every decimal argument back through em_print_u64 / em_print_i32 (bsp/common/em_print.c),
 * one per line, with a console that writes to stdout: tests/bsp/test_print.py compares. */
#include <stdio.h>
#include <stdlib.h>

#include "em_bsp.h"
#include "em_print.h"

void em_bsp_console_write(const char *data, size_t len) { fwrite(data, 1, len, stdout); }

int main(int argc, char **argv) {
    for (int i = 1; i < argc; ++i) {
        if (argv[i][0] == 'i') {
            em_print_i32((int32_t)strtol(argv[i] + 1, NULL, 10));
        } else {
            em_print_u64(strtoull(argv[i], NULL, 10));
        }
        em_print("\n");
    }
    return 0;
}
