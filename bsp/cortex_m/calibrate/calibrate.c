/**
 * @file calibrate.c
 * @brief Counter calibration firmware (shared/MEASURING.md step 4), run by
 *        tests/bsp/test_counter_calibration.py.
 *
 * Times two functions whose instruction counts are known exactly, because they are written in
 * assembly:
 *   - calib_bare_return: `bx lr`                               = 1 instruction
 *   - calib_loop(n):     `1: subs r0, #1; bne 1b; bx lr`       = 2n + 1 instructions (n >= 1;
 *                        the final, not-taken bne still executes)
 * Each is called through em_cortex_m_time_call(), whose fixed calling sequence
 * (`mov r0, arg; blx fn`) adds 2 instructions, and the counter's own overhead
 * (em_bsp_counter_overhead()) is subtracted. Prints one line
 *
 *     calib overhead=<o> empty=<count> loop<n>=<count> ...
 *
 * with counts in instructions, for the n given on the command line (default list below), and
 * exits 0. The test checks empty == 1 and loop<n> == 2n + 1 for every n, including n large
 * enough for SysTick to wrap several times.
 *
 * The word `sweep` instead times short loops back to back for several SysTick periods, so that
 * counter reads land at every phase, wraps included (the case em_bsp_counter_read must
 * resolve), and prints `calib sweep measurements=<m> instructions=<i> mismatches=<x>`; an
 * optional second word sets the number of measurements (default SWEEP_MEASUREMENTS).
 */
#include <stdint.h>
#include <string.h>

#include "em_bsp.h"
#include "../em_cortex_m.h"

/* Instructions of the calling sequence inside em_cortex_m_time_call: mov r0, arg; blx fn. */
#define TIME_CALL_SEQUENCE_INSTRUCTIONS 2u

__attribute__((naked)) static void calib_bare_return(uint32_t unused __attribute__((unused)))
{
    __asm volatile("bx lr\n\t");
}

__attribute__((naked)) static void calib_loop(uint32_t iterations __attribute__((unused)))
{
    __asm volatile(
        "1:\n\t"
        "subs r0, r0, #1\n\t"
        "bne 1b\n\t"
        "bx lr\n\t");
}

static void put_text(const char *text)
{
    em_bsp_console_write(text, strlen(text));
}

static void put_u64(uint64_t value)
{
    char digits[20];
    int count = 0;
    do {
        digits[count++] = (char)('0' + value % 10u);
        value /= 10u;
    } while (value != 0u);
    char text[20];
    for (int i = 0; i < count; ++i) {
        text[i] = digits[count - 1 - i];
    }
    em_bsp_console_write(text, (size_t)count);
}

static uint32_t parse_u32(const char *text)
{
    uint32_t value = 0;
    for (; *text >= '0' && *text <= '9'; ++text) {
        value = value * 10u + (uint32_t)(*text - '0');
    }
    return value;
}

static uint64_t function_instructions(void (*fn)(uint32_t), uint32_t arg)
{
    return em_cortex_m_time_call(fn, arg) - em_bsp_counter_overhead() -
           TIME_CALL_SEQUENCE_INSTRUCTIONS;
}

/* Enough back-to-back measurements to cover a few SysTick periods (2^24 ticks: 4.1 M
   instructions on mps3-an547, 6.6 M on mps2-an505). */
#define SWEEP_MEASUREMENTS 300000u

static void sweep(uint32_t measurements)
{
    uint32_t mismatches = 0;
    uint64_t previous = em_bsp_counter_read();
    uint64_t start = previous;
    for (uint32_t i = 0; i < measurements; ++i) {
        /* Loops of 1..7 iterations and the bare return shift the phase of the next read by
           both even and odd numbers of instructions. */
        uint32_t n = i % 8u;
        if (n == 0u) {
            if (function_instructions(calib_bare_return, 0) != 1u) {
                ++mismatches;
            }
        } else if (function_instructions(calib_loop, n) != 2u * n + 1u) {
            ++mismatches;
        }
        uint64_t now = em_bsp_counter_read();
        if (now < previous) {
            ++mismatches; /* not monotonic */
        }
        previous = now;
    }
    put_text("calib sweep measurements=");
    put_u64(measurements);
    put_text(" instructions=");
    put_u64(previous - start);
    put_text(" mismatches=");
    put_u64(mismatches);
    put_text("\n");
}

int em_app_main(void)
{
    static const char *const default_iterations[] = {"1", "2", "10", "1000", "100000"};
    char storage[256];
    const char *argv[16];
    int argc = em_bsp_args(storage, sizeof storage, argv, 16);
    const char *const *iterations = argv;
    if ((argc == 1 || argc == 2) && strcmp(argv[0], "sweep") == 0) {
        sweep(argc == 2 ? parse_u32(argv[1]) : SWEEP_MEASUREMENTS);
        return 0;
    }
    if (argc <= 0) {
        iterations = default_iterations;
        argc = (int)(sizeof default_iterations / sizeof default_iterations[0]);
    }

    put_text("calib unit=");
    put_text(em_bsp_counter_unit());
    put_text("\ncalib overhead=");
    put_u64(em_bsp_counter_overhead());
    put_text(" overhead_again=");
    put_u64(em_cortex_m_time_empty());
    put_text(" empty=");
    put_u64(function_instructions(calib_bare_return, 0));
    for (int i = 0; i < argc; ++i) {
        uint32_t n = parse_u32(iterations[i]);
        if (n == 0) {
            continue; /* the loop needs n >= 1 */
        }
        put_text(" loop");
        put_u64(n);
        put_text("=");
        put_u64(function_instructions(calib_loop, n));
    }
    put_text("\n");
    return 0;
}
