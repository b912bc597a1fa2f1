/**
 * @file console_text.c
 * @brief Text helpers of the Cortex-M port over the board's em_bsp_console_write(), whichever
 *        UART provides it (CMSDK on the QEMU boards, SCI / DW UART on silicon): the fault
 *        handler and the silicon exit print with them.
 */
#include <stddef.h>
#include <stdint.h>

#include "em_bsp.h"
#include "em_cortex_m.h"

void em_cortex_m_console_puts(const char *text)
{
    size_t len = 0;
    while (text[len] != '\0') {
        ++len;
    }
    em_bsp_console_write(text, len);
}

void em_cortex_m_console_put_hex(uint32_t value)
{
    static const char digits[] = "0123456789abcdef";
    char text[8];
    for (int i = 7; i >= 0; --i) {
        text[i] = digits[value & 0xFu];
        value >>= 4;
    }
    em_bsp_console_write(text, sizeof text);
}
