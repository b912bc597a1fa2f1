/**
 * @file em_nn_min_max.h
 * @brief The elementwise int8 min / max loop shared by em_minimum_s8.c and em_maximum_s8.c
 *        (header-only, always inlined with a constant @p is_max, so each kernel links alone).
 *
 * Operands share one quantization with the output, so min / max of the codes is the op
 * (reference.minimum_s8 / maximum_s8). NumPy broadcasting (em_broadcast_dims), run by run
 * (em_nn_broadcast.h): along a run each operand is an array or one repeated value.
 * Tiers: MVE 16 lanes per step (VMIN.S8 / VMAX.S8, predicated tail); DSP 4 lanes per word
 * (SSUB8 sets a GE flag per byte where x >= y, SEL picks per byte); a scalar tail / path.
 */
#ifndef EM_NN_MIN_MAX_H
#define EM_NN_MIN_MAX_H

#include <stdbool.h>

#include "em_nn_broadcast.h"
#include "em_nn_functions.h"
#include "em_nn_support.h"

static inline __attribute__((always_inline)) int8_t em_nn_min_max_1(int8_t x, int8_t y, bool is_max)
{
    return is_max ? (x > y ? x : y) : (x < y ? x : y);
}

/** out[0..n) = min / max(a[i] or a[0] when @p a_scalar, b likewise). */
static inline __attribute__((always_inline)) void em_nn_min_max_row(const int8_t *a, bool a_scalar, const int8_t *b,
                                                                   bool b_scalar, int8_t *out, int32_t n,
                                                                   bool is_max)
{
    int32_t i = 0;
#if EM_NN_TIER_MVE
    const int8x16_t a0 = vdupq_n_s8(*a), b0 = vdupq_n_s8(*b);
    for (; i < n; i += 16) {
        const mve_pred16_t pred = vctp8q((uint32_t)(n - i));
        const int8x16_t x = a_scalar ? a0 : vldrbq_z_s8(a + i, pred);
        const int8x16_t y = b_scalar ? b0 : vldrbq_z_s8(b + i, pred);
        vstrbq_p_s8(out + i, is_max ? vmaxq_s8(x, y) : vminq_s8(x, y), pred);
    }
#elif EM_NN_TIER_DSP
    const uint32_t a0 = (uint8_t)*a * 0x01010101u, b0 = (uint8_t)*b * 0x01010101u;
    for (; i + 4 <= n; i += 4) {
        const uint32_t x = a_scalar ? a0 : em_nn_read_s8x4(a + i);
        const uint32_t y = b_scalar ? b0 : em_nn_read_s8x4(b + i);
        uint32_t v;
        /* one asm block: SEL must read the GE flags of this SSUB8 (GE[k] = x[k] >= y[k]) */
        if (is_max) {
            __asm__("ssub8 %0, %1, %2\n\tsel %0, %1, %2" : "=&r"(v) : "r"(x), "r"(y) : "cc");
        } else {
            __asm__("ssub8 %0, %1, %2\n\tsel %0, %2, %1" : "=&r"(v) : "r"(x), "r"(y) : "cc");
        }
        __builtin_memcpy(out + i, &v, sizeof v);
    }
#endif
    for (; i < n; i++) {
        out[i] = em_nn_min_max_1(a_scalar ? *a : a[i], b_scalar ? *b : b[i], is_max);
    }
}

/** @p span runs of @p w from a, b (em_nn_broadcast.h: one group, the outer indices fixed), the
 *  runs' form (@p a_one, @p b_one) a constant at each call: the row loop is compiled for it. */
static inline __attribute__((always_inline)) void em_nn_min_max_span(const em_nn_broadcast *w, const int8_t *a,
                                                                    bool a_one, const int8_t *b, bool b_one,
                                                                    int8_t *out, bool is_max)
{
    const int32_t inner = w->size[0], a_step = w->a_stride[1], b_step = w->b_stride[1];
    for (int32_t r = w->size[1]; r > 0; r--, a += a_step, b += b_step, out += inner) {
        em_nn_min_max_row(a, a_one, b, b_one, out, inner, is_max);
    }
}

/** One group of runs, out of line: its loops get every register, the walk's odometer none. */
static __attribute__((noinline)) void em_nn_min_max_group(const em_nn_broadcast *w, const int8_t *a,
                                                         const int8_t *b, int8_t *out, bool is_max)
{
    if (w->a_stride[0] == 0) {
        em_nn_min_max_span(w, a, true, b, false, out, is_max);
    } else if (w->b_stride[0] == 0) {
        em_nn_min_max_span(w, a, false, b, true, out, is_max);
    } else {
        em_nn_min_max_span(w, a, false, b, false, out, is_max);
    }
}

static inline __attribute__((always_inline)) em_nn_status em_nn_min_max_s8(const em_broadcast_dims *dims,
                                                                          const int8_t *a, const int8_t *b,
                                                                          int8_t *output, bool is_max)
{
    em_nn_broadcast w;
    if (a == NULL || b == NULL || output == NULL || !em_nn_broadcast_plan(dims, &w)) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    em_nn_broadcast_at at;
    em_nn_broadcast_start(&w, &at);
    int8_t *out = output;
    do {
        em_nn_min_max_group(&w, a + at.a, b + at.b, out, is_max);
        out += w.size[1] * w.size[0];
    } while (em_nn_broadcast_next(&w, &at));
    return EM_NN_OK;
}

#endif /* EM_NN_MIN_MAX_H */
