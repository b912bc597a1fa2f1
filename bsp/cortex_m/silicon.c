/**
 * @file silicon.c
 * @brief Exit, host files and arguments on a board without semihosting; console helpers.
 *
 * Replaces bsp/cortex_m/semihosting.c on silicon. Semihosting needs a debugger that services
 * `bkpt 0xab`; without one the breakpoint escalates to a HardFault, so nothing here issues it
 * (tests/bsp/test_silicon_boards.py checks that no such instruction is in the firmware).
 *
 * - em_bsp_exit prints `EM exit <status>`, drains the console and stops: `bkpt 0` if a debugger
 *   is attached (DHCSR.C_DEBUGEN, so the debugger sees the stop), then `wfi` forever.
 * - em_bsp_file_read / _write / _read_part / _append return -1 (there is no host file system).
 * - em_bsp_args returns -1 (there is no command line).
 */
#include <stddef.h>
#include <stdint.h>

#include "em_bsp.h"
#include "em_cortex_m.h"
#include "em_silicon.h"

/* Armv8-M ARM (DDI0553): Debug Halting Control and Status Register, C_DEBUGEN = bit 0. */
#define DHCSR (*(volatile uint32_t *)0xE000EDF0u)
#define DHCSR_C_DEBUGEN (1u << 0)

/* Armv8-M ARM: Configuration and Control Register (IC = bit 17), ICache Invalidate All. */
#define SCB_CCR (*(volatile uint32_t *)0xE000ED14u)
#define SCB_ICIALLU (*(volatile uint32_t *)0xE000EF50u)
#define SCB_CCR_IC (1u << 17)

void em_silicon_enable_icache(void)
{
    __asm volatile("dsb\n\tisb" : : : "memory");
    SCB_ICIALLU = 0u;
    __asm volatile("dsb\n\tisb" : : : "memory");
    SCB_CCR |= SCB_CCR_IC;
    __asm volatile("dsb\n\tisb" : : : "memory");
}

void em_bsp_exit(int status)
{
    char text[12];
    size_t n = 0;
    uint32_t magnitude = status < 0 ? 0u - (uint32_t)status : (uint32_t)status;
    do {
        text[sizeof text - 1 - n++] = (char)('0' + magnitude % 10u);
        magnitude /= 10u;
    } while (magnitude != 0u);
    if (status < 0) {
        text[sizeof text - 1 - n++] = '-';
    }
    em_cortex_m_console_puts("EM exit ");
    em_bsp_console_write(&text[sizeof text - n], n);
    em_cortex_m_console_puts("\n");
    em_silicon_console_flush();
    if (DHCSR & DHCSR_C_DEBUGEN) {
        __asm volatile("bkpt 0");
    }
    for (;;) {
        __asm volatile("wfi");
    }
}

int em_bsp_file_read(const char *path, void *buf, size_t capacity, size_t *len)
{
    (void)path;
    (void)buf;
    (void)capacity;
    (void)len;
    return -1;
}

int em_bsp_file_write(const char *path, const void *buf, size_t len)
{
    (void)path;
    (void)buf;
    (void)len;
    return -1;
}

int em_bsp_file_read_part(const char *path, size_t offset, void *buf, size_t len, size_t *file_len)
{
    (void)path;
    (void)offset;
    (void)buf;
    (void)len;
    (void)file_len;
    return -1;
}

int em_bsp_file_append(const char *path, const void *buf, size_t len)
{
    (void)path;
    (void)buf;
    (void)len;
    return -1;
}

int em_bsp_args(char *storage, size_t capacity, const char **argv, int max_args)
{
    (void)storage;
    (void)capacity;
    (void)argv;
    (void)max_args;
    return -1;
}
