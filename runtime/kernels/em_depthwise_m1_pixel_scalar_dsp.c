/**
 * @file em_depthwise_m1_pixel_scalar_dsp.c
 * @brief The depthwise fast path's pixel on the scalar and DSP tiers: four channels a step (DSP:
 *        SXTB16 halves and SMLABB / SMLATT), then one at a time; taps from a table
 *        (em_nn_depthwise_m1.h).
 */
#include <stdbool.h>
#include <stdint.h>

#include "em_nn_depthwise_m1.h"
#include "em_nn_support.h"

#if !EM_NN_TIER_MVE /* Helium: em_depthwise_m1_pixel_mve.c */
#if defined(__ARM_FEATURE_SAT) && __ARM_FEATURE_SAT
#include <arm_acle.h> /* __ssat */
#endif

/** Requantizes, offsets and clamps one sum. @p simple: every shift <= −2 (L = 0) and the clamp
 *  is all of int8: then em_nn_requantize() is floor(acc·m / 2^32) rounded by a shift right of
 *  E − 32 = −1 − shift >= 1 (the same single rounding), and the clamp is SSAT #8 (or a
 *  compare on cores without it). */
EM_NN_DWF_INLINE int8_t em_nn_dwf_out(int32_t acc, const em_nn_dwf *k, int32_t c, bool simple)
{
    if (simple) {
        const int32_t right = -1 - k->shift[c];
#if EM_NN_TIER_DSP && defined(__GNUC__)
        int32_t high;
        __asm__("smmul %0, %1, %2" : "=r"(high) : "r"(acc), "r"(k->mult[c]));
#else
        const int32_t high = (int32_t)(((int64_t)acc * k->mult[c]) >> 32);
#endif
        const int32_t v = ((high + (1 << (right - 1))) >> right) + k->out_offset;
#if defined(__ARM_FEATURE_SAT) && __ARM_FEATURE_SAT
        return (int8_t)__ssat(v, 8);
#else
        return (int8_t)(v < -128 ? -128 : (v > 127 ? 127 : v));
#endif
    }
    const int32_t v = em_nn_requantize(acc, k->mult[c], k->shift[c]) + k->out_offset;
    return (int8_t)(v < k->act_min ? k->act_min : (v > k->act_max ? k->act_max : v));
}

EM_NN_DWF_INLINE void em_nn_dwf_pixel_sd(const em_nn_dwf *k_arg, const uintptr_t *tap, uintptr_t add,
                                         int8_t *out, bool simple, int32_t taps_fixed)
{
    const em_nn_dwf k_local = *k_arg; /* the int8 stores may alias *k_arg: GCC would re-read it */
    const em_nn_dwf *const k = &k_local;
    const int32_t cs = k->c, taps = taps_fixed > 0 ? taps_fixed : k->taps;
    const int32_t *const bias = k->bias;
    int32_t c = 0;
    for (; c + 4 <= cs; c += 4) {
        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        if (bias != NULL) {
            a0 = bias[c], a1 = bias[c + 1], a2 = bias[c + 2], a3 = bias[c + 3];
        }
        const int8_t *w = k->w + c;
        const uintptr_t at = add + (uintptr_t)c;
        for (int32_t t = 0; t < taps; t++, w += cs) {
            const int8_t *x = (const int8_t *)(tap[t] + at);
#if EM_NN_TIER_DSP
            /* SXTB16 splits both words alike into (c, c+2) and (c+1, c+3) halves. */
            const uint32_t xv = em_nn_read_s8x4(x), wv = em_nn_read_s8x4(w);
            const int32_t x02 = em_nn_sxtb16_02(xv), x13 = em_nn_sxtb16_13(xv);
            const int32_t w02 = em_nn_sxtb16_02(wv), w13 = em_nn_sxtb16_13(wv);
            a0 = __smlabb(x02, w02, a0);
            a1 = __smlabb(x13, w13, a1);
            a2 = __smlatt(x02, w02, a2);
            a3 = __smlatt(x13, w13, a3);
#else
            /* unsigned: wraps modulo 2^32 like the reference's int32 */
            a0 = (int32_t)((uint32_t)a0 + (uint32_t)(x[0] * w[0]));
            a1 = (int32_t)((uint32_t)a1 + (uint32_t)(x[1] * w[1]));
            a2 = (int32_t)((uint32_t)a2 + (uint32_t)(x[2] * w[2]));
            a3 = (int32_t)((uint32_t)a3 + (uint32_t)(x[3] * w[3]));
#endif
        }
        out[c] = em_nn_dwf_out(a0, k, c, simple);
        out[c + 1] = em_nn_dwf_out(a1, k, c + 1, simple);
        out[c + 2] = em_nn_dwf_out(a2, k, c + 2, simple);
        out[c + 3] = em_nn_dwf_out(a3, k, c + 3, simple);
    }
    for (; c < cs; c++) {
        int32_t a = bias != NULL ? bias[c] : 0;
        const int8_t *w = k->w + c;
        for (int32_t t = 0; t < taps; t++, w += cs) {
            a = (int32_t)((uint32_t)a + (uint32_t)(((const int8_t *)(tap[t] + add))[c] * *w));
        }
        out[c] = em_nn_dwf_out(a, k, c, simple);
    }
}

EM_NN_DWF_PIXEL(em_nn_dwf_pixel_any, em_nn_dwf_pixel_sd, false, 0)
EM_NN_DWF_PIXEL(em_nn_dwf_pixel_simple, em_nn_dwf_pixel_sd, true, 0)
#if EM_NN_TIER_DSP /* 3x3, the common layer; on the scalar tier not worth its flash (runtime/kernels/README.md) */
EM_NN_DWF_PIXEL(em_nn_dwf_pixel_simple_9, em_nn_dwf_pixel_sd, true, 9)
#endif

#endif /* !EM_NN_TIER_MVE */
