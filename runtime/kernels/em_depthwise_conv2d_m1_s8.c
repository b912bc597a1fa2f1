/**
 * @file em_depthwise_conv2d_m1_s8.c
 * @brief The fast path of em_depthwise_conv2d_s8() for depth multiplier 1 on every tier
 *        (scalar, DSP, Helium): pixel by pixel, channels innermost, taps from a table.
 *
 * Each output pixel reads its taps through a table of addresses: kernel row ky, column kx of a
 * window sits at tap[t] + add (t = ky·KW + kx). Inside the input, tap[t] points at the tap's
 * input pixel; a padded tap points at a row of C bytes that hold input_zero_point (the value of
 * a padded cell), so that every tap adds x·w and the border needs no per-tap branch. Rows whose
 * kernel rows all lie inside the input share one table per output row (add = the pixel's
 * column offset); the other pixels build their own.
 *
 * Sums are exact int32 (wrapping like the reference, which never wraps for 3x3 int8 anyway) and
 * the requantization is em_nn_requantize() (scalar, DSP) or its bit-exact vector form, so the
 * bytes equal compiler/reference.py:depthwise_conv2d_s8.
 *
 * Helium: 16 channels per step. VMULLB / VMULLT multiply int8 lanes into int16 products of the
 * even / odd channels; two taps' products are added in int16 before they are widened into the
 * int32 sums, which is exact when no weight is −128 (|x·w| <= 128·127, a pair <= 32512): the
 * caller checks that once per call (PT2E's symmetric weights are −127..127). Widening splits
 * the 16 channels over four int32 vectors (channels {0,4,8,12}, {2,6,10,14}, {1,5,9,13},
 * {3,7,11,15}); bias, multipliers and shifts are gathered in that order, and the narrowing
 * pairs VQMOVNB/VQMOVNT then VMOVNB/VMOVNT put the bytes back in channel order. A channel tail
 * is predicated (VCTP): no byte past a pixel's channels is read or written.
 *
 * Helium, 3x3 at stride 1 with C a multiple of 4 and every shift <= −2: 4 inner pixels of a row
 * at a time (em_nn_dwf_block_mve()): int32 lanes of 4 channels, each weight load shared by the
 * 4 pixels, addresses from the window corner instead of a tap table.
 *
 * Helium, any kernel, stride and dilation: when the caller's scratch holds the KH padded rows
 * (em_nn_dwf_rows_bytes(), planned in the arena), each output row's input rows are first copied
 * there between zero-point columns (em_nn_dwf_rows_mve()), so that every pixel is an inner one:
 * one tap table serves the layer, and the 4-pixel blocks reach the borders. Layers whose rows do
 * not fit walk the input itself with tap tables (a table per border pixel).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "em_nn_functions.h"
#include "em_nn_variants.h"
#include "em_nn_support.h"
#include "em_nn_tier.h"

#if EM_NN_TIER_MVE
#include <arm_mve.h>
#elif defined(__ARM_FEATURE_SAT) && __ARM_FEATURE_SAT
#include <arm_acle.h> /* __ssat */
#endif

#if defined(__GNUC__)
#define EM_NN_DWF_INLINE static inline __attribute__((always_inline))
#else
#define EM_NN_DWF_INLINE static inline
#endif

/* EM_NN_DWF_MAX_TAPS, EM_NN_DWF_MAX_CHANNELS: em_nn_functions.h (the sizing shares them) */

/** One out-of-line instance of a pixel function @p impl(k, tap, add, out, @p flag, @p taps):
 *  a variant flag and a tap count fixed at compile time (9: the 3x3 loop unrolled). */
#define EM_NN_DWF_PIXEL(name, impl, flag, taps)                                                     \
    static __attribute__((noinline)) void name(const em_nn_dwf *k, const uintptr_t *tap, uintptr_t add, \
                                               int8_t *out)                                         \
    {                                                                                               \
        impl(k, tap, add, out, flag, taps);                                                         \
    }

/** What every pixel of one call shares. */
typedef struct {
    int32_t c;                /**< channels (input = output) */
    int32_t taps;             /**< KH·KW */
    int32_t out_offset, act_min, act_max;
    const int8_t *w;          /**< [KH·KW, C] */
    const int32_t *bias;      /**< [C] or NULL */
    const int32_t *mult, *shift;
} em_nn_dwf;

#if EM_NN_TIER_MVE

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
     * VPST per few loads but halves the function (about 700 bytes at -Os). */
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
/* No pixel with the 3x3 taps fixed: unrolled, it cost more instructions at -O2 than the loop
 * (measured on corstone300: DS-CNN 1,227,470 -> 1,217,766, MobileNet 4,340,565 -> 4,312,776 without
 * it) and about 100 bytes more flash. */
EM_NN_DWF_PIXEL(em_nn_dwf_pixel_left, em_nn_dwf_pixel_mve, true, 0)

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

typedef void (*em_nn_dwf_block_fn)(const em_nn_dwf *, const int8_t *, int32_t, int32_t, int32_t, int32_t,
                                   int32_t, int8_t *);
/** One out-of-line block instance: @p kfix > 0 fixes a kfix x kfix kernel (unrolled). */
#define EM_NN_DWF_BLOCK(name, kfix, npx, unit)                                               \
    static __attribute__((noinline)) void name(const em_nn_dwf *k, const int8_t *x, int32_t step,  \
                                               int32_t rs, int32_t dc, int32_t kh, int32_t kw,    \
                                               int8_t *out)                                        \
    {                                                                                               \
        em_nn_dwf_block_mve(k, x, step, rs, dc, (kfix) ? (kfix) : kh, (kfix) ? (kfix) : kw, out, npx, unit); \
    }
/* Only 3x3 at stride 1, 4 pixels, paid (measured on corstone300 against the 16-lane pixels:
 * 3 / 2 / 1-pixel blocks, stride 2 and DS-CNN's 5-wide rows cost more) */
EM_NN_DWF_BLOCK(em_nn_dwf_block4_3x3_unit, 3, 4, true)

#else /* scalar and DSP: four channels per step, then one at a time */

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
#if EM_NN_TIER_DSP /* 3x3, the common layer: 7% fewer instructions on M4, 2% on M3 (not worth its flash) */
EM_NN_DWF_PIXEL(em_nn_dwf_pixel_simple_9, em_nn_dwf_pixel_sd, true, 9)
#define EM_NN_DWF_PIXEL_SIMPLE_9 em_nn_dwf_pixel_simple_9
#else
#define EM_NN_DWF_PIXEL_SIMPLE_9 em_nn_dwf_pixel_simple
#endif

#endif

#if EM_NN_TIER_MVE
/** @p n bytes of @p src to @p dst (out of line: inlined, GCC spilled around it). */
static __attribute__((noinline)) void em_nn_dwf_copy(int8_t *dst, const int8_t *src, int32_t n)
{
    for (; n >= 16; n -= 16, src += 16, dst += 16) {
        vstrbq_s8(dst, vldrbq_s8(src));
    }
    if (n > 0) {
        const mve_pred16_t pr = vctp8q((uint32_t)n);
        vstrbq_p_s8(dst, vldrbq_z_s8(src, pr), pr);
    }
}

/** @p n bytes of @p v at @p dst. */
static __attribute__((noinline)) void em_nn_dwf_fill(int8_t *dst, int8_t v, int32_t n)
{
    const int8x16_t f = vdupq_n_s8(v);
    for (; n >= 16; n -= 16, dst += 16) {
        vstrbq_s8(dst, f);
    }
    if (n > 0) {
        vstrbq_p_s8(dst, f, vctp8q((uint32_t)n));
    }
}

/** Each output row's KH input rows copied into @p rows with input_zero_point columns either
 *  side (and for rows outside the input), so that every pixel is inner: one tap table for the
 *  layer, a pixel's taps at + ox·stride_w·C. With @p block4 (3x3 at stride 1, else NULL) 4-pixel
 *  blocks, then the tap-table pixel for the last output_w % 4. @p pw: bytes of one padded row
 *  (pad_left + input_w + what the last window needs on the right, times C). */
static void em_nn_dwf_rows_mve(const em_nn_dwf *k, const em_conv_params *p, const em_conv_dims *d,
                               const int8_t *input, int8_t *out, int8_t *rows, int32_t pw,
                               em_nn_dwf_block_fn block4,
                               void (*pixel)(const em_nn_dwf *, const uintptr_t *, uintptr_t, int8_t *))
{
    const int32_t cs = k->c, kh = d->kernel_h, kw = d->kernel_w, row_bytes = d->input_w * cs;
    const int8_t zp = (int8_t)p->input_zero_point;
    em_nn_dwf_fill(rows, zp, kh * pw); /* the padded columns stay zero points */
    uintptr_t tap[EM_NN_DWF_MAX_TAPS];
    for (int32_t ky = 0, t = 0; ky < kh; ky++) {
        for (int32_t kx = 0; kx < kw; kx++, t++) {
            tap[t] = (uintptr_t)(rows + ky * pw + kx * p->dilation_w * cs);
        }
    }
    int8_t *const inner = rows + p->pad_left * cs;
    for (int32_t n = 0; n < d->batches; n++) {
        const int8_t *image = input + n * d->input_h * row_bytes;
        for (int32_t oy = 0; oy < d->output_h; oy++) {
            for (int32_t ky = 0; ky < kh; ky++) {
                const int32_t iy = oy * p->stride_h - p->pad_top + ky * p->dilation_h;
                if (iy >= 0 && iy < d->input_h) {
                    em_nn_dwf_copy(inner + ky * pw, image + iy * row_bytes, row_bytes);
                } else {
                    em_nn_dwf_fill(inner + ky * pw, zp, row_bytes);
                }
            }
            int32_t ox = 0;
            for (; block4 != NULL && ox + 4 <= d->output_w; ox += 4, out += 4 * cs) {
                block4(k, rows + ox * cs, cs, pw, cs, kh, kw, out);
            }
            for (; ox < d->output_w; ox++, out += cs) {
                pixel(k, tap, (uintptr_t)(ox * p->stride_w * cs), out);
            }
        }
    }
}
#endif

/* noinline: its calls through the chosen pixel / block pointers stay in a function of this name,
 * which the static stack bound resolves them by (stack_bound.py KERNEL_POINTERS); an LTO build
 * would otherwise inline it into its adapter. */
__attribute__((noinline)) bool em_nn_depthwise_m1_s8(const em_nn_context *ctx, const em_conv_params *params,
                                                     const em_per_channel_quant *quant, const em_conv_dims *dims,
                                                     const int8_t *input, const int8_t *weights, const int32_t *bias,
                                                     int8_t *output)
{
    (void)ctx; /* Helium's row path only */
    const em_conv_params p = *params;
    const em_conv_dims d = *dims;
    const int32_t cs = d.input_c, kh = d.kernel_h, kw = d.kernel_w;
    if (p.depth_multiplier != 1 || kh * kw > EM_NN_DWF_MAX_TAPS || cs > EM_NN_DWF_MAX_CHANNELS) {
        return false;
    }
#if EM_NN_TIER_MVE
    /* built without any tap-table pixel (em_nn_variants.h): the general path, as when declining */
    if (!(EM_NN_VARIANT_DWF_MVE_PIXEL || EM_NN_VARIANT_DWF_MVE_PIXEL_LEFT)) {
        return false;
    }
#endif
    em_nn_dwf k;
    k.c = cs;
    k.taps = kh * kw;
    k.out_offset = p.output_offset;
    k.act_min = p.activation_min;
    k.act_max = p.activation_max;
    k.w = weights;
    k.bias = bias;
    k.mult = quant->multiplier;
    k.shift = quant->shift;
#if EM_NN_TIER_MVE
    const bool blocks = cs % 4 == 0 && kh == 3 && kw == 3 && p.stride_w == 1 && p.dilation_w == 1;
    if (cs < 16 && !blocks) { /* under one 16-lane group per pixel: the general path's 4-lane
                               * blocks do better (48x48x8). From 16 channels this path, though
                               * slightly slower on 48x48x16 s2 (MobileNet +2.5k instructions),
                               * spares a firmware the general path: 3.2 KB at -Os. */
        return false;
    }
    /* The int16 pair sums need weights >= −127; a positive pre-shift takes the slower form. */
    {
        int8x16_t lowest = vdupq_n_s8(127);
        const int32_t n = k.taps * cs;
        for (int32_t i = 0; i < n; i += 16) {
            lowest = vminq_s8(lowest, vldrbq_z_s8(weights + i, vctp8q((uint32_t)(n - i))));
        }
        if (vminvq_s8(127, lowest) == -128) {
            return false;
        }
    }
    bool left = false;
    for (int32_t c = 0; c < cs; c++) {
        left = left || quant->shift[c] > -2;
    }
    /* a variant left out of the build (em_nn_variants.h) is never taken: declining to the
     * general path */
    void (*pixel)(const em_nn_dwf *, const uintptr_t *, uintptr_t, int8_t *) = NULL;
    if (left) {
        pixel = EM_NN_VARIANT_DWF_MVE_PIXEL_LEFT ? em_nn_dwf_pixel_left : NULL;
    } else if (EM_NN_VARIANT_DWF_MVE_PIXEL) {
        pixel = em_nn_dwf_pixel;
    }
    if (pixel == NULL) {
        return false;
    }
    /* 4 inner pixels of a row at a time where that pays; NULL: none */
    const em_nn_dwf_block_fn block4 =
        EM_NN_VARIANT_DWF_MVE_BLOCK4 && blocks && !left ? em_nn_dwf_block4_3x3_unit : NULL;
    if (cs < 16 && block4 == NULL) {
        return false;
    }
#else
    bool simple = p.activation_min == -128 && p.activation_max == 127;
    for (int32_t c = 0; c < cs; c++) {
        simple = simple && quant->shift[c] <= -2;
    }
    void (*const pixel)(const em_nn_dwf *, const uintptr_t *, uintptr_t, int8_t *) =
        !simple ? em_nn_dwf_pixel_any : (k.taps == 9 ? EM_NN_DWF_PIXEL_SIMPLE_9 : em_nn_dwf_pixel_simple);
#endif
#if EM_NN_TIER_MVE
    const int32_t rows_bytes = em_nn_dwf_rows_bytes(&p, &d);
    if (EM_NN_VARIANT_DWF_MVE_ROWS && rows_bytes > 0 && ctx != NULL && ctx->buf != NULL && ctx->size >= rows_bytes) {
        em_nn_dwf_rows_mve(&k, &p, &d, input, output, (int8_t *)ctx->buf, rows_bytes / kh, block4, pixel);
        return true;
    }
    if (!EM_NN_VARIANT_DWF_MVE_TAPS) {
        return false; /* the tap tables below are left out of this build: the general path */
    }
#endif
    int8_t zp_row[EM_NN_DWF_MAX_CHANNELS];
    for (int32_t c = 0; c < cs; c++) {
        zp_row[c] = (int8_t)p.input_zero_point;
    }
    const uintptr_t pad = (uintptr_t)zp_row;
    const int32_t row_stride = d.input_w * cs;
    uintptr_t row_tap[EM_NN_DWF_MAX_TAPS], px_tap[EM_NN_DWF_MAX_TAPS];
    int8_t *out = output;
    for (int32_t n = 0; n < d.batches; n++) {
        const int8_t *image = input + n * d.input_h * row_stride;
        for (int32_t oy = 0; oy < d.output_h; oy++) {
            const int32_t iy0 = oy * p.stride_h - p.pad_top;
            const bool rows_in = iy0 >= 0 && iy0 + (kh - 1) * p.dilation_h < d.input_h;
            if (rows_in) { /* tap addresses of column 0 of this output row; + ix0·C per pixel */
                for (int32_t ky = 0, t = 0; ky < kh; ky++) {
                    const int8_t *row = image + (iy0 + ky * p.dilation_h) * row_stride;
                    for (int32_t kx = 0; kx < kw; kx++, t++) {
                        row_tap[t] = (uintptr_t)(row + kx * p.dilation_w * cs);
                    }
                }
            }
            for (int32_t ox = 0; ox < d.output_w; ox++, out += cs) {
                const int32_t ix0 = ox * p.stride_w - p.pad_left;
                if (rows_in && ix0 >= 0 && ix0 + (kw - 1) * p.dilation_w < d.input_w) {
#if EM_NN_TIER_MVE
                    /* this and the next 3 pixels inside (stride 1): no tap table */
                    if (block4 != NULL && ox + 4 <= d.output_w && ix0 + 3 + (kw - 1) < d.input_w) {
                        block4(&k, image + iy0 * row_stride + ix0 * cs, cs, p.dilation_h * row_stride, cs, kh, kw,
                               out);
                        ox += 3;
                        out += 3 * cs;
                        continue;
                    }
#endif
                    pixel(&k, row_tap, (uintptr_t)(ix0 * cs), out);
                    continue;
                }
                for (int32_t ky = 0, t = 0; ky < kh; ky++) {
                    const int32_t iy = iy0 + ky * p.dilation_h;
                    const bool row_ok = iy >= 0 && iy < d.input_h;
                    const int8_t *row = image + (row_ok ? iy : 0) * row_stride;
                    for (int32_t kx = 0; kx < kw; kx++, t++) {
                        const int32_t ix = ix0 + kx * p.dilation_w;
                        px_tap[t] = row_ok && ix >= 0 && ix < d.input_w ? (uintptr_t)(row + ix * cs) : pad;
                    }
                }
                pixel(&k, px_tap, 0u, out);
            }
        }
    }
    return true;
}
