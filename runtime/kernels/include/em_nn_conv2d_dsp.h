/**
 * @file em_nn_conv2d_dsp.h
 * @brief Internal: the DSP tier's two-pixel dot products of em_conv2d_s8()
 *        (em_conv2d_s8_scalar_dsp.c): two columns by two weight rows per pass, each weight
 *        word's two SXTB16 serving both pixels, in inline assembly (C below -O1, where GCC has
 *        too few registers for it, and for other compilers).
 */
#ifndef EM_NN_CONV2D_DSP_H
#define EM_NN_CONV2D_DSP_H

#include <stdint.h>

#include "em_nn_support.h"
#include "em_nn_tier.h"

#if EM_NN_TIER_DSP

/**
 * sums[2c + r] = Σ_{i<4n} col_c[i]·w_r[i] for two columns c (word-interleaved at @p x, see
 * em_nn_conv_interleave_dsp) and two weight rows r (w_1 = w_0 + stride): each weight word's two
 * SXTB16 serve both columns. Per four inputs: one LDRD, four SXTB16 of the columns, per row one
 * LDR, two SXTB16 and four SMLAD: 19 instructions per 16 MACs and the loop's SUBS + BNE per
 * 16 inputs (em_nn_dot4_s8_dsp: 23).
 */
static inline void em_nn_dot2x2_s8_dsp(const uint32_t *x, const int8_t *w, int32_t stride, int32_t n,
                                       int32_t sums[4])
{
    int32_t a00 = 0, a01 = 0, a10 = 0, a11 = 0;
#if defined(__GNUC__) && !defined(__NO_INLINE__) /* -O0 (__NO_INLINE__): too few registers, C */
    /* Four steps per SUBS + BNE while 16 inputs are left, then one per SUBS + BNE. */
#define EM_NN_DOT2X2_DSP_STEP \
    "ldrd   %[t], %[u], [%[x]], #8\n\t" \
    "sxtb16 %[x0a], %[t]\n\t" \
    "sxtb16 %[x0b], %[t], ror #8\n\t" \
    "sxtb16 %[x1a], %[u]\n\t" \
    "sxtb16 %[x1b], %[u], ror #8\n\t" \
    "ldr    %[t], [%[w], %[s]]\n\t" \
    "sxtb16 %[u], %[t]\n\t" \
    "smlad  %[a01], %[x0a], %[u], %[a01]\n\t" \
    "smlad  %[a11], %[x1a], %[u], %[a11]\n\t" \
    "sxtb16 %[t], %[t], ror #8\n\t" \
    "smlad  %[a01], %[x0b], %[t], %[a01]\n\t" \
    "smlad  %[a11], %[x1b], %[t], %[a11]\n\t" \
    "ldr    %[t], [%[w]], #4\n\t" \
    "sxtb16 %[u], %[t]\n\t" \
    "smlad  %[a00], %[x0a], %[u], %[a00]\n\t" \
    "smlad  %[a10], %[x1a], %[u], %[a10]\n\t" \
    "sxtb16 %[t], %[t], ror #8\n\t" \
    "smlad  %[a00], %[x0b], %[t], %[a00]\n\t" \
    "smlad  %[a10], %[x1b], %[t], %[a10]\n\t"
    int32_t quads = n >> 2;
    n &= 3;
    if (quads > 0) {
        int32_t x0a, x0b, x1a, x1b, t, u;
        __asm__("1:\n\t" EM_NN_DOT2X2_DSP_STEP EM_NN_DOT2X2_DSP_STEP EM_NN_DOT2X2_DSP_STEP
                EM_NN_DOT2X2_DSP_STEP
                "subs   %[n], %[n], #1\n\t"
                "bne    1b"
                : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "+r"(a10), [a11] "+r"(a11), [x] "+r"(x),
                  [w] "+r"(w), [n] "+r"(quads), [x0a] "=&r"(x0a), [x0b] "=&r"(x0b), [x1a] "=&r"(x1a),
                  [x1b] "=&r"(x1b), [t] "=&r"(t), [u] "=&r"(u)
                : [s] "r"(stride)
                : "cc", "memory");
    }
    if (n > 0) {
        int32_t x0a, x0b, x1a, x1b, t, u;
        __asm__("1:\n\t" EM_NN_DOT2X2_DSP_STEP
                "subs   %[n], %[n], #1\n\t"
                "bne    1b"
                : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "+r"(a10), [a11] "+r"(a11), [x] "+r"(x),
                  [w] "+r"(w), [n] "+r"(n), [x0a] "=&r"(x0a), [x0b] "=&r"(x0b), [x1a] "=&r"(x1a),
                  [x1b] "=&r"(x1b), [t] "=&r"(t), [u] "=&r"(u)
                : [s] "r"(stride)
                : "cc", "memory");
    }
#undef EM_NN_DOT2X2_DSP_STEP
#else
    for (; n > 0; n--, x += 2, w += 4) {
        const int32_t x0a = em_nn_sxtb16_02(x[0]), x0b = em_nn_sxtb16_13(x[0]);
        const int32_t x1a = em_nn_sxtb16_02(x[1]), x1b = em_nn_sxtb16_13(x[1]);
        uint32_t wv = em_nn_read_s8x4(w);
        a00 = __smlad(x0b, em_nn_sxtb16_13(wv), __smlad(x0a, em_nn_sxtb16_02(wv), a00));
        a10 = __smlad(x1b, em_nn_sxtb16_13(wv), __smlad(x1a, em_nn_sxtb16_02(wv), a10));
        wv = em_nn_read_s8x4(w + stride);
        a01 = __smlad(x0b, em_nn_sxtb16_13(wv), __smlad(x0a, em_nn_sxtb16_02(wv), a01));
        a11 = __smlad(x1b, em_nn_sxtb16_13(wv), __smlad(x1a, em_nn_sxtb16_02(wv), a11));
    }
#endif
    sums[0] = a00, sums[1] = a01, sums[2] = a10, sums[3] = a11;
}

/**
 * em_nn_dot2x2_s8_dsp() with the columns already sign-extended (em_nn_conv_extend_dsp at
 * @p x): per four inputs two LDRD of the four column words, per row one LDR, two SXTB16 and
 * four SMLAD: 16 instructions per 16 MACs (19 when the columns are extended per row pair).
 * @p n (words per column) a multiple of 4: four steps per loop pass, no remainder loop.
 */
static inline void em_nn_dot2x2x_s8_dsp(const uint32_t *x, const int8_t *w, int32_t stride, int32_t n,
                                        int32_t sums[4])
{
    int32_t a00 = 0, a01 = 0, a10 = 0, a11 = 0;
#if defined(__GNUC__) && !defined(__NO_INLINE__) /* as em_nn_dot2x2_s8_dsp */
#define EM_NN_DOT2X2X_DSP_STEP \
    "ldrd   %[x0a], %[x0b], [%[x]], #8\n\t" \
    "ldrd   %[x1a], %[x1b], [%[x]], #8\n\t" \
    "ldr    %[t], [%[w], %[s]]\n\t" \
    "sxtb16 %[u], %[t]\n\t" \
    "smlad  %[a01], %[x0a], %[u], %[a01]\n\t" \
    "smlad  %[a11], %[x1a], %[u], %[a11]\n\t" \
    "sxtb16 %[t], %[t], ror #8\n\t" \
    "smlad  %[a01], %[x0b], %[t], %[a01]\n\t" \
    "smlad  %[a11], %[x1b], %[t], %[a11]\n\t" \
    "ldr    %[t], [%[w]], #4\n\t" \
    "sxtb16 %[u], %[t]\n\t" \
    "smlad  %[a00], %[x0a], %[u], %[a00]\n\t" \
    "smlad  %[a10], %[x1a], %[u], %[a10]\n\t" \
    "sxtb16 %[t], %[t], ror #8\n\t" \
    "smlad  %[a00], %[x0b], %[t], %[a00]\n\t" \
    "smlad  %[a10], %[x1b], %[t], %[a10]\n\t"
    int32_t quads = n >> 2; /* n % 4 == 0: the caller's condition */
    if (quads > 0) {
        int32_t t, u, x0a, x0b, x1a, x1b;
        __asm__("1:\n\t" EM_NN_DOT2X2X_DSP_STEP EM_NN_DOT2X2X_DSP_STEP EM_NN_DOT2X2X_DSP_STEP
                EM_NN_DOT2X2X_DSP_STEP
                "subs   %[n], %[n], #1\n\t"
                "bne    1b"
                : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "+r"(a10), [a11] "+r"(a11), [x] "+r"(x),
                  [w] "+r"(w), [n] "+r"(quads), [t] "=&r"(t), [u] "=&r"(u), [x0a] "=&r"(x0a), [x0b] "=&r"(x0b),
                  [x1a] "=&r"(x1a), [x1b] "=&r"(x1b)
                : [s] "r"(stride)
                : "cc", "memory");
    }
#undef EM_NN_DOT2X2X_DSP_STEP
#else
    for (; n > 0; n--, x += 4, w += 4) {
        uint32_t wv = em_nn_read_s8x4(w);
        a00 = __smlad((int32_t)x[1], em_nn_sxtb16_13(wv), __smlad((int32_t)x[0], em_nn_sxtb16_02(wv), a00));
        a10 = __smlad((int32_t)x[3], em_nn_sxtb16_13(wv), __smlad((int32_t)x[2], em_nn_sxtb16_02(wv), a10));
        wv = em_nn_read_s8x4(w + stride);
        a01 = __smlad((int32_t)x[1], em_nn_sxtb16_13(wv), __smlad((int32_t)x[0], em_nn_sxtb16_02(wv), a01));
        a11 = __smlad((int32_t)x[3], em_nn_sxtb16_13(wv), __smlad((int32_t)x[2], em_nn_sxtb16_02(wv), a11));
    }
#endif
    sums[0] = a00, sums[1] = a01, sums[2] = a10, sums[3] = a11;
}

#endif /* EM_NN_TIER_DSP */

#endif /* EM_NN_CONV2D_DSP_H */
