/**
 * @file em_cortex_m.h
 * @brief Pieces of the shared Cortex-M BSP (bsp/cortex_m/) used between its own files; not part
 *        of em_bsp.h.
 *
 * bsp/cortex_m/ is the common port of the Arm FPGA boards that Ember runs in QEMU (corstone300 =
 * MPS3 AN547, mps2_an385, mps2_an386, mps2_an505): Armv7-M and Armv8-M startup and fault
 * handling, the CMSDK APB UART console, the SysTick instruction counter and semihosting. A
 * board's board.yaml lists these files in `sources`; what differs between boards (addresses,
 * clocks) arrives as -D defines generated from board.yaml, and what differs between
 * architectures is chosen from the compiler's own macros (EM_CORTEX_M_HAS_MSPLIM and the FPU
 * macros below), so no board passes flags of its own.
 */
#ifndef EM_CORTEX_M_H
#define EM_CORTEX_M_H

#include <stdint.h>

/* Armv8-M Mainline and Armv8.1-M have the stack-limit register MSPLIM; Armv7-M does not, and
   guards its stack with an MPU region instead (see startup.c). */
#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
#define EM_CORTEX_M_HAS_MSPLIM 1
#else
#define EM_CORTEX_M_HAS_MSPLIM 0
#endif

/** Bytes at the bottom of the stack that the MPU makes inaccessible where there is no MSPLIM
    (a power of two; the linker script aligns .stack to it). */
#define EM_CORTEX_M_STACK_GUARD_BYTES 256u

/** Enables the CMSDK UART transmitter (board.yaml console.base). Called once by the reset handler. */
void em_cortex_m_console_init(void);

/** Starts SysTick free-running on the processor clock. Called once by the reset handler. */
void em_cortex_m_counter_init(void);

/** SysTick exception: counts counter wraps (written in assembly, fixed instruction count). */
void em_cortex_m_systick_handler(void);

/** Every fault and unexpected exception: prints a short report and exits non-zero. */
void em_cortex_m_fault_handler(void);

/** Writes a NUL-terminated string to the console. */
void em_cortex_m_console_puts(const char *text);

/** Writes @p value as 8 hex digits to the console. */
void em_cortex_m_console_put_hex(uint32_t value);

/**
 * Counter delta, in counter units, of two em_bsp_counter_read() calls with nothing between
 * them but saving the first result (2 register moves). This is em_bsp_counter_overhead().
 */
uint64_t em_cortex_m_time_empty(void);

/**
 * Counter delta around `fn(arg)` called as `mov r0, arg; blx fn`. Subtract
 * em_bsp_counter_overhead() and 2 (the mov and the blx) to get fn's own instruction count.
 */
uint64_t em_cortex_m_time_call(void (*fn)(uint32_t), uint32_t arg);

#endif /* EM_CORTEX_M_H */
