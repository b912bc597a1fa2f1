/**
 * @file em_depthwise_m1_block_mve.c
 * @brief The depthwise fast path's 4-pixel block on Helium (MVE), for 3x3 at stride 1 with C a
 *        multiple of 4 and every shift <= −2: 4 inner pixels of a row at a time, int32 lanes of
 *        4 channels, each weight load shared by the 4 pixels, addresses from the window corner
 *        instead of a tap table (em_nn_depthwise_m1.h).
 */
#include <stdbool.h>
#include <stdint.h>

#include "em_nn_depthwise_m1.h"

#if EM_NN_TIER_MVE
#include <arm_mve.h>

/** @p npx (1..4, fixed at compile time) output pixels of one row, every tap inside the input:
 *  channels 4 at a time in int32 lanes (VLDRB.S32 widening loads, VMUL + VADD: exact and
 *  wrapping like the reference, any weight including −128), one weight load per tap for all
 *  the pixels. @p x: pixel 0's window corner (row iy0, column ix0); pixel p's is p·@p step
 *  bytes further, kernel row ky's ky·@p rs, column kx's kx·@p dc. C is a multiple of 4.
 *  @p unit (compile time): step = dc = C (stride and dilation 1), so the taps of the pixels
 *  share column addresses and the unrolled loop needs fewer address adds. */
EM_NN_DWF_INLINE void em_nn_dwf_block_mve(const em_nn_dwf *k, const int8_t *x, int32_t step, int32_t rs,
                                          int32_t dc, int32_t kh, int32_t kw, int8_t *out, int32_t npx,
                                          bool unit)
{
    const int32_t cs = k->c;
    if (unit) {
        step = cs;
        dc = cs;
    }
    for (int32_t c = 0; c < cs; c += 4) {
        int32x4_t a0 = k->bias != NULL ? vldrwq_s32(k->bias + c) : vdupq_n_s32(0);
        int32x4_t a1 = a0, a2 = a0, a3 = a0;
        const int8_t *w = k->w + c;
        const int8_t *xr = x + c;
        for (int32_t ky = 0; ky < kh; ky++, xr += rs) {
#pragma GCC unroll 3
            for (int32_t kx = 0; kx < kw; kx++, w += cs) {
                const int8_t *xt = xr + kx * dc;
                const int32x4_t wv = vldrbq_s32(w);
                a0 = vaddq_s32(a0, vmulq_s32(vldrbq_s32(xt), wv));
                if (npx > 1) {
                    a1 = vaddq_s32(a1, vmulq_s32(vldrbq_s32(xt + step), wv));
                }
                if (npx > 2) {
                    a2 = vaddq_s32(a2, vmulq_s32(vldrbq_s32(xt + 2 * step), wv));
                }
                if (npx > 3) {
                    a3 = vaddq_s32(a3, vmulq_s32(vldrbq_s32(xt + 3 * step), wv));
                }
                /* each tap's sums done before the next tap's loads: otherwise GCC's scheduler
                 * runs ahead with products (or keeps loaded columns) and spills the accumulators */
                __asm__ volatile("" : "+w"(a0)::"memory");
                if (npx > 1) {
                    __asm__ volatile("" : "+w"(a1)::"memory");
                }
                if (npx > 2) {
                    __asm__ volatile("" : "+w"(a2)::"memory");
                }
                if (npx > 3) {
                    __asm__ volatile("" : "+w"(a3)::"memory");
                }
            }
        }
        /* em_nn_requantize() as in em_nn_dwf_group() when every shift <= −2 (the caller checks),
         * one multiplier/shift load for the pixels */
        const int32x4_t s = vldrwq_s32(k->shift + c), m = vldrwq_s32(k->mult + c);
        const int32x4_t lo = vdupq_n_s32(k->act_min), hi = vdupq_n_s32(k->act_max);
#define EM_NN_DWF_OUT4(acc, p)                                                                     \
    do {                                                                                        \
        const int32x4_t v_ = vaddq_n_s32(vrshlq_s32(vqdmulhq_s32(acc, m), s), k->out_offset);   \
        vstrbq_s32(out + (p) * cs + c, vminq_s32(vmaxq_s32(v_, lo), hi));                      \
    } while (0)
        EM_NN_DWF_OUT4(a0, 0);
        if (npx > 1) {
            EM_NN_DWF_OUT4(a1, 1);
        }
        if (npx > 2) {
            EM_NN_DWF_OUT4(a2, 2);
        }
        if (npx > 3) {
            EM_NN_DWF_OUT4(a3, 3);
        }
#undef EM_NN_DWF_OUT4
    }
}


/** One out-of-line block instance: @p kfix > 0 fixes a kfix x kfix kernel (unrolled). */
#define EM_NN_DWF_BLOCK(name, kfix, npx, unit)                                               \
    __attribute__((noinline)) void name(const em_nn_dwf *k, const int8_t *x, int32_t step, int32_t rs,  \
                                        int32_t dc, int32_t kh, int32_t kw, int8_t *out)            \
    {                                                                                               \
        em_nn_dwf_block_mve(k, x, step, rs, dc, (kfix) ? (kfix) : kh, (kfix) ? (kfix) : kw, out, npx, unit); \
    }
/* Only 3x3 at stride 1, 4 pixels, paid against the 16-lane pixels (runtime/kernels/README.md) */
EM_NN_DWF_BLOCK(em_nn_dwf_block4_3x3_unit, 3, 4, true)

#endif /* EM_NN_TIER_MVE */
