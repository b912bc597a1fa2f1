/**
 * @file em_dequantize_s8_f32.c
 * @brief int8 -> float32 dequantization, exactly compiler/reference.py:dequantize_s8_f32, and
 *        int16 -> float32 (A16W8: the same formula on int16 codes), one arithmetic for both.
 *        Scalar path, and a Helium (MVE float) path behind em_nn_tier.h.
 *
 * Float32 only; build with -ffp-contract=off.
 *
 * MVE: four lanes per step (widening load, VSUB, VCVT exact for |q - zp| <= 65535, VMUL), the
 * tail predicated (vctp32q). Bit-exact with the scalar path whether or not the hardware
 * flushes denormals or uses the default NaN in vector operations: it runs only when scale is
 * ±0 or a finite normal number, so every product is ±0 (same sign either way) or at least
 * |scale| >= 2^-126 in magnitude (never denormal), and no NaN arises. A denormal, infinite or
 * NaN scale (never produced by the compiler) takes the scalar path.
 *
 * Integer path (targets without a single-precision FPU: soft-float M3, hosts): the same bits
 * without a float call. c = q - zp is in -255..255, so |c| * (scale's 24-bit significand) fits in
 * 32 bits; it is rounded to 24 bits half to even and the exponent field is added (a carry out of
 * the significand bumps the exponent by itself). It runs when scale is a normal number with
 * |scale| < 2^119, so every product is 0 or normal and below 255 * 2^119 < 2^127 (no overflow,
 * no denormal); any other scale (never produced by the compiler) takes the float path.
 * int16: c is in -65535..65535 and |c| * m < 2^40 (UMULL); a product of 2^32 or more is first
 * shifted right by k = 1..8 bits into 32, the bits shifted out OR-ed into bit 0 (a sticky bit:
 * at least 8 bits stay below the 24 kept, so half-to-even decides as on the exact product),
 * and k is added to the exponent. It runs when |scale| < 2^111 (65535 * 2^111 < 2^127).
 */
#include <stdbool.h>

#include "em_nn_functions.h"
#include "em_nn_tier.h"

#if !(defined(__ARM_FP) && (__ARM_FP & 4))
#define EM_NN_DEQUANTIZE_INT 1
#else
#define EM_NN_DEQUANTIZE_INT 0
#endif

#if EM_NN_MVE_FLOAT
#include <arm_mve.h>
#endif

/** Element @p i of the input: int8, or int16 where @p wide (a constant in every caller). */
static inline __attribute__((always_inline)) int32_t em_nn_dequantize_load(const void *input, int32_t i, bool wide)
{
    return wide ? (int32_t)((const int16_t *)input)[i] : (int32_t)((const int8_t *)input)[i];
}

static inline __attribute__((always_inline)) void em_nn_dequantize_scalar(const void *input, int32_t count,
                                                                          float scale, int32_t zero_point,
                                                                          float *output, bool wide)
{
    for (int32_t i = 0; i < count; i++) {
        const float centred = (float)(em_nn_dequantize_load(input, i, wide) - zero_point);
        output[i] = centred * scale;
    }
}

#if EM_NN_DEQUANTIZE_INT
static inline uint32_t em_nn_float_bits(float f)
{
    uint32_t b;
    __builtin_memcpy(&b, &f, sizeof b);
    return b;
}

/** True when the integer path gives the scalar path's bits for every q (see the file comment). */
static inline int em_nn_dequantize_int_exact(float scale, bool wide)
{
    const uint32_t e = (em_nn_float_bits(scale) >> 23) & 0xFFu;
    return e != 0u && e < 127u + (wide ? 111u : 119u);
}

static inline __attribute__((always_inline)) void em_nn_dequantize_int(const void *input, int32_t count,
                                                                       float scale, int32_t zero_point,
                                                                       float *output, bool wide)
{
    const uint32_t sb = em_nn_float_bits(scale);
    const uint32_t ms = (sb & 0x7FFFFFu) | 0x800000u;
    const uint32_t sign = sb & 0x80000000u;
    /* Float with significand m (2^23..2^24) and exponent field e + d: sign + ((e + d - 1) << 23)
     * + m. base = (e - 1) << 23, plus d << 23 per bit dropped. */
    const uint32_t base = (sb & 0x7F800000u) - 0x800000u;
    for (int32_t i = 0; i < count; i++) {
        const int32_t c = em_nn_dequantize_load(input, i, wide) - zero_point;
        uint32_t bits;
        if (c == 0) {
            bits = sign; /* +0.0f * scale */
        } else {
            const uint32_t magnitude = (uint32_t)(c < 0 ? -c : c);
            uint32_t p, exponent = base;
            if (wide) { /* |c| < 2^16: the product in 64 bits, brought into 32 with a sticky bit */
                const uint64_t wide_p = (uint64_t)magnitude * ms;
                const uint32_t high = (uint32_t)(wide_p >> 32);
                const int32_t k = high == 0u ? 0 : 32 - __builtin_clz(high); /* 0..8 */
                p = (uint32_t)(wide_p >> k) | (uint32_t)((wide_p & ((1ull << k) - 1u)) != 0u);
                exponent += (uint32_t)k << 23;
            } else {
                p = magnitude * ms; /* < 2^32 */
            }
            const int32_t d = 8 - __builtin_clz(p);           /* bits beyond 24: 0..8 */
            uint32_t m = p;
            if (d > 0) {
                const uint32_t rem = p & ((1u << d) - 1u);
                const uint32_t half = 1u << (d - 1);
                m = (p >> d) + (uint32_t)(rem > half || (rem == half && ((p >> d) & 1u)));
            }
            bits = (sign ^ (c < 0 ? 0x80000000u : 0u)) + exponent + ((uint32_t)d << 23) + m;
        }
        __builtin_memcpy(&output[i], &bits, sizeof bits);
    }
}
#endif

#if EM_NN_MVE_FLOAT
/** True when the MVE path gives the scalar path's bits for every q (see the file comment). */
static inline int em_nn_dequantize_mve_exact(float scale)
{
    const float a = __builtin_fabsf(scale);
    return a == 0.0f || (a >= 0x1p-126f && a <= 0x1.fffffep127f); /* false for NaN, inf */
}

static inline __attribute__((always_inline)) void em_nn_dequantize_mve(const void *input, int32_t count,
                                                                       float scale, int32_t zero_point,
                                                                       float *output, bool wide)
{
    /* the scale in a vector ahead of the loop: VMUL by a general register kept a VMOV in it */
    const float32x4_t factor = vdupq_n_f32(scale);
    for (int32_t i = 0; i < count; i += 4) {
        const mve_pred16_t p = vctp32q((uint32_t)(count - i));
        const int32x4_t q = wide ? vldrhq_z_s32((const int16_t *)input + i, p)
                                 : vldrbq_z_s32((const int8_t *)input + i, p);
        const float32x4_t centred = vcvtq_f32_s32(vsubq_n_s32(q, zero_point));
        vstrwq_p_f32(output + i, vmulq_f32(centred, factor), p);
    }
}
#endif

/** The path for this tier and scale, from int8 or (@p wide) int16 codes. */
static inline __attribute__((always_inline)) void em_nn_dequantize(const void *input, int32_t count, float scale,
                                                                   int32_t zero_point, float *output, bool wide)
{
#if EM_NN_MVE_FLOAT
    if (em_nn_dequantize_mve_exact(scale)) {
        em_nn_dequantize_mve(input, count, scale, zero_point, output, wide);
        return;
    }
#endif
#if EM_NN_DEQUANTIZE_INT
    if (em_nn_dequantize_int_exact(scale, wide)) {
        em_nn_dequantize_int(input, count, scale, zero_point, output, wide);
        return;
    }
#endif
    em_nn_dequantize_scalar(input, count, scale, zero_point, output, wide);
}

em_nn_status em_dequantize_s8_f32(const int8_t *input, int32_t count, float scale,
                                  int32_t zero_point, float *output)
{
    if (count < 0 || (count > 0 && (input == NULL || output == NULL))) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    em_nn_dequantize(input, count, scale, zero_point, output, false);
    return EM_NN_OK;
}

em_nn_status em_dequantize_s16_f32(const int16_t *input, int32_t count, float scale,
                                   int32_t zero_point, float *output)
{
    if (count < 0 || (count > 0 && (input == NULL || output == NULL)) || zero_point < -32768
        || zero_point > 32767) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    em_nn_dequantize(input, count, scale, zero_point, output, true);
    return EM_NN_OK;
}
