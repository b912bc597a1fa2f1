/**
 * @file em_nn_support.h
 * @brief Internal helpers of the kernels (em_nn_*): fixed-point requantization.
 *
 * These are the C forms of compiler/fixedpoint.py and must match it bit for bit.
 */
#ifndef EM_NN_SUPPORT_H
#define EM_NN_SUPPORT_H

#include <stdint.h>

#include "em_nn_tier.h"

#if EM_NN_TIER_MVE
#include <arm_mve.h>
#endif

#define EM_NN_INT32_MIN ((int32_t)(-2147483647 - 1))
#define EM_NN_INT32_MAX ((int32_t)2147483647)

/**
 * gemmlowp SaturatingRoundingDoublingHighMul: round(a * b / 2^31), ties up, with C's truncating
 * division, saturating INT32_MIN * INT32_MIN to INT32_MAX.
 */
static inline int32_t em_nn_sat_doubling_high_mul(int32_t a, int32_t b)
{
    if (a == EM_NN_INT32_MIN && b == EM_NN_INT32_MIN) {
        return EM_NN_INT32_MAX;
    }
    const int64_t ab = (int64_t)a * (int64_t)b;
    const int64_t nudge = ab >= 0 ? ((int64_t)1 << 30) : (1 - ((int64_t)1 << 30));
    return (int32_t)((ab + nudge) / ((int64_t)1 << 31));
}

/** gemmlowp RoundingDivideByPOT: x / 2^exponent rounded to nearest, ties away from zero.
 *  @param exponent 0..31 */
static inline int32_t em_nn_rounding_divide_by_pot(int32_t x, int32_t exponent)
{
    const int32_t mask = (int32_t)(((uint32_t)1 << exponent) - 1u);
    const int32_t remainder = x & mask;
    const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    /* Arithmetic right shift of a negative int32 (implementation-defined; GCC and Clang
     * shift arithmetically on every target Ember supports). */
    return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/**
 * TFLite MultiplyByQuantizedMultiplier: acc * multiplier * 2^(shift - 31) with double rounding.
 * The left shift (shift > 0) wraps in 32 bits, as fixedpoint.requantize does.
 * @param multiplier Q31, 0..INT32_MAX
 * @param shift      -31..30
 */
static inline int32_t em_nn_requantize(int32_t acc, int32_t multiplier, int32_t shift)
{
    const int32_t left = shift > 0 ? shift : 0;
    const int32_t right = shift > 0 ? 0 : -shift;
    const int32_t shifted = (int32_t)((uint32_t)acc << left);
    return em_nn_rounding_divide_by_pot(em_nn_sat_doubling_high_mul(shifted, multiplier), right);
}

/** Clamps @p v to lo..hi and narrows it to int8 (lo, hi within -128..127). */
static inline int8_t em_nn_clamp_s8(int32_t v, int32_t lo, int32_t hi)
{
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
    return (int8_t)v;
}

#if EM_NN_TIER_MVE
/**
 * em_nn_requantize() on 4 lanes, bit-exact: VQRDMULH is SaturatingRoundingDoublingHighMul
 * (round half up, INT32_MIN² saturates), and VRSHL by -e rounds half up, so negative lanes are
 * first nudged down by one (when e > 0) to make ties go away from zero, as RoundingDivideByPOT.
 * @param shift -31..30 per lane
 */
static inline int32x4_t em_nn_requantize_mve(int32x4_t acc, int32x4_t multiplier, int32x4_t shift)
{
    const int32x4_t zero = vdupq_n_s32(0);
    const int32x4_t right = vminq_s32(shift, zero); /* -e, e >= 0 */
    const int32x4_t shifted = vshlq_s32(acc, vmaxq_s32(shift, zero)); /* wraps like the C path */
    const int32x4_t high = vqrdmulhq_s32(shifted, multiplier);
    const int32x4_t fixup = vshrq_n_s32(vandq_s32(high, right), 31); /* -1: high < 0 and e > 0 */
    return vrshlq_s32(vqaddq_s32(high, fixup), right);
}
#endif

#endif /* EM_NN_SUPPORT_H */
