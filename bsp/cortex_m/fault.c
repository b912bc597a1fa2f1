/**
 * @file fault.c
 * @brief Faults and unexpected exceptions: report and exit, so the device never hangs.
 *
 * Prints one line `EM FAULT exc=<n> pc=<addr> cfsr=<bits> hfsr=<bits>` on the console and exits
 * with EM_BSP_FAULT_EXIT_STATUS. The handler first moves the stack pointer back to the top of
 * the main stack (and clears MSPLIM on Armv8-M), because the fault may be a stack overflow and
 * the report itself needs stack. On Armv7-M the MPU stack guard does not apply in the handler
 * (MPU_CTRL.HFNMIENA = 0), and a frame inside the guard is not trusted.
 */
#include <stdint.h>

#include "em_bsp.h"
#include "em_cortex_m.h"

/** Exit status of a firmware that faulted (as a shell reports a process killed by SIGABRT). */
#define EM_BSP_FAULT_EXIT_STATUS 134

#define SCB_CFSR (*(volatile uint32_t *)0xE000ED28u)
#define SCB_HFSR (*(volatile uint32_t *)0xE000ED2Cu)

extern uint32_t __em_stack_bottom;
extern uint32_t __em_stack_top;

/* Offset of the stacked return address in the basic exception frame. */
#define FRAME_PC_WORD 6

__attribute__((noreturn, used)) static void em_fault_report(const uint32_t *frame, uint32_t exception)
{
    /* Only trust the frame if it lies within the main stack (an overflow may have left SP
       anywhere). */
    uint32_t pc = 0xFFFFFFFFu;
    uintptr_t floor = (uintptr_t)&__em_stack_bottom;
#if !EM_CORTEX_M_HAS_MSPLIM
    floor += EM_CORTEX_M_STACK_GUARD_BYTES;
#endif
    if ((uintptr_t)frame >= floor &&
        (uintptr_t)(frame + FRAME_PC_WORD + 1) <= (uintptr_t)&__em_stack_top) {
        pc = frame[FRAME_PC_WORD];
    }
    em_cortex_m_console_puts("\nEM FAULT exc=");
    em_cortex_m_console_put_hex(exception);
    em_cortex_m_console_puts(" pc=");
    em_cortex_m_console_put_hex(pc);
    em_cortex_m_console_puts(" cfsr=");
    em_cortex_m_console_put_hex(SCB_CFSR);
    em_cortex_m_console_puts(" hfsr=");
    em_cortex_m_console_put_hex(SCB_HFSR);
    em_cortex_m_console_puts("\n");
    em_bsp_exit(EM_BSP_FAULT_EXIT_STATUS);
}

__attribute__((naked)) void em_cortex_m_fault_handler(void)
{
    __asm volatile(
        "mrs r0, msp\n\t"              /* frame (the BSP only ever uses the main stack) */
        "mrs r1, ipsr\n\t"             /* exception number */
#if EM_CORTEX_M_HAS_MSPLIM
        "movs r2, #0\n\t"
        "msr msplim, r2\n\t"
#endif
        "ldr r2, =__em_stack_top\n\t"
        "mov sp, r2\n\t"
        "b em_fault_report\n\t"
        ".ltorg\n\t");
}
