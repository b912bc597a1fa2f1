/**
 * @file em_nn_dot_s8.h
 * @brief Internal helpers shared by the conv2d and fully connected kernels (em_nn_*): the
 *        requantized int8 output of one accumulator, the scalar tier's 4- and 6-row dot products,
 *        the DSP / scalar rows-times-column loop (em_nn_dot_rows_s8) and the Helium dot product
 *        (em_nn_dot_s8_mve: the fully connected and recurrent kernels' rows).
 *
 * Both match compiler/reference.py bit for bit (int32 sums wrap like the reference's).
 */
#ifndef EM_NN_DOT_S8_H
#define EM_NN_DOT_S8_H

#include <stddef.h>
#include <stdint.h>

#include "em_nn_support.h"

/**
 * clamp(requantize(acc) + offset, lo, hi) as int8, in int32 only: requantize(acc) is clamped to
 * [lo - offset, hi - offset] first (same result, since the clamp bounds are int8 and
 * offset -128..127), so the addition cannot overflow.
 * @param offset -128..127; lo <= hi, both -128..127
 */
static inline int8_t em_nn_requantize_s8(int32_t acc, int32_t multiplier, int32_t shift,
                                         int32_t offset, int32_t lo, int32_t hi)
{
#if (EM_NN_TIER_SCALAR || EM_NN_TIER_DSP) && defined(__GNUC__) && defined(__thumb2__)
    /* em_nn_requantize() with the high word of the product by SMULL (GCC 12 builds the int64
     * product from UMULL + two MLA on Armv7-M; DSP: SMMUL would do as well, SMULL is in both),
     * and its rounding shift by E - 32 = right as
     * ((high >> (right - 1)) + 1) >> 1: floor((h + 2^(r-1)) / 2^r) = floor((floor(h / 2^(r-1))
     * + 1) / 2) for r >= 1, one instruction fewer than forming 2^(r-1). */
    int32_t x = acc, right_1 = -2 - shift;
    if (shift > -2) {
        const int32_t left = shift + 2;
        const int ok = left == 32 ? acc == 0 : (uint32_t)(acc >> (31 - left)) + 1u <= 1u;
        x = ok ? (int32_t)((uint32_t)acc << (left & 31)) : (acc < 0 ? EM_NN_INT32_MIN : EM_NN_INT32_MAX);
        right_1 = 0;
    }
    int32_t low, high;
    __asm__("smull %0, %1, %2, %3" : "=&r"(low), "=&r"(high) : "r"(x), "r"(multiplier));
    (void)low;
    int32_t v = ((high >> right_1) + 1) >> 1;
#else
    int32_t v = em_nn_requantize(acc, multiplier, shift);
#endif
    v = v < lo - offset ? lo - offset : v;
    v = v > hi - offset ? hi - offset : v;
    return (int8_t)(v + offset);
}

#if EM_NN_TIER_SCALAR
/**
 * acc[r] += Σ_{i<n} x[i]·w[r·stride + i] for four weight rows r = 0..3, wrapping like the
 * reference: each input byte is loaded once for the four rows (per input: five LDRSB, four MLA
 * on Armv7-M / Armv8-M mainline).
 */
static inline void em_nn_dot4_s8_scalar(const int8_t *x, const int8_t *w, int32_t stride, int32_t n,
                                        int32_t acc[4])
{
    const int8_t *w0 = w, *w2 = w + 2 * stride; /* rows 1 and 3 at [w0 + stride], [w2 + stride] */
    uint32_t a0 = (uint32_t)acc[0], a1 = (uint32_t)acc[1], a2 = (uint32_t)acc[2], a3 = (uint32_t)acc[3];
    int32_t steps = n >> 2;
#if defined(__GNUC__) && defined(__thumb2__)
    /* GCC 12 regroups the products (MUL + MLA + ADD) and spills the sums; by hand, per input:
     * LDRSB of x, then per row LDRSB + MLA (row 1 / 3 by register offset before the post-index
     * of row 0 / 2), four inputs per SUBS + BNE: 38 instructions per 16 MACs. */
    if (steps > 0) {
        int32_t xi, t;
#define EM_NN_DOT4_STEP                                   \
    "ldrsb  %[xi], [%[x]], #1\n\t"                      \
    "ldrsb  %[t], [%[w0], %[s]]\n\t"                    \
    "mla    %[a1], %[xi], %[t], %[a1]\n\t"              \
    "ldrsb  %[t], [%[w0]], #1\n\t"                      \
    "mla    %[a0], %[xi], %[t], %[a0]\n\t"              \
    "ldrsb  %[t], [%[w2], %[s]]\n\t"                    \
    "mla    %[a3], %[xi], %[t], %[a3]\n\t"              \
    "ldrsb  %[t], [%[w2]], #1\n\t"                      \
    "mla    %[a2], %[xi], %[t], %[a2]\n\t"
        __asm__("1:\n\t" EM_NN_DOT4_STEP EM_NN_DOT4_STEP EM_NN_DOT4_STEP EM_NN_DOT4_STEP
                "subs   %[n], %[n], #1\n\t"
                "bne    1b"
                : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [x] "+r"(x),
                  [w0] "+r"(w0), [w2] "+r"(w2), [n] "+r"(steps), [xi] "=&r"(xi), [t] "=&r"(t)
                : [s] "r"(stride)
                : "cc", "memory");
#undef EM_NN_DOT4_STEP
    }
#else
    for (; steps > 0; steps--) {
        for (int32_t j = 0; j < 4; j++) {
            const int32_t xi = *x++;
            a1 += (uint32_t)(xi * w0[stride]);
            a0 += (uint32_t)(xi * *w0++);
            a3 += (uint32_t)(xi * w2[stride]);
            a2 += (uint32_t)(xi * *w2++);
        }
    }
#endif
    for (int32_t i = 0; i < (n & 3); i++) { /* 0..3 left */
        const int32_t xi = x[i];
        a0 += (uint32_t)(xi * w0[i]);
        a1 += (uint32_t)(xi * w0[stride + i]);
        a2 += (uint32_t)(xi * w2[i]);
        a3 += (uint32_t)(xi * w2[stride + i]);
    }
    acc[0] = (int32_t)a0, acc[1] = (int32_t)a1, acc[2] = (int32_t)a2, acc[3] = (int32_t)a3;
}

/**
 * acc[r] += Σ_{i<n} x[i]·w[r·stride + i] for six weight rows r = 0..5 sharing each input byte
 * (per input: seven LDRSB, six MLA; rows 1, 2 and 4, 5 by register offsets, LSL #1 for the
 * second, from the pointers of rows 0 and 3), eight inputs per SUBS + BNE: 106 instructions per
 * 48 MACs, against 114 by em_nn_dot4_s8_scalar.
 */
static inline void em_nn_dot6_s8_scalar(const int8_t *x, const int8_t *w, int32_t stride, int32_t n,
                                        int32_t acc[6])
{
    const int8_t *w0 = w, *w3 = w + 3 * stride;
    uint32_t a0 = (uint32_t)acc[0], a1 = (uint32_t)acc[1], a2 = (uint32_t)acc[2];
    uint32_t a3 = (uint32_t)acc[3], a4 = (uint32_t)acc[4], a5 = (uint32_t)acc[5];
    int32_t steps = n >> 3;
#if defined(__GNUC__) && defined(__thumb2__)
    if (steps > 0) {
        int32_t xi, t;
#define EM_NN_DOT6_STEP                                   \
    "ldrsb  %[xi], [%[x]], #1\n\t"                        \
    "ldrsb  %[t], [%[w0], %[s], lsl #1]\n\t"              \
    "mla    %[a2], %[xi], %[t], %[a2]\n\t"                \
    "ldrsb  %[t], [%[w0], %[s]]\n\t"                      \
    "mla    %[a1], %[xi], %[t], %[a1]\n\t"                \
    "ldrsb  %[t], [%[w0]], #1\n\t"                        \
    "mla    %[a0], %[xi], %[t], %[a0]\n\t"                \
    "ldrsb  %[t], [%[w3], %[s], lsl #1]\n\t"              \
    "mla    %[a5], %[xi], %[t], %[a5]\n\t"                \
    "ldrsb  %[t], [%[w3], %[s]]\n\t"                      \
    "mla    %[a4], %[xi], %[t], %[a4]\n\t"                \
    "ldrsb  %[t], [%[w3]], #1\n\t"                        \
    "mla    %[a3], %[xi], %[t], %[a3]\n\t"
        __asm__("1:\n\t" EM_NN_DOT6_STEP EM_NN_DOT6_STEP EM_NN_DOT6_STEP EM_NN_DOT6_STEP
                EM_NN_DOT6_STEP EM_NN_DOT6_STEP EM_NN_DOT6_STEP EM_NN_DOT6_STEP
                "subs   %[n], %[n], #1\n\t"
                "bne    1b"
                : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [a4] "+r"(a4),
                  [a5] "+r"(a5), [x] "+r"(x), [w0] "+r"(w0), [w3] "+r"(w3), [n] "+r"(steps),
                  [xi] "=&r"(xi), [t] "=&r"(t)
                : [s] "r"(stride)
                : "cc", "memory");
#undef EM_NN_DOT6_STEP
    }
#else
    for (; steps > 0; steps--) {
        for (int32_t j = 0; j < 8; j++) {
            const int32_t xi = *x++;
            a2 += (uint32_t)(xi * w0[2 * stride]);
            a1 += (uint32_t)(xi * w0[stride]);
            a0 += (uint32_t)(xi * *w0++);
            a5 += (uint32_t)(xi * w3[2 * stride]);
            a4 += (uint32_t)(xi * w3[stride]);
            a3 += (uint32_t)(xi * *w3++);
        }
    }
#endif
    for (int32_t i = 0; i < (n & 7); i++) { /* 0..7 left */
        const int32_t xi = x[i];
        a0 += (uint32_t)(xi * w0[i]);
        a1 += (uint32_t)(xi * w0[stride + i]);
        a2 += (uint32_t)(xi * w0[2 * stride + i]);
        a3 += (uint32_t)(xi * w3[i]);
        a4 += (uint32_t)(xi * w3[stride + i]);
        a5 += (uint32_t)(xi * w3[2 * stride + i]);
    }
    acc[0] = (int32_t)a0, acc[1] = (int32_t)a1, acc[2] = (int32_t)a2;
    acc[3] = (int32_t)a3, acc[4] = (int32_t)a4, acc[5] = (int32_t)a5;
}

/** acc + Σ_{i<n} x[i]·w[i], wrapping. */
static inline int32_t em_nn_dot_s8_scalar(const int8_t *x, const int8_t *w, int32_t n, int32_t acc)
{
    uint32_t a = (uint32_t)acc;
    for (int32_t i = 0; i < n; i++) {
        a += (uint32_t)((int32_t)x[i] * (int32_t)w[i]);
    }
    return (int32_t)a;
}
#endif

#if EM_NN_TIER_DSP || EM_NN_TIER_SCALAR
/**
 * out[o] = requantized clamp(bias[o] + Σ_{i<k} x[i]·w[o·k + i]) for output channels
 * o = o_begin..o_end-1 (weight rows of k int8 at weights + o·k; bias may be NULL): the fully
 * connected row and the convolution column of the DSP and scalar tiers. Scalar: six rows per input
 * byte, then four; DSP: four rows per input word; 1..3 rows left one by one. Out of line and with
 * the parameters as plain values: the rows' pointers and sums need every register of the dot
 * loops, and int8 stores may alias a parameter struct (GCC would re-read it). (unused: no warning where a
 * file takes only the dot helpers, em_nn_rnn_s16.c.)
 */
static __attribute__((noinline, unused)) void em_nn_dot_rows_s8(const int8_t *x, const int8_t *weights,
                                                        int32_t k, int32_t o_begin, int32_t o_end,
                                                        const int32_t *bias, const int32_t *multiplier,
                                                        const int32_t *shift, int32_t offset,
                                                        int32_t lo, int32_t hi, int8_t *out)
{
    int32_t o = o_begin;
#if EM_NN_TIER_SCALAR
    for (; o + 6 <= o_end; o += 6) {
        int32_t acc[6] = {0, 0, 0, 0, 0, 0};
        if (bias != NULL) {
            acc[0] = bias[o], acc[1] = bias[o + 1], acc[2] = bias[o + 2];
            acc[3] = bias[o + 3], acc[4] = bias[o + 4], acc[5] = bias[o + 5];
        }
        em_nn_dot6_s8_scalar(x, weights + (int32_t)o * k, k, k, acc);
        for (int32_t r = 0; r < 6; r++) {
            out[o + r] = em_nn_requantize_s8(acc[r], multiplier[o + r], shift[o + r], offset, lo, hi);
        }
    }
#endif
    for (; o + 4 <= o_end; o += 4) { /* unrolled: the four sums stay in registers */
        int32_t acc[4] = {0, 0, 0, 0};
        if (bias != NULL) {
            acc[0] = bias[o], acc[1] = bias[o + 1], acc[2] = bias[o + 2], acc[3] = bias[o + 3];
        }
#if EM_NN_TIER_DSP
        em_nn_dot4_s8_dsp(x, weights + (int32_t)o * k, k, k, acc);
#else
        em_nn_dot4_s8_scalar(x, weights + (int32_t)o * k, k, k, acc);
#endif
        out[o] = em_nn_requantize_s8(acc[0], multiplier[o], shift[o], offset, lo, hi);
        out[o + 1] = em_nn_requantize_s8(acc[1], multiplier[o + 1], shift[o + 1], offset, lo, hi);
        out[o + 2] = em_nn_requantize_s8(acc[2], multiplier[o + 2], shift[o + 2], offset, lo, hi);
        out[o + 3] = em_nn_requantize_s8(acc[3], multiplier[o + 3], shift[o + 3], offset, lo, hi);
    }
    for (; o < o_end; o++) { /* 1..3 rows left */
        const int32_t b = bias != NULL ? bias[o] : 0;
#if EM_NN_TIER_DSP
        const int32_t dot = em_nn_dot_s8_dsp(x, weights + (int32_t)o * k, k, b);
#else
        const int32_t dot = em_nn_dot_s8_scalar(x, weights + (int32_t)o * k, k, b);
#endif
        out[o] = em_nn_requantize_s8(dot, multiplier[o], shift[o], offset, lo, hi);
    }
}
#endif

#if EM_NN_TIER_MVE
/** acc + Σ_{i<n} x[i]·w[i] over int8 pairs: full 16-lane steps, then one tail step whose
 *  predicated (zeroing) loads never touch bytes past x[n - 1] / w[n - 1]. */
static inline int32_t em_nn_dot_s8_mve(const int8_t *x, const int8_t *w, int32_t n, int32_t acc)
{
    int32_t i = 0;
    for (; i + 16 <= n; i += 16) {
        acc = vmladavaq_s8(acc, vld1q_s8(x + i), vld1q_s8(w + i));
    }
    if (i < n) {
        const mve_pred16_t p = vctp8q((uint32_t)(n - i));
        acc = vmladavaq_s8(acc, vldrbq_z_s8(x + i, p), vldrbq_z_s8(w + i, p));
    }
    return acc;
}
#endif

#endif /* EM_NN_DOT_S8_H */
