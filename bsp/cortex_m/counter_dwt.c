/**
 * @file counter_dwt.c
 * @brief CPU cycle counter from the DWT (Armv8-M Data Watchpoint and Trace unit), unit "cycles".
 *
 * DEMCR.TRCENA powers the DWT, DWT_CTRL.CYCCNTENA starts DWT_CYCCNT (Armv8-M ARM, DDI0553:
 * DEMCR 0xE000EDFC bit 24, DWT_CTRL 0xE0001000 bit 0, DWT_CYCCNT 0xE0001004; DWT_LAR
 * 0xE0001FB0 unlocks it where the optional software lock is implemented). The 32-bit count is
 * widened to 64 bits on each read, so reads must come less than 2^32 cycles apart (8.9 s at
 * 480 MHz); the app reads it around every inference. No interrupt is used: SysTick stays off,
 * and em_cortex_m_systick_handler (named by the shared vector table) only reports a fault.
 */
#include <stdint.h>

#include "em_bsp.h"
#include "em_cortex_m.h"

#define DEMCR (*(volatile uint32_t *)0xE000EDFCu)
#define DEMCR_TRCENA (1u << 24)
#define DWT_CTRL (*(volatile uint32_t *)0xE0001000u)
#define DWT_CTRL_CYCCNTENA (1u << 0)
#define DWT_CYCCNT (*(volatile uint32_t *)0xE0001004u)
#define DWT_LAR (*(volatile uint32_t *)0xE0001FB0u)
#define DWT_LAR_KEY 0xC5ACCE55u

static uint32_t em_dwt_last;
static uint32_t em_dwt_high;
static uint64_t em_dwt_overhead;

uint64_t em_bsp_counter_read(void)
{
    uint32_t now = DWT_CYCCNT;
    if (now < em_dwt_last) {
        ++em_dwt_high;
    }
    em_dwt_last = now;
    return ((uint64_t)em_dwt_high << 32) | now;
}

const char *em_bsp_counter_unit(void)
{
    return "cycles";
}

uint64_t em_bsp_counter_overhead(void)
{
    return em_dwt_overhead;
}

/* SysTick is never enabled on these boards; if it fires anyway, report it like any stray
   exception. */
__attribute__((naked)) void em_cortex_m_systick_handler(void)
{
    __asm volatile("b em_cortex_m_fault_handler\n\t");
}

void em_cortex_m_counter_init(void)
{
    DEMCR |= DEMCR_TRCENA;
    DWT_LAR = DWT_LAR_KEY;
    DWT_CYCCNT = 0u;
    DWT_CTRL |= DWT_CTRL_CYCCNTENA;
    em_dwt_last = 0u;
    em_dwt_high = 0u;

    /* Cycles are not deterministic like QEMU's instruction count (caches, flash wait states):
       take the smallest of a few back-to-back pairs. */
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 8; ++i) {
        uint64_t t0 = em_bsp_counter_read();
        uint64_t t1 = em_bsp_counter_read();
        if (t1 - t0 < best) {
            best = t1 - t0;
        }
    }
    em_dwt_overhead = best;
}

uint64_t em_bsp_counter_hz(void)
{
    return EM_BSP_CLOCK_HZ; /* DWT counts CPU cycles */
}
