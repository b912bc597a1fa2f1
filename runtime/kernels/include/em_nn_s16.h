/**
 * @file em_nn_s16.h
 * @brief Internal to the int16-activation (A16W8) weighted kernels (em_conv2d_s16.c,
 *        em_depthwise_conv2d_s16.c, em_fully_connected_s16.c): the int64 requantization of
 *        compiler/fixedpoint.py requantize_s64 and the row loop every tier implements
 *        (em_nn_rows_s16.c).
 *
 * A16W8: activations int16, symmetric (zero point 0: padded cells hold 0, nothing is folded),
 * weights int8, bias int32, accumulator int64. Each product |x·w| <= 2^15 · 2^7 = 2^22, so a sum
 * of K products and the bias stays below K · 2^22 + 2^31: |acc| < 2^47 while K < 2^24, and
 * acc · reduced multiplier (< 2^15) fits int64 (the reference's range).
 * Requantization (TFLite's 16x8 convention): the Q31 multiplier m is rounded to Q15,
 * m15 = min((m + 2^15) >> 16, 0x7FFF); out = clamp((acc · m15 + 2^(E−1)) >> E) with
 * E = 15 − shift, 1..46 (shift −31..EM_NN_S16_MAX_SHIFT).
 */
#ifndef EM_NN_S16_H
#define EM_NN_S16_H

#include <stdbool.h>
#include <stdint.h>

#include "em_nn_tier.h"
#include "em_nn_types.h"

/* Helium's helpers below only where Helium is (not a host build for the MVE tier's sizes and
 * checks, EM_NN_SIZING_TIER: em_weighted_validate_s16.c there reads the constants only). */
#if EM_NN_TIER_MVE && defined(__ARM_FEATURE_MVE)
#define EM_NN_S16_MVE 1
#include <arm_mve.h>
#else
#define EM_NN_S16_MVE 0
#endif

/* Out-of-line helpers keep their loops' registers (inlined, GCC 12 spills the pointers). */
#if defined(__GNUC__)
#define EM_NN_S16_NOINLINE __attribute__((noinline))
#else
#define EM_NN_S16_NOINLINE
#endif

/** Largest requantization shift of an int16 layer (fixedpoint.REQUANTIZE_S64_MAX_SHIFT): the
 *  rounding shift 15 − shift is at least 1. */
#define EM_NN_S16_MAX_SHIFT 14
/** Most products in one sum (K: KH · KW · C_in / groups, or the input features): below 2^24 the
 *  int64 sum stays under 2^47, so its product with the Q15 multiplier fits int64. */
#define EM_NN_S16_MAX_TAPS ((1 << 24) - 1)

/** Most products a 32-bit sum holds exactly: 511 · 2^22 < 2^31 (|x·w| <= 2^22). */
#define EM_NN_S16_SUM32_MAX_TERMS 511
/** Smallest shift the Helium vector requantization takes (its rounding position E <= 32 bits). */
#define EM_NN_S16_VECTOR_MIN_SHIFT (-17)

/** The Q31 multiplier @p m (>= 0) rounded to Q15 (fixedpoint.reduced_multiplier). */
static inline int32_t em_nn_s16_reduced_multiplier(int32_t m)
{
    return m < 0x7FFF0000 ? (int32_t)(((uint32_t)m + 0x8000u) >> 16) : 0x7FFF;
}

/**
 * clamp(requantize_s64(acc), act_min, act_max) (fixedpoint.requantize_s64): (acc · m15 +
 * 2^(E−1)) >> E, E = 15 − shift, in 64-bit two's complement arithmetic that wraps as the
 * reference's NumPy int64 (never reached for |acc| < 2^47), the shift arithmetic.
 * @param m15    em_nn_s16_reduced_multiplier(), 0..0x7FFF
 * @param shift  -31..EM_NN_S16_MAX_SHIFT
 */
static inline int16_t em_nn_requantize_s64_s16(int64_t acc, int32_t m15, int32_t shift, int32_t act_min,
                                               int32_t act_max)
{
    const int32_t e = 15 - shift;
    const uint64_t p = (uint64_t)acc * (uint64_t)(uint32_t)m15 + ((uint64_t)1 << (e - 1));
    /* GCC and Clang convert modulo 2^64 and shift negative values arithmetically */
    const int64_t r = (int64_t)p >> e;
    return (int16_t)(r < act_min ? act_min : r > act_max ? act_max : (int32_t)r);
}

/** One call of em_nn_rows_s16(): @p count consecutive output channels of one pixel (or batch
 *  row) against one input column. */
typedef struct {
    const int8_t *weights;     /**< [count, n] int8, row o at weights + o · n */
    const int32_t *bias;       /**< [count] int32, or NULL */
    const int32_t *multiplier; /**< [count] Q31, >= 0 */
    const int32_t *shift;      /**< [count], -31..EM_NN_S16_MAX_SHIFT */
    int32_t n;                 /**< the column's length, >= 1 */
    int32_t count;             /**< output channels, >= 1 */
    int32_t activation_min;    /**< -32768..activation_max */
    int32_t activation_max;    /**< activation_min..32767 */
    bool sum32;                /**< em_nn_s16_sum32(): every sum (bias included) is exact in int32 */
} em_nn_s16_rows;

/**
 * out[o] = clamp(requantize_s64(bias[o] + Σ_{i<n} x[i] · w[o·n + i])) for o < count, per tier:
 * scalar, one row at a time with an int64 multiply-accumulate; DSP, SMLALD (two 16x16
 * products into the 64-bit accumulator); Helium, four rows per input load, VLDRB.S16 widening
 * the weights and VMLALDAVA.S16 into 64-bit accumulators (VMLADAVA.S16 into 32-bit ones where
 * rows->sum32 proves every partial sum exact), the four outputs requantized in one vector where
 * sum32 holds. The same bytes on every tier. em_nn_rows_s16.c.
 * @param x    [n] int16, any value; 2-byte aligned
 * @param out  [count] int16; must not overlap @p x
 */
void em_nn_rows_s16(const em_nn_s16_rows *rows, const int16_t *x, int16_t *out);

/** Output pixels whose columns are the input itself (a 1x1 convolution without padding): pixel
 *  (i, j), i < rows, j < cols, reads input + i·row_step + j·col_step and writes
 *  output + (i·cols + j)·out_step. */
typedef struct {
    const int16_t *input;      /**< the first pixel's column, 2-byte aligned */
    int32_t rows, cols;        /**< >= 1 */
    int32_t row_step, col_step; /**< input elements between pixel rows, columns */
    int16_t *output;
    int32_t out_step;          /**< output elements between pixels */
} em_nn_s16_pixels;

/**
 * em_nn_rows_s16() at every pixel of @p px. Helium, where rows->sum32 holds: each block of four
 * output channels runs over all the pixels, its requantization constants and bias held in
 * vectors; other tiers and layers, pixel by pixel. em_nn_rows_s16.c.
 */
void em_nn_rows_s16_pixels(const em_nn_s16_rows *rows, const em_nn_s16_pixels *px);

/**
 * Whether every accumulator of a layer whose sums have at most @p terms products, and whose
 * bias is @p bias [n] (NULL: 0), stays exactly in int32 (terms · 2^22 + max |bias| <= INT32_MAX)
 * and every shift is >= EM_NN_S16_VECTOR_MIN_SHIFT (the rounding position E <= 32 that the Helium
 * vector requantization takes): then the 32-bit sums and the vector requantization are bit-exact.
 */
static inline bool em_nn_s16_sum32(int64_t terms, const int32_t *bias, const int32_t *shift, int32_t n)
{
    if (terms > EM_NN_S16_SUM32_MAX_TERMS) {
        return false;
    }
    int64_t most = 0;
    for (int32_t o = 0; o < n; o++) {
        const int64_t b = bias != NULL ? bias[o] : 0;
        const int64_t magnitude = b < 0 ? -b : b;
        most = magnitude > most ? magnitude : most;
        if (shift[o] < EM_NN_S16_VECTOR_MIN_SHIFT) {
            return false;
        }
    }
    return terms * ((int64_t)1 << 22) + most <= INT32_MAX;
}

#if EM_NN_S16_MVE
/**
 * clamp(requantize_s64(acc)) of 4 lanes whose accumulators are exact in int32 and whose shifts
 * are >= −17 (rounding position E = 15 − shift <= 32), bit-exact with em_nn_requantize_s64_s16():
 * with m15 the Q15 multiplier, VRMULH.S32 (a · b + 2^31) >> 32 of a = acc << max(16 − E, 0)
 * (saturating) and b = m15 << min(32 − E, 16) (< 2^31) is (acc · m15 · 2^(32−E) + 2^31) >> 32
 * = (acc · m15 + 2^(E−1)) >> E exactly. Where the pre-shift saturates, |acc| >= 2^(15+E), the
 * exact result is 0 for m15 = 0 (as computed) and else at least 2^15 · m15 >= 32768 in
 * magnitude, of acc's sign: the computed one is too, and both clamp alike.
 */
static inline int32x4_t em_nn_requantize4_s16_mve(int32x4_t acc, int32x4_t multiplier, int32x4_t shift)
{
    const uint32x4_t rounded = vshrq_n_u32(vaddq_n_u32(vreinterpretq_u32_s32(multiplier), 0x8000u), 16);
    const int32x4_t m15 = vreinterpretq_s32_u32(vminq_u32(rounded, vdupq_n_u32(0x7FFFu)));
    const int32x4_t pre = vmaxq_s32(vaddq_n_s32(shift, 1), vdupq_n_s32(0));   /* max(16 − E, 0) */
    const int32x4_t up = vminq_s32(vaddq_n_s32(shift, 17), vdupq_n_s32(16)); /* min(32 − E, 16) */
    return vrmulhq_s32(vqshlq_s32(acc, pre), vshlq_s32(m15, up));
}

/** em_nn_requantize4_s16_mve() in two parts, for lanes whose channels stay while many sums are
 *  requantized: the per-channel pre-shift and multiplier once, then two instructions a vector. */
typedef struct {
    int32x4_t pre;        /**< max(16 − E, 0) */
    int32x4_t multiplier; /**< m15 << min(32 − E, 16) */
} em_nn_s16_requant4;

static inline em_nn_s16_requant4 em_nn_s16_requant4_of(int32x4_t multiplier, int32x4_t shift)
{
    const uint32x4_t rounded = vshrq_n_u32(vaddq_n_u32(vreinterpretq_u32_s32(multiplier), 0x8000u), 16);
    const int32x4_t m15 = vreinterpretq_s32_u32(vminq_u32(rounded, vdupq_n_u32(0x7FFFu)));
    const em_nn_s16_requant4 q = {vmaxq_s32(vaddq_n_s32(shift, 1), vdupq_n_s32(0)),
                                  vshlq_s32(m15, vminq_s32(vaddq_n_s32(shift, 17), vdupq_n_s32(16)))};
    return q;
}

static inline int32x4_t em_nn_s16_requant4_apply(int32x4_t acc, em_nn_s16_requant4 q)
{
    return vrmulhq_s32(vqshlq_s32(acc, q.pre), q.multiplier);
}

#endif

#endif /* EM_NN_S16_H */
