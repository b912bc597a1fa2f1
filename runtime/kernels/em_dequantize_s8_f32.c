/**
 * @file em_dequantize_s8_f32.c
 * @brief int8 -> float32 dequantization, exactly compiler/reference.py:dequantize_s8_f32.
 *        Scalar path, and a Helium (MVE float) path behind em_nn_tier.h.
 *
 * Float32 only; build with -ffp-contract=off.
 *
 * MVE: four lanes per step (widening load, VSUB, VCVT exact for |q - zp| <= 255, VMUL), the
 * tail predicated (vctp32q). Bit-exact with the scalar path whether or not the hardware
 * flushes denormals or uses the default NaN in vector operations: it runs only when scale is
 * ±0 or a finite normal number, so every product is ±0 (same sign either way) or at least
 * |scale| >= 2^-126 in magnitude (never denormal), and no NaN arises. A denormal, infinite or
 * NaN scale (never produced by the compiler) takes the scalar path.
 */
#include "em_nn_functions.h"
#include "em_nn_tier.h"

#if EM_NN_MVE_FLOAT
#include <arm_mve.h>
#endif

static void em_nn_dequantize_scalar(const int8_t *input, int32_t count, float scale,
                                    int32_t zero_point, float *output)
{
    for (int32_t i = 0; i < count; i++) {
        const float centred = (float)((int32_t)input[i] - zero_point);
        output[i] = centred * scale;
    }
}

#if EM_NN_MVE_FLOAT
/** True when the MVE path gives the scalar path's bits for every q (see the file comment). */
static inline int em_nn_dequantize_mve_exact(float scale)
{
    const float a = __builtin_fabsf(scale);
    return a == 0.0f || (a >= 0x1p-126f && a <= 0x1.fffffep127f); /* false for NaN, inf */
}

static void em_nn_dequantize_mve(const int8_t *input, int32_t count, float scale,
                                 int32_t zero_point, float *output)
{
    for (int32_t i = 0; i < count; i += 4) {
        const mve_pred16_t p = vctp32q((uint32_t)(count - i));
        const int32x4_t q = vldrbq_z_s32(input + i, p);
        const float32x4_t centred = vcvtq_f32_s32(vsubq_n_s32(q, zero_point));
        vstrwq_p_f32(output + i, vmulq_n_f32(centred, scale), p);
    }
}
#endif

em_status em_dequantize_s8_f32(const int8_t *input, int32_t count, float scale,
                               int32_t zero_point, float *output)
{
    if (count < 0 || (count > 0 && (input == NULL || output == NULL))) {
        return EM_ERR_BAD_ARGUMENT;
    }
#if EM_NN_MVE_FLOAT
    if (em_nn_dequantize_mve_exact(scale)) {
        em_nn_dequantize_mve(input, count, scale, zero_point, output);
        return EM_OK;
    }
#endif
    em_nn_dequantize_scalar(input, count, scale, zero_point, output);
    return EM_OK;
}
