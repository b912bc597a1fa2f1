/**
 * @file counter_systick.c
 * @brief Instruction counter from SysTick under QEMU -icount (see shared/MEASURING.md).
 *
 * With `-icount shift=S` every guest instruction advances virtual time by exactly 2^S ns, and
 * SysTick on the processor clock (EM_BSP_CLOCK_HZ) ticks EM_BSP_CLOCK_HZ * 2^S / 1e9 times per
 * instruction (4.096 on mps3-an547 at 32 MHz, 3.2 on mps2-an385/an386 at 25 MHz, 2.56 on
 * mps2-an505 at 20 MHz, all with S = 7). That is more than 2, so rounding ticks / ratio
 * gives the instruction count exactly. board.yaml supplies the ratio reduced to
 * EM_BSP_COUNTER_MUL / 2^EM_BSP_COUNTER_SHIFT instructions per tick (125 / 2^9, 5 / 2^4 and
 * 25 / 2^6 respectively).
 *
 * The 24-bit counter wraps every 2^24 ticks (~4.1 M instructions); SysTick_Handler counts wraps,
 * and its own instructions are subtracted so that the counter only sees the measured code.
 */
#include <stdint.h>

#include "em_bsp.h"
#include "em_cortex_m.h"

#if !defined(EM_BSP_COUNTER_MUL) || !defined(EM_BSP_COUNTER_SHIFT)
#error "EM_BSP_COUNTER_MUL / EM_BSP_COUNTER_SHIFT must come from board.yaml (counter)"
#endif

#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)

#define SYST_CSR_ENABLE (1u << 0)
#define SYST_CSR_TICKINT (1u << 1)
#define SYST_CSR_CLKSOURCE_CPU (1u << 2)

/* The full 24-bit counter. The calibration test builds with a short period (e.g. 12 bits, a
   wrap every ~1000 instructions) so that counter reads meet wraps at every phase. */
#ifndef EM_BSP_SYSTICK_PERIOD_BITS
#define EM_BSP_SYSTICK_PERIOD_BITS 24
#endif
#define SYST_PERIOD_BITS EM_BSP_SYSTICK_PERIOD_BITS
#define SYST_PERIOD_TICKS (1u << SYST_PERIOD_BITS)
#define SYST_RELOAD (SYST_PERIOD_TICKS - 1u)

/* Instructions executed by em_cortex_m_systick_handler below, exception return included. */
#define SYSTICK_HANDLER_INSTRUCTIONS 6u

/* Number of SysTick wraps. Written only by the handler. */
volatile uint32_t em_cortex_m_systick_wraps;

static uint64_t em_counter_overhead_units;

/*
 * Written in assembly so that its instruction count is fixed (SYSTICK_HANDLER_INSTRUCTIONS)
 * whatever the compiler flags: movw, movt, ldr, adds, str, bx.
 */
__attribute__((naked)) void em_cortex_m_systick_handler(void)
{
    __asm volatile(
        "movw r0, #:lower16:em_cortex_m_systick_wraps\n\t"
        "movt r0, #:upper16:em_cortex_m_systick_wraps\n\t"
        "ldr r1, [r0]\n\t"
        "adds r1, r1, #1\n\t"
        "str r1, [r0]\n\t"
        "bx lr\n\t");
}

uint64_t em_bsp_counter_read(void)
{
    uint32_t wraps_before = em_cortex_m_systick_wraps;
    uint32_t value = SYST_CVR;
    uint32_t wraps_after = em_cortex_m_systick_wraps;

    /* SysTick interrupts when the count reaches 0 and reloads on the following tick, so the
       position within the current period is (reload + 1 - value) mod 2^24: 0 right at the
       interrupt, growing until the next one. */
    uint32_t phase = (SYST_PERIOD_TICKS - value) & SYST_RELOAD;

    /* A wrap counted between the two reads of wraps came either before the read of the value
       (then phase is small) or after it (phase near the end of the period). Branch-free, so
       the instruction count of this function does not depend on the case. */
    uint32_t wrapped_after_value = (wraps_before != wraps_after) & (phase > SYST_PERIOD_TICKS / 2u);
    uint32_t take_before = 0u - wrapped_after_value; /* all ones or zero */
    /* Hide the mask's origin so that GCC cannot turn the select back into branches. */
    __asm volatile("" : "+r"(take_before));
    uint32_t wraps = (wraps_before & take_before) | (wraps_after & ~take_before);

    uint64_t ticks = ((uint64_t)wraps << SYST_PERIOD_BITS) + phase;
    uint64_t instructions = (ticks * EM_BSP_COUNTER_MUL + (1ull << (EM_BSP_COUNTER_SHIFT - 1)))
                            >> EM_BSP_COUNTER_SHIFT;
    return instructions - (uint64_t)wraps * SYSTICK_HANDLER_INSTRUCTIONS;
}

const char *em_bsp_counter_unit(void)
{
    return "instructions (QEMU)";
}

uint64_t em_bsp_counter_overhead(void)
{
    return em_counter_overhead_units;
}

/*
 * Timing harnesses with a fixed instruction sequence between the two counter samples, so that
 * the calibration (tests/bsp/test_counter_calibration.py) can predict counts exactly.
 * Both save the first sample in two registers, as GCC does for `t0 = read(); ... read() - t0`.
 *
 * em_cortex_m_time_empty: sample, mov, mov, sample.
 */
__attribute__((naked)) uint64_t em_cortex_m_time_empty(void)
{
    __asm volatile(
        "push {r4, r5, r6, lr}\n\t"
        "bl em_bsp_counter_read\n\t"
        "mov r4, r0\n\t"
        "mov r5, r1\n\t"
        "bl em_bsp_counter_read\n\t"
        "subs r0, r0, r4\n\t"
        "sbc r1, r1, r5\n\t"
        "pop {r4, r5, r6, pc}\n\t");
}

/*
 * em_cortex_m_time_call: sample, mov, mov, `mov r0, arg`, `blx fn`, fn's own instructions,
 * sample. With the empty harness's count subtracted, 2 + fn's instructions remain.
 */
__attribute__((naked)) uint64_t em_cortex_m_time_call(void (*fn)(uint32_t) __attribute__((unused)),
                                                         uint32_t arg __attribute__((unused)))
{
    __asm volatile(
        "push {r4, r5, r6, r7, r8, lr}\n\t"
        "mov r6, r0\n\t"
        "mov r7, r1\n\t"
        "bl em_bsp_counter_read\n\t"
        "mov r4, r0\n\t"
        "mov r5, r1\n\t"
        "mov r0, r7\n\t"
        "blx r6\n\t"
        "bl em_bsp_counter_read\n\t"
        "subs r0, r0, r4\n\t"
        "sbc r1, r1, r5\n\t"
        "pop {r4, r5, r6, r7, r8, pc}\n\t");
}

void em_cortex_m_counter_init(void)
{
    em_cortex_m_systick_wraps = 0;
    SYST_RVR = SYST_RELOAD;
    SYST_CVR = 0; /* any write clears the count */
    SYST_CSR = SYST_CSR_ENABLE | SYST_CSR_TICKINT | SYST_CSR_CLKSOURCE_CPU;

    /* Deterministic under -icount: one measurement is the overhead. */
    em_counter_overhead_units = em_cortex_m_time_empty();
}

/* Instructions per second of QEMU's virtual time: clock ticks per second x instructions per tick. */
uint64_t em_bsp_counter_hz(void)
{
    return ((uint64_t)EM_BSP_CLOCK_HZ * EM_BSP_COUNTER_MUL) >> EM_BSP_COUNTER_SHIFT;
}
