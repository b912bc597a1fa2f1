/**
 * @file em_depthwise_m1_pixel_mve.c
 * @brief The depthwise fast path's pixel on Helium (MVE): 16 channels a step, taps from a table
 *        (em_nn_depthwise_m1.h).
 *
 * VMULLB / VMULLT multiply int8 lanes into int16 products of the even / odd channels; two taps'
 * products are added in int16 before they are widened into the int32 sums, which is exact when
 * no weight is −128 (|x·w| <= 128·127, a pair <= 32512): the caller checks that once per call
 * (PT2E's symmetric weights are −127..127). Widening splits the 16 channels over four int32
 * vectors (channels {0,4,8,12}, {2,6,10,14}, {1,5,9,13}, {3,7,11,15}); bias, multipliers and
 * shifts are gathered in that order, and the narrowing pairs VQMOVNB/VQMOVNT then VMOVNB/VMOVNT
 * put the bytes back in channel order. A channel tail is predicated (VCTP): no byte past a
 * pixel's channels is read or written.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "em_nn_depthwise_m1.h"

#if EM_NN_TIER_MVE
#include <arm_mve.h>

/** Four int32 of @p base at lane offsets @p off (elements); predicated only in a tail group. */
#define EM_NN_DWF_GATHER(base, off, pred)                                                          \
    (tail ? vldrwq_gather_shifted_offset_z_s32(base, off, pred) : vldrwq_gather_shifted_offset_s32(base, off))

/** Channels c..c+15 of one pixel (c + 16 > C: @p tail, predicated). */
EM_NN_DWF_INLINE void em_nn_dwf_group(const em_nn_dwf *k, const uintptr_t *tap, uintptr_t add, int32_t c,
                                      int8_t *out, bool tail, bool left, int32_t taps_fixed)
{
    const int32_t cs = k->c;
    const mve_pred16_t p8 = tail ? vctp8q((uint32_t)(cs - c)) : 0xFFFF;
    const uint32x4_t o0 = vidupq_n_u32(0, 4), o1 = vidupq_n_u32(2, 4);
    const uint32x4_t o2 = vidupq_n_u32(1, 4), o3 = vidupq_n_u32(3, 4);
    mve_pred16_t q0 = 0xFFFF, q1 = 0xFFFF, q2 = 0xFFFF, q3 = 0xFFFF;
    if (tail) {
        const uint32x4_t left_c = vdupq_n_u32((uint32_t)(cs - c));
        q0 = vcmphiq_u32(left_c, o0);
        q1 = vcmphiq_u32(left_c, o1);
        q2 = vcmphiq_u32(left_c, o2);
        q3 = vcmphiq_u32(left_c, o3);
    }
    int32x4_t a0, a1, a2, a3;
    if (k->bias != NULL) {
        a0 = EM_NN_DWF_GATHER(k->bias + c, o0, q0);
        a1 = EM_NN_DWF_GATHER(k->bias + c, o1, q1);
        a2 = EM_NN_DWF_GATHER(k->bias + c, o2, q2);
        a3 = EM_NN_DWF_GATHER(k->bias + c, o3, q3);
    } else {
        a0 = a1 = a2 = a3 = vdupq_n_s32(0);
    }
    const int8_t *w = k->w + c;
    const int32_t taps = taps_fixed > 0 ? taps_fixed : k->taps; /* 9: unrolled */
    int32_t t = 0;
    for (; t + 2 <= taps; t += 2, w += 2 * cs) {
        const int8_t *x1 = (const int8_t *)(tap[t] + add) + c, *x2 = (const int8_t *)(tap[t + 1] + add) + c;
        const int8x16_t xv1 = tail ? vldrbq_z_s8(x1, p8) : vldrbq_s8(x1);
        const int8x16_t wv1 = tail ? vldrbq_z_s8(w, p8) : vldrbq_s8(w);
        int16x8_t e = vmullbq_int_s8(xv1, wv1);
        int16x8_t o = vmulltq_int_s8(xv1, wv1);
        const int8x16_t xv2 = tail ? vldrbq_z_s8(x2, p8) : vldrbq_s8(x2);
        const int8x16_t wv2 = tail ? vldrbq_z_s8(w + cs, p8) : vldrbq_s8(w + cs);
        /* |x·w| <= 128·127: two products fit int16 */
        e = vaddq_s16(e, vmullbq_int_s8(xv2, wv2));
        o = vaddq_s16(o, vmulltq_int_s8(xv2, wv2));
        a0 = vaddq_s32(a0, vmovlbq_s16(e));
        a1 = vaddq_s32(a1, vmovltq_s16(e));
        a2 = vaddq_s32(a2, vmovlbq_s16(o));
        a3 = vaddq_s32(a3, vmovltq_s16(o));
    }
    if (t < taps) {
        const int8_t *x1 = (const int8_t *)(tap[t] + add) + c;
        const int8x16_t xv1 = tail ? vldrbq_z_s8(x1, p8) : vldrbq_s8(x1);
        const int8x16_t wv1 = tail ? vldrbq_z_s8(w, p8) : vldrbq_s8(w);
        const int16x8_t e = vmullbq_int_s8(xv1, wv1), o = vmulltq_int_s8(xv1, wv1);
        a0 = vaddq_s32(a0, vmovlbq_s16(e));
        a1 = vaddq_s32(a1, vmovltq_s16(e));
        a2 = vaddq_s32(a2, vmovlbq_s16(o));
        a3 = vaddq_s32(a3, vmovltq_s16(o));
    }
    /* em_nn_requantize(), lane by lane: x = sat32(acc << L), L = max(shift + 2, 0) (0 for every
     * channel unless @p left), then round(x·m / 2^E), E = 31 − shift + L, computed as VQDMULH
     * (floor(x·m / 2^31); m >= 0, so it never saturates) and a rounding shift right by
     * E − 31 = L − shift >= 1: floor(floor(y) / 2^n + 1/2) = floor(y / 2^n + 1/2) for integer
     * 2^n, so this is the reference's single rounding. Narrowed as soon as each is done
     * (fewer live registers). */
#define EM_NN_DWF_REQ(acc, off, pred)                                                              \
    do {                                                                                        \
        const int32x4_t s_ = EM_NN_DWF_GATHER(k->shift + c, off, pred);                        \
        const int32x4_t m_ = EM_NN_DWF_GATHER(k->mult + c, off, pred);                         \
        if (left) {                                                                             \
            const int32x4_t l_ = vmaxq_s32(vaddq_n_s32(s_, 2), vdupq_n_s32(0));                 \
            acc = vrshlq_s32(vqdmulhq_s32(vqshlq_s32(acc, l_), m_), vsubq_s32(s_, l_));         \
        } else {                                                                                \
            acc = vrshlq_s32(vqdmulhq_s32(acc, m_), s_);                                        \
        }                                                                                       \
    } while (0)
    /* Saturating to int16 keeps the clamp exact: out_offset is int8, the clamp within int8. */
    int16x8_t ev = vuninitializedq_s16(), od = vuninitializedq_s16();
    EM_NN_DWF_REQ(a0, o0, q0);
    ev = vqmovnbq_s32(ev, a0); /* channels 0, 4, 8, 12 in lanes 0, 2, 4, 6 */
    EM_NN_DWF_REQ(a1, o1, q1);
    ev = vqmovntq_s32(ev, a1); /* channels 2, 6, 10, 14 in lanes 1, 3, 5, 7 */
    EM_NN_DWF_REQ(a2, o2, q2);
    od = vqmovnbq_s32(od, a2);
    EM_NN_DWF_REQ(a3, o3, q3);
    od = vqmovntq_s32(od, a3);
#undef EM_NN_DWF_REQ
    ev = vqaddq_n_s16(ev, (int16_t)k->out_offset);
    od = vqaddq_n_s16(od, (int16_t)k->out_offset);
    int8x16_t y = vuninitializedq_s8();
    if (k->act_min == -128 && k->act_max == 127) { /* the clamp is the saturating narrowing */
        y = vqmovntq_s16(vqmovnbq_s16(y, ev), od);
    } else {
        const int16x8_t lo = vdupq_n_s16((int16_t)k->act_min), hi = vdupq_n_s16((int16_t)k->act_max);
        ev = vminq_s16(vmaxq_s16(ev, lo), hi);
        od = vminq_s16(vmaxq_s16(od, lo), hi);
        y = vmovntq_s16(vmovnbq_s16(y, ev), od);
    }
    if (tail) {
        vstrbq_p_s8(out + c, y, p8);
    } else {
        vstrbq_s8(out + c, y);
    }
}

EM_NN_DWF_INLINE void em_nn_dwf_pixel_mve(const em_nn_dwf *k, const uintptr_t *tap, uintptr_t add,
                                          int8_t *out, bool left, int32_t taps_fixed)
{
#if defined(__OPTIMIZE_SIZE__)
    /* One copy of the group: every group predicated (all lanes on in a full one), which costs a
     * VPST per few loads but halves the function. */
    for (int32_t c = 0; c < k->c; c += 16) {
        em_nn_dwf_group(k, tap, add, c, out, true, left, taps_fixed);
    }
#else
    const int32_t full = k->c & ~15;
    int32_t c = 0;
    for (; c < full; c += 16) {
        em_nn_dwf_group(k, tap, add, c, out, false, left, taps_fixed);
    }
    if (c < k->c) {
        em_nn_dwf_group(k, tap, add, c, out, true, left, taps_fixed);
    }
#endif
}

EM_NN_DWF_PIXEL(em_nn_dwf_pixel, em_nn_dwf_pixel_mve, false, 0)
/* No pixel with the 3x3 taps fixed: unrolled, it cost more instructions at -O2 than the loop, and
 * flash (runtime/kernels/README.md). */
EM_NN_DWF_PIXEL(em_nn_dwf_pixel_left, em_nn_dwf_pixel_mve, true, 0)

#endif /* EM_NN_TIER_MVE */
