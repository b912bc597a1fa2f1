/**
 * @file em_quantize_f32_s8.c
 * @brief float32 -> int8 quantization, exactly compiler/reference.py:quantize_f32_s8.
 *        Scalar path, and a Helium (MVE float) path behind em_nn_tier.h.
 *
 * Float32 only, and the product must not be fused with anything: build with -ffp-contract=off.
 *
 * MVE: four lanes per step (VMUL, VRINTN: round half to even, VADD, NaN -> zero point with
 * VCMP/VPSEL, clamp with VMAXNM/VMINNM, VCVT, narrowing store), the tail predicated (vctp32q),
 * never touching an element past count. Bit-exact with the scalar path whether or not the
 * hardware flushes denormals in vector operations (Armv8.1-M lets MVE use the "standard"
 * FPSCR behaviour, FZ = 1): it runs only when |inv_scale| is 0 or a normal number <= 2^125.
 * Then a denormal x gives |x * inv_scale| < 2^-126 * 2^125 = 0.5, which rounds to ±0 whether x
 * is flushed or not, and a denormal product rounds to ±0 too; both add up to the zero point.
 * Any other inv_scale (denormal, > 2^125, ±inf, NaN: never produced by the compiler) takes the
 * scalar path.
 */
#include "em_nn_functions.h"
#include "em_nn_tier.h"

#if EM_NN_MVE_FLOAT
#include <arm_mve.h>
#endif

/** q = clamp(nearbyint(x * inv_scale) + zp), NaN -> zp, one element at a time. */
static void em_nn_quantize_scalar(const float *input, int32_t count, float inv_scale,
                                  int32_t zero_point, int8_t *output)
{
    const float zp = (float)zero_point;
    for (int32_t i = 0; i < count; i++) {
        const float product = input[i] * inv_scale;
        /* The builtin, because firmware is built -ffreestanding (no implicit builtins): with an
         * FPv5 FPU it is one VRINTR (round to nearest even, the default mode); without one,
         * or on the host, it falls back to libm's nearbyintf. */
        float q = __builtin_nearbyintf(product) + zp;
        if (q != q) { /* NaN (x NaN, or inf * 0) */
            q = zp;
        }
        q = q < -128.0f ? -128.0f : q;
        q = q > 127.0f ? 127.0f : q;
        output[i] = (int8_t)q;
    }
}

#if EM_NN_MVE_FLOAT
/** True when the MVE path gives the scalar path's bytes for every x (see the file comment). */
static inline int em_nn_quantize_mve_exact(float inv_scale)
{
    const float a = __builtin_fabsf(inv_scale);
    return a == 0.0f || (a >= 0x1p-126f && a <= 0x1p125f); /* false for NaN */
}

/** Four lanes per step. In place is fine: each step loads its 16 bytes before storing 4 bytes at
 *  an index <= the first float's, so no store overwrites a float not yet loaded. */
static void em_nn_quantize_mve(const float *input, int32_t count, float inv_scale,
                               int32_t zero_point, int8_t *output)
{
    const float32x4_t zp = vdupq_n_f32((float)zero_point);
    const float32x4_t lo = vdupq_n_f32(-128.0f);
    const float32x4_t hi = vdupq_n_f32(127.0f);
    for (int32_t i = 0; i < count; i += 4) {
        const mve_pred16_t p = vctp32q((uint32_t)(count - i));
        const float32x4_t x = vldrwq_z_f32(input + i, p);
        float32x4_t q = vaddq_f32(vrndnq_f32(vmulq_n_f32(x, inv_scale)), zp);
        q = vpselq_f32(zp, q, vcmpneq_f32(q, q)); /* NaN != NaN: lane takes the zero point */
        q = vminnmq_f32(vmaxnmq_f32(q, lo), hi);
        vstrbq_p_s32(output + i, vcvtq_s32_f32(q), p); /* exact: q is an integer in -128..127 */
    }
}
#endif

em_status em_quantize_f32_s8(const float *input, int32_t count, float inv_scale,
                             int32_t zero_point, int8_t *output)
{
    if (count < 0 || (count > 0 && (input == NULL || output == NULL))) {
        return EM_ERR_BAD_ARGUMENT;
    }
#if EM_NN_MVE_FLOAT
    if (em_nn_quantize_mve_exact(inv_scale)) {
        em_nn_quantize_mve(input, count, inv_scale, zero_point, output);
        return EM_OK;
    }
#endif
    em_nn_quantize_scalar(input, count, inv_scale, zero_point, output);
    return EM_OK;
}
