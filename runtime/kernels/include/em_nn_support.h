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

/** Bits the accumulator is shifted left, saturating, before the multiply: max(shift + 2, 0). */
static inline int32_t em_nn_requantize_left_shift(int32_t shift)
{
    return shift + 2 > 0 ? shift + 2 : 0;
}

/**
 * acc * multiplier * 2^(shift - 31), rounded once, half up (CMSIS-NN single rounding), as
 * compiler/fixedpoint.py:requantize defines it: x = sat32(acc << L), L = max(shift + 2, 0);
 * result = (x * multiplier + 2^(E - 1)) >> E with E = 31 - shift + L (33..62).
 * @param multiplier Q31, 0..INT32_MAX
 * @param shift      -31..30
 */
static inline int32_t em_nn_requantize(int32_t acc, int32_t multiplier, int32_t shift)
{
    const int32_t left = em_nn_requantize_left_shift(shift);
    int64_t x = (int64_t)acc * ((int64_t)1 << left);
    x = x > EM_NN_INT32_MAX ? EM_NN_INT32_MAX : (x < EM_NN_INT32_MIN ? EM_NN_INT32_MIN : x);
    const int32_t exponent = 31 - shift + left;
    const int64_t product = x * (int64_t)multiplier;
    /* Arithmetic right shift of a negative int64 (implementation-defined; GCC and Clang shift
     * arithmetically on every target Ember supports): the floor the definition asks for. */
    return (int32_t)((product + ((int64_t)1 << (exponent - 1))) >> exponent);
}

#if EM_NN_TIER_MVE
/**
 * em_nn_requantize() on 4 lanes, bit-exact: VQSHL saturates the pre-shift like sat32(acc << L);
 * VMULH gives floor(x * m / 2^32); VRSHL by -(E - 32) (E - 32 >= 1) rounds half up, and a floor
 * followed by a rounding shift is the single rounding of the exact product.
 * @param shift -31..30 per lane
 */
static inline int32x4_t em_nn_requantize_mve(int32x4_t acc, int32x4_t multiplier, int32x4_t shift)
{
    const int32x4_t zero = vdupq_n_s32(0);
    const int32x4_t left = vmaxq_s32(vaddq_n_s32(shift, 2), zero);
    const int32x4_t x = vqshlq_s32(acc, left);
    /* -(E - 32) = shift - left + 1 */
    const int32x4_t right = vaddq_n_s32(vsubq_s32(shift, left), 1);
    return vrshlq_s32(vmulhq_s32(x, multiplier), right);
}
#endif

#endif /* EM_NN_SUPPORT_H */
