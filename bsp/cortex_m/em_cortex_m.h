/**
 * @file corstone300_internal.h
 * @brief Pieces of the Corstone-300 BSP shared between its own files (not part of em_bsp.h).
 */
#ifndef CORSTONE300_INTERNAL_H
#define CORSTONE300_INTERNAL_H

#include <stdint.h>

/** Enables the CMSDK UART0 transmitter. Called once by the reset handler. */
void em_corstone300_console_init(void);

/** Starts SysTick free-running on the processor clock. Called once by the reset handler. */
void em_corstone300_counter_init(void);

/** SysTick exception: counts counter wraps (written in assembly, fixed instruction count). */
void em_corstone300_systick_handler(void);

/** Every fault and unexpected exception: prints a short report and exits non-zero. */
void em_corstone300_fault_handler(void);

/** Writes a NUL-terminated string to the console. */
void em_corstone300_console_puts(const char *text);

/** Writes @p value as 8 hex digits to the console. */
void em_corstone300_console_put_hex(uint32_t value);

/**
 * Counter delta, in counter units, of two em_bsp_counter_read() calls with nothing between
 * them but saving the first result (2 register moves). This is em_bsp_counter_overhead().
 */
uint64_t em_corstone300_time_empty(void);

/**
 * Counter delta around `fn(arg)` called as `mov r0, arg; blx fn`. Subtract
 * em_bsp_counter_overhead() and 2 (the mov and the blx) to get fn's own instruction count.
 */
uint64_t em_corstone300_time_call(void (*fn)(uint32_t), uint32_t arg);

#endif /* CORSTONE300_INTERNAL_H */
