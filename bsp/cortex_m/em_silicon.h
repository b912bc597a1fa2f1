/**
 * @file em_silicon.h
 * @brief Pieces shared by the Cortex-M boards that run on silicon, not under QEMU (ra8d1, alif_e8).
 *
 * These boards reuse bsp/cortex_m/startup.c and fault.c. What QEMU gives through semihosting
 * (exit code, host files, command line) does not exist on a board without a debugger, so
 * silicon.c replaces bsp/cortex_m/semihosting.c: no `bkpt 0xab` is linked at all. The counter
 * is the DWT cycle counter (counter_dwt.c) instead of the SysTick instruction counter.
 *
 * (They live in bsp/ra8d1/ and alif_e8's board.yaml names them from there; they belong in
 * bsp/cortex_m/ once that port takes silicon boards.)
 */
#ifndef EM_SILICON_H
#define EM_SILICON_H

#include <stdint.h>

/** Invalidates and enables the instruction cache (Armv8-M / Armv8.1-M ICIALLU, CCR.IC). */
void em_silicon_enable_icache(void);

/** Waits until the console has sent every byte (implemented by the board's console file). */
void em_silicon_console_flush(void);

#endif /* EM_SILICON_H */
