/**
 * @file em_run_console.c
 * @brief Decimal formatting and string output for em_run (see em_run_console.h).
 */
#include "em_run_console.h"

#include <string.h>

#include "em_bsp.h"

void em_run_print(const char *text)
{
    em_bsp_console_write(text, strlen(text));
}

void em_run_print_u64(uint64_t value)
{
    char digits[20];
    size_t n = 0;
    do {
        digits[sizeof digits - 1u - n] = (char)('0' + (int)(value % 10u));
        value /= 10u;
        n++;
    } while (value != 0u);
    em_bsp_console_write(digits + sizeof digits - n, n);
}

void em_run_print_line_u64(const char *label, uint64_t value)
{
    em_run_print(label);
    em_run_print_u64(value);
    em_run_print("\n");
}
