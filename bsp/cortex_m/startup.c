/**
 * @file startup.c
 * @brief Cortex-M reset (Armv7-M and Armv8-M): vector table, stack guard, FPU/MVE enable,
 *        memory initialisation, app entry.
 *
 * The QEMU machines boot from the vector table at the start of each board's code region:
 * mps3-an547 and mps2-an385/an386 with VTOR = 0, mps2-an505 with the Secure VTOR at
 * 0x1000_0000 (its linker script uses the Secure aliases). The v8-M parts boot Secure with the
 * SAU off, so every address is Secure and reachable. The reset handler runs before any C data is valid, so it only touches
 * registers and the linker's symbols until .data and .bss are set up.
 *
 * What differs between the architectures comes from the compiler's macros, not from the board:
 *  - stack overflow: MSPLIM on Armv8-M (an overflow is a UsageFault, STKOF); on Armv7-M, which
 *    has no stack limit, an MPU region with no access over the lowest
 *    EM_CORTEX_M_STACK_GUARD_BYTES of the stack (an overflow is a MemManage fault, DACCVIOL);
 *  - FPU (and MVE, which shares CP10/CP11): enabled in CPACR when the code is built for it.
 */
#include <stdint.h>
#include <string.h>

#include "em_bsp.h"
#include "em_cortex_m.h"

/* Linker-script symbols (each board's linker.ld). */
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

#if !EM_CORTEX_M_HAS_MSPLIM
/* PMSAv7 MPU (Armv7-M B3.5). */
#define MPU_CTRL (*(volatile uint32_t *)0xE000ED94u)
#define MPU_RNR (*(volatile uint32_t *)0xE000ED98u)
#define MPU_RBAR (*(volatile uint32_t *)0xE000ED9Cu)
#define MPU_RASR (*(volatile uint32_t *)0xE000EDA0u)
#define MPU_CTRL_ENABLE (1u << 0)
#define MPU_CTRL_PRIVDEFENA (1u << 2) /* default memory map elsewhere; HFNMIENA = 0: off in faults */
#define MPU_RASR_ENABLE (1u << 0)
#define MPU_RASR_SIZE(log2_bytes) (((log2_bytes) - 1u) << 1)
#define MPU_RASR_AP_NO_ACCESS (0u << 24)
#define MPU_RASR_XN (1u << 28)

static uint32_t log2_u32(uint32_t value)
{
    uint32_t result = 0;
    while (value > 1u) {
        value >>= 1;
        ++result;
    }
    return result;
}

static void guard_stack_with_mpu(void)
{
    MPU_RNR = 0;
    MPU_RBAR = (uint32_t)(uintptr_t)&__em_stack_bottom; /* aligned to the guard size by linker.ld */
    MPU_RASR = MPU_RASR_XN | MPU_RASR_AP_NO_ACCESS | MPU_RASR_SIZE(log2_u32(EM_CORTEX_M_STACK_GUARD_BYTES)) |
               MPU_RASR_ENABLE;
    MPU_CTRL = MPU_CTRL_ENABLE | MPU_CTRL_PRIVDEFENA;
}
#endif

/* Stack painting: every free stack word holds this at reset; em_bsp_stack_peak() finds the
 * deepest one overwritten. */
#define STACK_PAINT 0xA5A5A5A5u
#define STACK_PAINT_MARGIN_BYTES 64u /* left unpainted below the live SP of Reset_Handler */

/** Lowest stack word software may touch (above the MPU guard on Armv7-M). */
static uint32_t *stack_floor(void)
{
#if EM_CORTEX_M_HAS_MSPLIM
    return &__em_stack_bottom;
#else
    return (uint32_t *)((uintptr_t)&__em_stack_bottom + EM_CORTEX_M_STACK_GUARD_BYTES);
#endif
}

static void paint_stack(void)
{
    uint32_t *sp;
    __asm volatile("mov %0, sp" : "=r"(sp));
    for (uint32_t *word = stack_floor(); word < sp - STACK_PAINT_MARGIN_BYTES / 4u; ++word) {
        *(volatile uint32_t *)word = STACK_PAINT;
    }
}

size_t em_bsp_stack_peak(void)
{
    const uint32_t *word = stack_floor();
    while (word < &__em_stack_top && *(const volatile uint32_t *)word == STACK_PAINT) {
        ++word;
    }
    return (size_t)((uintptr_t)&__em_stack_top - (uintptr_t)word);
}

void Reset_Handler(void) __attribute__((noreturn));

/*
 * Reset_Handler must not need the FPU or MVE before CPACR grants them: it is compiled as a plain
 * function, and the first thing it does is the CPACR write (the .data/.bss loops below may be
 * vectorised by the compiler, which is why they come after the barriers).
 */
void Reset_Handler(void)
{
#if EM_CORTEX_M_HAS_MSPLIM
    /* Stack-limit checking: an overflow becomes a UsageFault (STKOF) reported by fault.c
       instead of a silent corruption of whatever sits below the stack. */
    __asm volatile("msr msplim, %0" : : "r"(&__em_stack_bottom));
#else
    guard_stack_with_mpu();
#endif

#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
    SCB_CPACR |= CPACR_CP10_CP11_FULL;
#endif
    __asm volatile("dsb\n\tisb" : : : "memory");

    memcpy(&__em_data_start, &__em_data_load,
           (size_t)((uintptr_t)&__em_data_end - (uintptr_t)&__em_data_start));
    memset(&__em_bss_start, 0,
           (size_t)((uintptr_t)&__em_bss_end - (uintptr_t)&__em_bss_start));
    paint_stack();

    em_cortex_m_console_init();
    em_cortex_m_counter_init();

    em_bsp_exit(em_app_main());
}

/*
 * Exception vectors: the 16 system entries (Armv7-M and Armv8-M share the layout; entry 7 is
 * SecureFault on Armv8-M and reserved on Armv7-M). No external interrupt is enabled by the
 * BSP, so the external-IRQ part of the table is omitted; an app that enables an NVIC interrupt
 * must extend this table.
 */
typedef void (*em_vector_t)(void);

__attribute__((section(".vectors"), used))
static const em_vector_t em_vector_table[16] = {
    (em_vector_t)(uintptr_t)&__em_stack_top, /* initial MSP */
    Reset_Handler,
    em_cortex_m_fault_handler, /* NMI */
    em_cortex_m_fault_handler, /* HardFault */
    em_cortex_m_fault_handler, /* MemManage */
    em_cortex_m_fault_handler, /* BusFault */
    em_cortex_m_fault_handler, /* UsageFault */
    em_cortex_m_fault_handler, /* SecureFault (Armv8-M) */
    0, 0, 0,                   /* reserved */
    em_cortex_m_fault_handler, /* SVCall */
    em_cortex_m_fault_handler, /* DebugMonitor */
    0,                         /* reserved */
    em_cortex_m_fault_handler, /* PendSV */
    em_cortex_m_systick_handler,
};
