/**
 * @file startup.c
 * @brief Corstone-300 reset: vector table, memory initialisation, FPU/MVE enable, app entry.
 *
 * QEMU's mps3-an547 boots with VTOR = 0 (ITCM), in Secure state, with the SAU disabled. The
 * reset handler runs before any C data is valid, so it only touches registers and the linker's
 * symbols until .data and .bss are set up.
 */
#include <stdint.h>
#include <string.h>

#include "em_bsp.h"
#include "corstone300_internal.h"

/* Linker-script symbols (linker.ld). */
extern uint32_t __em_stack_bottom;
extern uint32_t __em_stack_top;
extern uint32_t __em_data_start;
extern uint32_t __em_data_end;
extern const uint32_t __em_data_load;
extern uint32_t __em_bss_start;
extern uint32_t __em_bss_end;

#define SCB_CPACR (*(volatile uint32_t *)0xE000ED88u)
/* CP10 and CP11 (FPU and MVE share them) full access: bits 20..23. */
#define CPACR_CP10_CP11_FULL (0xFu << 20)

void Reset_Handler(void) __attribute__((noreturn));

/*
 * Reset_Handler must not need the FPU or MVE before CPACR grants them: it is compiled as a plain
 * function, and the first thing it does is the CPACR write (the .data/.bss loops below may be
 * vectorised by the compiler, which is why they come after the barriers).
 */
void Reset_Handler(void)
{
    /* Stack-limit checking: an overflow becomes a UsageFault (STKOF) reported by fault.c
       instead of a silent corruption of whatever sits below the stack. */
    __asm volatile("msr msplim, %0" : : "r"(&__em_stack_bottom));

    SCB_CPACR |= CPACR_CP10_CP11_FULL;
    __asm volatile("dsb\n\tisb" : : : "memory");

    memcpy(&__em_data_start, &__em_data_load,
           (size_t)((uintptr_t)&__em_data_end - (uintptr_t)&__em_data_start));
    memset(&__em_bss_start, 0,
           (size_t)((uintptr_t)&__em_bss_end - (uintptr_t)&__em_bss_start));

    em_corstone300_console_init();
    em_corstone300_counter_init();

    em_bsp_exit(em_app_main());
}

/*
 * Exception vectors: the 16 Armv8-M system entries. No external interrupt is enabled by the
 * BSP, so the external-IRQ part of the table is omitted (saves 384 bytes of ITCM/flash); an app
 * that enables an NVIC interrupt must extend this table.
 */
typedef void (*em_vector_t)(void);

__attribute__((section(".vectors"), used))
static const em_vector_t em_vector_table[16] = {
    (em_vector_t)(uintptr_t)&__em_stack_top, /* initial MSP */
    Reset_Handler,
    em_corstone300_fault_handler, /* NMI */
    em_corstone300_fault_handler, /* HardFault */
    em_corstone300_fault_handler, /* MemManage */
    em_corstone300_fault_handler, /* BusFault */
    em_corstone300_fault_handler, /* UsageFault */
    em_corstone300_fault_handler, /* SecureFault */
    0, 0, 0,                      /* reserved */
    em_corstone300_fault_handler, /* SVCall */
    em_corstone300_fault_handler, /* DebugMonitor */
    0,                            /* reserved */
    em_corstone300_fault_handler, /* PendSV */
    em_corstone300_systick_handler,
};
